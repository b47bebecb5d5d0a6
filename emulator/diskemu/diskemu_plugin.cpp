// nbdkit-diskemu-plugin: an NBD export that is an emulated HP 97560 disk, MEMS device or
// fixed-time device, served at the model's speed in real time. See
// nbdkit-diskemu-plugin.pod for the user's view.
#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>

#include "common/nbdkit_callback.hpp"
#include "common/nbdkit_key_parsers.hpp"
#include "common/nbdkit_plugin_table.hpp"
#include "common/units.hpp"
#include "emulator/diskemu/clock.hpp"
#include "emulator/diskemu/config.hpp"
#include "emulator/diskemu/device_stats.hpp"
#include "emulator/diskemu/orderly_stop.hpp"
#include "emulator/diskemu/realtime_device.hpp"
#include "emulator/diskemu/store.hpp"
#include "emulator/diskemu/write_cache_store.hpp"
#include "emulator/device/virtual_device.hpp"
#include "schedulers/registry.hpp"

// -D diskemu.trace=1 logs every request's modelled timing (with -v).
extern "C" NBDKIT_DLL_PUBLIC int diskemu_debug_trace;
int diskemu_debug_trace = 0;

namespace {

using namespace disksched;
using namespace disksched::diskemu;

DiskemuConfig config;
std::unique_ptr<VirtualDevice> device;
std::unique_ptr<Store> store;
std::unique_ptr<MonotonicClock> clock;
DeviceStats stats;
std::unique_ptr<RealTimeDevice> realtime;
// The write cache's data (write-cache=SIZE > 0), else null: writes go to `store`.
std::unique_ptr<WriteCacheStore> wstore;
std::uint64_t writes_served = 0;  // guarded by the device's turn
std::uint64_t cuts_taken = 0;     // guarded by the device's turn: the next cut's seed offset
std::atomic<std::uint64_t> power_cuts{0}, lost_sectors{0};

bool write_through_drive() { return config.write_cache && *config.write_cache == 0; }

// ---- statistics file: written at exit and on SIGUSR1 ----

int signal_pipe[2] = {-1, -1};
std::thread stats_thread;
std::mutex stats_file_mutex;
struct sigaction old_usr1;

void write_stats() {
  if (!config.stats) return;
  nlohmann::json j = stats.to_json();
  j["model"] = device->model().name();
  j["timescale"] = config.timescale;
  j["jitter"] = config.jitter.to_string();
  j["rpm_error"] = config.rpm_error.to_string();
  j["spin_us"] = config.spin_ms * 1000.0;
  j["rt_priority"] = config.rt_priority;
  j["head"] = {{"time_ms", device->head().time_ms}, {"cylinder", device->head().cylinder},
               {"head", device->head().head}};
  const DriveQueueOptions& dq = config.drive_queue;
  const auto counts = realtime ? realtime->queue_counts() : RealTimeDevice::QueueCounts{};
  j["drive_queue"] = {{"depth", dq.depth}, {"policy", dq.policy}, {"window", dq.window},
                      {"age_limit", dq.has_age_limit() ? format_duration_ms(dq.age_limit_ms) : "none"},
                      {"passed", counts.passed}, {"forced", counts.forced}};
  if (const WriteCache* w = device->write_cache())
    j["write_cache"] = {{"bytes", config.write_cache.value_or(w->capacity() * device->model().sector_bytes())},
                        {"destage", w->policy() == DestagePolicy::WhenIdle ? "when-idle"
                                                                            : "profile-write-behind"},
                        {"power_cuts", power_cuts.load()},
                        {"lost_sectors", lost_sectors.load()}};
  else if (config.write_cache)
    j["write_cache"] = {{"bytes", 0}, {"power_cuts", 0}, {"lost_sectors", 0}};
  std::lock_guard lock(stats_file_mutex);
  try {
    write_json_file(*config.stats, j);
  } catch (const std::exception& e) {
    nbdkit_error("diskemu: stats=%s: %s", config.stats->c_str(), e.what());
  }
}

void on_sigusr1(int) {
  const char c = 'u';
  int saved = errno;
  [[maybe_unused]] ssize_t r = write(signal_pipe[1], &c, 1);
  errno = saved;
}

void stats_loop() {
  char c;
  for (;;) {
    ssize_t r = read(signal_pipe[0], &c, 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0 || c == 'q') return;
    write_stats();
  }
}

// ---- the write cache's data, and power cuts ----

void apply(const std::vector<Destage>& destaged) {
  if (wstore)
    for (const Destage& d : destaged) wstore->destage(d.extent);
}

// A FLUSH served: the timing model wrote its buffer out, and so does the data buffer
// (which, held for a seeded cut, ignores the timing model's destages).
void apply_flush(const Service& s) {
  apply(s.destaged);
  if (wstore) wstore->flush();
}

// In device order: the power goes at device time `now`; what the cache had not written
// is lost, what reached the media by then is in the store. The drive serves on.
// With power-cut-seed= the data buffer holds every write since the last flush (hold()),
// so the seeded choice of what survives depends on the writes alone, never on when
// real-time arrivals let the timing model destage: the same writes repeat the image.
void cut_power(Millis now) {
  std::optional<std::uint64_t> seed;
  if (config.power_cut_seed) seed = *config.power_cut_seed + cuts_taken;
  ++cuts_taken;
  const VirtualDevice::PowerCut cut = device->power_cut(now, seed);  // the timing model's
  std::uint64_t lost = 0, written = 0;
  if (seed) {
    const WriteCacheStore::Cut c = wstore->cut(*seed);
    lost = c.lost;
    written = c.written;
  } else {
    apply(cut.destaged);
    for (const Extent& e : cut.lost) {
      wstore->drop(e);
      lost += e.sectors;
    }
    for (const Destage& d : cut.destaged) written += d.extent.sectors;
  }
  store->sync();  // with file=: the file is the media, so it holds the media's state now
  ++power_cuts;
  lost_sectors += lost;
  nbdkit_debug("diskemu: power cut at %.6f ms: %llu sectors reached the media at it, "
               "%llu sectors acknowledged and lost",
               now, static_cast<unsigned long long>(written), static_cast<unsigned long long>(lost));
}

// SIGUSR2 cuts the power while running: the handler only wakes this thread, which takes
// the device's turn like a command.
int cut_pipe[2] = {-1, -1};
std::thread cut_thread;
struct sigaction old_usr2;

void on_sigusr2(int) {
  const char c = 'c';
  int saved = errno;
  [[maybe_unused]] ssize_t r = write(cut_pipe[1], &c, 1);
  errno = saved;
}

void cut_loop() {
  char c;
  for (;;) {
    ssize_t r = read(cut_pipe[0], &c, 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0 || c == 'q') return;
    try {
      realtime->in_turn(cut_power);
    } catch (const std::exception& e) {
      nbdkit_error("diskemu: power cut: %s", e.what());
    }
    write_stats();
  }
}

// ---- an orderly stop ----

// As a host powering the drive off in order: the cache goes to the media.
void write_cache_out(const char* when) {
  if (!wstore || !realtime) return;
  try {
    realtime->in_turn([](Millis now) {
      apply_flush(device->serve(now, Op::Flush, 0, 0));
      store->sync();
    });
  } catch (const std::exception& e) {
    nbdkit_error("diskemu: writing the write cache %s: %s", when, e.what());
  }
}

// SIGTERM / SIGINT: the cache is written out at once (later writes again at exit), and
// idle clients are disconnected so that nbdkit exits (orderly_stop.hpp).
std::unique_ptr<OrderlyStop> orderly_stop;

// ---- configuration and lifecycle ----

int diskemu_config(const char* key, const char* value) {
  return nbdkit_guard("diskemu", [&] {
    std::string v = value;
    if (std::strcmp(key, "file") == 0 || std::strcmp(key, "stats") == 0) {
      const auto abs = nbdkit_path_value(value);
      if (!abs) return -1;
      v = *abs;
    }
    config.set(key, v, nbdkit_key_parsers());
    return 0;
  });
}

int diskemu_config_complete() {
  return nbdkit_guard("diskemu", [] {
    config.check();
    DeviceOptions opts;
    opts.jitter = config.jitter;
    opts.jitter_seed = config.jitter_seed;
    opts.rpm_error = config.rpm_error;
    if (config.write_cache)
      opts.write_cache = WriteCacheOptions{*config.write_cache,
                                           config.write_cache_high_water.value_or(0.75)};
    try {
      device = std::make_unique<VirtualDevice>(load_model(config.model), opts);
    } catch (const ModelError& e) {
      throw ConfigError(std::string("model=") + config.model + ": " + e.what());
    }
    // The policy matters only to a drive that queues (depth 1 never chooses).
    if (config.drive_queue.depth > 1) try {
      Registry::builtin().check(config.drive_queue.policy, device->model());
    } catch (const std::exception& e) {
      throw ConfigError(std::string("drive-policy=") + config.drive_queue.policy + ": " + e.what());
    }
    const auto size = device->model().capacity_bytes();
    if (config.file)
      store = std::make_unique<FileStore>(*config.file, size);
    else
      store = std::make_unique<SparseMemoryStore>(size);
    config.write_buffer_check(device->write_cache() != nullptr);
    if (device->write_cache()) {
      wstore = std::make_unique<WriteCacheStore>(*store, device->model().sector_bytes());
      if (config.power_cut_seed) wstore->hold(device->write_cache()->capacity());
    }
    return 0;
  });
}

int diskemu_get_ready() {
  if (config.rt_priority > 0 && !MonotonicClock(0, 0, {}, 0, config.rt_priority).rt_ok()) {
    nbdkit_error("diskemu: rt-priority=%d: cannot switch to SCHED_FIFO (needs CAP_SYS_NICE or "
                 "an RLIMIT_RTPRIO of at least %d)", config.rt_priority, config.rt_priority);
    return -1;
  }
  // Fail now, while errors still reach the terminal, if the stats file cannot be written.
  if (config.stats) {
    try {
      write_json_file(*config.stats, stats.to_json());
    } catch (const std::exception& e) {
      nbdkit_error("diskemu: stats=%s: %s", config.stats->c_str(), e.what());
      return -1;
    }
  }
  return 0;
}

int diskemu_after_fork() {
  clock = std::make_unique<MonotonicClock>(
      static_cast<Nanos>(config.spin_ms * 1e6), static_cast<Nanos>(config.timer_slack_ms * 1e6),
      [](Nanos ns) {
        return nbdkit_nanosleep(static_cast<unsigned>(ns / 1'000'000'000),
                                static_cast<unsigned>(ns % 1'000'000'000)) == 0;
      },
      2'000'000, config.rt_priority);
  // Device time 0 is now: the platter starts turning when the server is ready.
  realtime = std::make_unique<RealTimeDevice>(
      *device, *clock, Timebase(clock->now_ns(), config.timescale), &stats, config.drive_queue);
  if (config.stats) {
    if (pipe2(signal_pipe, O_CLOEXEC) < 0) {
      nbdkit_error("diskemu: pipe: %m");
      return -1;
    }
    stats_thread = std::thread(stats_loop);
    struct sigaction sa = {};
    sa.sa_handler = on_sigusr1;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGUSR1, &sa, &old_usr1);
  }
  try {
    orderly_stop = std::make_unique<OrderlyStop>([] { write_cache_out("on the stop signal"); });
    orderly_stop->start();
  } catch (const std::exception& e) {
    nbdkit_error("diskemu: %s", e.what());
    return -1;
  }
  if (wstore) {
    if (pipe2(cut_pipe, O_CLOEXEC) < 0) {
      nbdkit_error("diskemu: pipe: %m");
      return -1;
    }
    cut_thread = std::thread(cut_loop);
    struct sigaction sa = {};
    sa.sa_handler = on_sigusr2;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGUSR2, &sa, &old_usr2);
  }
  return 0;
}

void diskemu_cleanup() {
  orderly_stop.reset();
  if (cut_thread.joinable()) {
    sigaction(SIGUSR2, &old_usr2, nullptr);
    const char c = 'q';
    [[maybe_unused]] ssize_t r = write(cut_pipe[1], &c, 1);
    cut_thread.join();
    close(cut_pipe[0]);
    close(cut_pipe[1]);
  }
  // An orderly shutdown, as a drive powered off by its host: the cache goes to the media.
  write_cache_out("at exit");
  if (stats_thread.joinable()) {
    sigaction(SIGUSR1, &old_usr1, nullptr);
    const char c = 'q';
    [[maybe_unused]] ssize_t r = write(signal_pipe[1], &c, 1);
    stats_thread.join();
    close(signal_pipe[0]);
    close(signal_pipe[1]);
  }
  if (device) write_stats();
}

void diskemu_unload() {
  realtime.reset();
  clock.reset();
  wstore.reset();
  store.reset();
  device.reset();
}

void diskemu_dump_plugin() {
  std::string models;
  for (const std::string& m : builtin_model_names()) models += m + ",";
  std::printf("diskemu_models=%sfixed:ms=X,PROFILE.json\n", models.c_str());
}

// ---- per connection ----

// One export, the default (""): a client that names another is refused, so nothing in
// front of the plugin (the disksched filter keeps a device per export name) is made to
// keep state for names a client invents.
void* diskemu_open(int /*readonly*/) {
  const char* asked = nbdkit_export_name();
  if (asked != nullptr && *asked != '\0') {
    nbdkit_error("diskemu: no export named '%s': this plugin serves one export, the default "
                 "(an empty name)", asked);
    return nullptr;
  }
  return NBDKIT_HANDLE_NOT_NEEDED;
}

int64_t diskemu_get_size(void*) { return static_cast<int64_t>(device->model().capacity_bytes()); }

int diskemu_block_size(void*, uint32_t* minimum, uint32_t* preferred, uint32_t* maximum) {
  // 4Kn: 4096 / 4096; 512e: 512 / 4096 (smaller writes cost a read-modify-write).
  const uint32_t sector = device->model().sector_bytes();
  const uint32_t physical = device->model().physical_sector_bytes();
  *minimum = sector;
  *preferred = physical > 4096 ? physical : 4096;
  *maximum = 64 * 1024 * 1024;
  return 0;
}

int diskemu_is_rotational(void*) { return device->model().rotational() ? 1 : 0; }
int diskemu_can_write(void*) { return 1; }
// write-cache=0: a drive without a volatile cache, which NBD says by offering no flush
// and no FUA (every write is on the media when it completes).
int diskemu_can_flush(void*) { return write_through_drive() ? 0 : 1; }
int diskemu_can_trim(void*) { return 1; }
int diskemu_can_zero(void*) { return 1; }
int diskemu_can_fua(void*) { return write_through_drive() ? NBDKIT_FUA_NONE : NBDKIT_FUA_NATIVE; }
// Advertised so that a client's FAST_ZERO reaches diskemu_zero, which refuses it:
// nbdkit 1.32 does not check the flag against what a plugin advertised and aborts
// (backend_zero's assertion) when a client sends it anyway.
int diskemu_can_fast_zero(void*) { return 1; }
// NBD_CMD_CACHE reads the range into the drive's buffer (read-ahead and all), sending
// nothing back: offered where the profile has a read cache to fill, else not at all.
int diskemu_can_cache(void*) {
  const DriveCache* d = device->drive();
  return d != nullptr && d->params().cache.enabled() ? NBDKIT_CACHE_NATIVE : NBDKIT_CACHE_NONE;
}
// One device behind every connection (and one write cache): a flush on one covers all.
int diskemu_can_multi_conn(void*) { return 1; }

void trace(const Admission& a, uint64_t offset, uint32_t count, bool synced, Nanos late) {
  if (!diskemu_debug_trace) return;
  const auto& s = a.service;
  nbdkit_debug(
      "diskemu: #%llu %s off=%llu len=%u%s arrive=%.6f start=%.6f done=%.6f ms "
      "(ovh=%.4f seek=%.4f rot=%.4f xfer=%.4f cpl=%.4f jit=%.4f) cyl=%lld head=%d late=%lld ns%s",
      static_cast<unsigned long long>(s.seq), std::string(op_name(s.op)).c_str(),
      static_cast<unsigned long long>(offset), count, synced ? " fdatasync" : "", s.arrival_ms,
      s.start_ms, s.completion_ms, s.cost.overhead_ms, s.cost.seek_ms, s.cost.rotation_ms,
      s.cost.transfer_ms, s.cost.completion_ms, s.jitter_ms,
      static_cast<long long>(s.cost.end.cylinder), s.cost.end.head, static_cast<long long>(late),
      s.hit ? " hit" : "");
}

// A request that failed: says why, counts it, and gives nbdkit the errno to send.
int fail_request(Op op, const std::exception& e, int err) {
  nbdkit_error("diskemu: %s", e.what());
  realtime->failed(op);
  nbdkit_set_error(err);
  return -1;
}

// Runs one request: admission (with `in_order` while it holds the device), `after`
// (outside the device's turn: reads, syncs; returns whether it made the file durable),
// then the wait for the modelled completion.
template <class InOrder, class After>
int serve(Op op, uint64_t offset, uint32_t count, InOrder&& in_order, After&& after,
          bool fua = false) {
  Admission a;
  try {
    a = realtime->admit(op, offset, count, in_order, fua);
  } catch (const ModelError& e) {
    return fail_request(op, e, EINVAL);
  } catch (const std::system_error& e) {
    return fail_request(op, e, e.code().value());
  } catch (const std::exception& e) {
    return fail_request(op, e, EIO);
  }
  try {
    const bool synced = after();
    Nanos late = realtime->complete(a);
    trace(a, offset, count, synced, late);
    return 0;
  } catch (const RealTimeDevice::Abandoned&) {
    nbdkit_set_error(ESHUTDOWN);   // nbdkit_nanosleep has said why
    return -1;
  } catch (const std::system_error& e) {
    realtime->release(a);
    return fail_request(op, e, e.code().value());
  } catch (const std::exception& e) {
    realtime->release(a);
    return fail_request(op, e, EIO);
  }
}

// fdatasync for a file; memory has nothing to sync. Returns whether it synced.
bool sync_store() {
  store->sync();
  return store->persistent();
}

int diskemu_pread(void*, void* buf, uint32_t count, uint64_t offset, uint32_t) {
  // In device order too: a read sees exactly the writes served before it.
  return serve(
      Op::Read, offset, count,
      [&](const Service& s) {
        apply(s.destaged);
        wstore ? wstore->read(buf, count, offset) : store->read(buf, count, offset);
      },
      [] { return false; });
}

void zero_in_order(const Service& s, uint32_t count, uint64_t offset) {
  apply(s.destaged);
  wstore ? wstore->zero_through(count, offset) : store->zero(count, offset);
}

// Without write-cache= the emulated device writes through: a write is on the media when
// it completes, so FUA costs no device time. With write-cache=SIZE a write the device
// acknowledged from its buffer stays in `wstore` until the timing model destages it.
// With file=, "the media" is the file, so FUA (and flush) also fdatasync it: what the
// client was promised durable is; with write-cache=0 every write is promised so.
int diskemu_pwrite(void*, const void* buf, uint32_t count, uint64_t offset, uint32_t flags) {
  const bool fua = flags & NBDKIT_FLAG_FUA;
  bool cut = false;
  const int r = serve(
      Op::Write, offset, count,
      [&](const Service& s) {
        apply(s.destaged);
        if (!wstore)
          store->write(buf, count, offset);
        else if (s.buffered)
          wstore->write_buffered(buf, count, offset);
        else
          wstore->write_through(buf, count, offset);
        if (config.power_cut_after && ++writes_served == *config.power_cut_after) {
          cut_power(s.completion_ms);
          cut = true;
        }
      },
      [&] { return (fua || write_through_drive()) && sync_store(); }, fua);
  // The stats file says a cut happened, as after SIGUSR2 (out of the device's turn).
  if (cut) write_stats();
  return r;
}

int diskemu_flush(void*, uint32_t) {
  return serve(Op::Flush, 0, 0, [](const Service& s) { apply_flush(s); },
               [] { return sync_store(); });
}

int diskemu_trim(void*, uint32_t count, uint64_t offset, uint32_t flags) {
  return serve(
      Op::Trim, offset, count, [&](const Service& s) { zero_in_order(s, count, offset); },
      [&] { return (flags & NBDKIT_FLAG_FUA) && sync_store(); });
}

int diskemu_cache(void*, uint32_t count, uint64_t offset, uint32_t) {
  return serve(Op::Cache, offset, count, [](const Service& s) { apply(s.destaged); },
               [] { return false; });
}

int diskemu_zero(void*, uint32_t count, uint64_t offset, uint32_t flags) {
  // Zeroing costs the emulated disk what writing costs: never faster, so a client that
  // asked for a fast zero is told at once to write instead (NBD_CMD_FLAG_FAST_ZERO).
  if (flags & NBDKIT_FLAG_FAST_ZERO) {
    nbdkit_set_error(ENOTSUP);
    return -1;
  }
  return serve(
      Op::Zero, offset, count, [&](const Service& s) { zero_in_order(s, count, offset); },
      [&] { return (flags & NBDKIT_FLAG_FUA) && sync_store(); });
}

// Made from the key table (config.cpp), with the built-in models.
const char* config_help_text() {
  static const std::string text = key_help_text();
  return text.c_str();
}
const char* const diskemu_config_help = config_help_text();

nbdkit_plugin make_plugin() {
  nbdkit_plugin p = disksched::nbdkit_plugin_named(
      "diskemu", "nbdkit emulated disk plugin (disksched)",
      "An HP 97560 disk, a MEMS device or a fixed-time device, in real time", "model");
  DISKSCHED_PLUGIN_CALLBACKS(p, diskemu);
  p.can_cache = diskemu_can_cache;
  p.cache = diskemu_cache;
  return p;
}

nbdkit_plugin plugin = make_plugin();

}  // namespace

#define THREAD_MODEL NBDKIT_THREAD_MODEL_PARALLEL
NBDKIT_REGISTER_PLUGIN(plugin)
