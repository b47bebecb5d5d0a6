// nbdkit-disksched-filter: holds the requests of nbdkit's worker threads in one queue
// per device, lets at most sched-depth of them reach the plugin, and lets a scheduler
// pick the next one each time the device has room, using a head position tracked from
// completions. See nbdkit-disksched-filter(1).
//
// The worker that owns a request makes the plugin call itself (nbdkit keeps per-thread
// context); the Dispatcher only decides when. Flush, extents and cache are not queued.
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nbdkit-filter.h>
#include <nbdkit-version.h>

#include "daemon/filter/class_map.hpp"
#include "daemon/filter/control.hpp"
#include "daemon/filter/control_commands.hpp"
#include "daemon/filter/dispatcher.hpp"
#include "common/clock.hpp"
#include "common/nbdkit_callback.hpp"
#include "common/nbdkit_key_parsers.hpp"
#include "common/served_connections.hpp"
#include "daemon/filter/filter_config.hpp"
#include "daemon/filter/graceful_stop.hpp"
#include "daemon/filter/latency_log.hpp"
#include "daemon/filter/metrics.hpp"
#include "daemon/filter/metrics_file.hpp"
#include "schedulers/registry.hpp"

// -D disksched.dispatch=1 logs every dispatch and completion (with -v).
extern "C" NBDKIT_DLL_PUBLIC int disksched_debug_dispatch;
int disksched_debug_dispatch = 0;

namespace {

using namespace disksched;

// Plain pointers, deleted in .unload: when nbdkit daemonizes, the parent process exits
// through exit(), and destructors of static objects would run there too (unlinking the
// control socket the child serves).
FilterConfig config;
LatencyLogWriter* latency_log = nullptr;
ControlServer* control = nullptr;
GracefulStop* graceful_stop = nullptr;
Metrics* metrics = nullptr;           // with sched-metrics= or sched-control=
MetricsFile* metrics_file = nullptr;  // with sched-metrics=

// Requests inside the filter (queued, at the plugin, or a flush): none, for a while,
// means the clients' queues are empty and a signalled server may stop.
std::atomic<int> requests_inside{0};
struct Inside {
  Inside() { requests_inside.fetch_add(1, std::memory_order_relaxed); }
  ~Inside() { requests_inside.fetch_sub(1, std::memory_order_release); }
  Inside(const Inside&) = delete;
  Inside& operator=(const Inside&) = delete;
};

// The devices. With a geometry there is one, created in .get_ready. Without one the
// LBN model needs a size, known only when a connection asks for an export: each export
// gets a device of its own size, and one that has grown since (a longer file) a new one
// for the connections to come. The first device created is the one the control socket
// shows; a scheduler switch applies to all.
// A client chooses the export name, and many plugins take any name, so without a
// geometry the names in use are bounded (sched-max-exports=, refused in .open) and a
// device is freed with its last connection (the first one excepted: the control socket
// and the metrics show it).
std::mutex device_mu;
std::unique_ptr<DeviceModel> geometry_model;  // validated at start-up, handed to the dispatcher
std::atomic<Dispatcher*> device{nullptr};     // the first
std::vector<Dispatcher*> devices;             // all, owned; deleted in .unload or when unused
struct ExportDevices {
  Dispatcher* newest = nullptr;  // for the connections to come
  unsigned connections = 0;      // open (from .open to .close), on any of its devices
};
std::map<std::string, ExportDevices> export_device;  // without a geometry: plugin export ->
std::map<const Dispatcher*, unsigned> device_users;  // without a geometry: prepared connections
std::string pending_scheduler;   // sched= or a switch before the device opened
bool forked = false;
bool geometry_rotational = false;

// Builds a device's dispatcher; device_mu held.
Dispatcher* create_device(std::unique_ptr<DeviceModel> model) {
  // A later export's device starts with the scheduler the first one has now.
  if (Dispatcher* first = device.load(); first != nullptr)
    pending_scheduler = first->scheduler();
  auto scheduler = make_scheduler(pending_scheduler, *model);
  Dispatcher::Options o = config.dispatcher_options(model->capacity_bytes());
  o.warn = [](const std::string& m) {
    fprintf(stderr, "nbdkit: disksched: warning: %s\n", m.c_str());
  };
  auto* d = new Dispatcher(std::move(model), std::move(scheduler), std::move(o), monotonic_ns);
  devices.push_back(d);
  if (forked) d->start();
  if (device.load() == nullptr) device.store(d, std::memory_order_release);
  return d;
}

// Stops and frees a device no connection uses; device_mu held. Never the first.
void free_device(Dispatcher* d) {
  d->stop();
  devices.erase(std::find(devices.begin(), devices.end(), d));
  device_users.erase(d);
  delete d;
}

// Counts a connection to `plugin_export`, or refuses it when sched-max-exports= names are
// in use already (without a geometry); device_mu held. Returns false when refused.
bool admit_export(const std::string& plugin_export, const std::string& asked) {
  if (!config.geometry.empty()) return true;
  auto it = export_device.find(plugin_export);
  if (it == export_device.end()) {
    if (export_device.size() >= config.max_exports) {
      nbdkit_error("disksched: export '%s' refused: %zu export names are in use, the most "
                   "sched-max-exports=%u allows (each has a device and a thread of its own "
                   "until its last connection closes)",
                   asked.c_str(), export_device.size(), config.max_exports);
      return false;
    }
    it = export_device.emplace(plugin_export, ExportDevices{}).first;
  }
  ++it->second.connections;
  return true;
}

// Undoes admit_export for a closing connection that used device `used` (or none):
// a device nobody uses any more is freed; device_mu held.
void release_export(const std::string& plugin_export, Dispatcher* used) {
  if (!config.geometry.empty()) return;
  auto it = export_device.find(plugin_export);
  if (it == export_device.end()) return;
  ExportDevices& e = it->second;
  Dispatcher* first = device.load();
  if (used != nullptr && --device_users[used] == 0 && used != e.newest && used != first)
    free_device(used);  // an export that has grown since: its older device
  if (--e.connections > 0) return;
  if (e.newest == first && first != nullptr) return;  // kept, and its name with it
  if (e.newest != nullptr) free_device(e.newest);
  export_device.erase(it);
}

// No device_mu: the first dispatcher is only deleted in .unload, after the writers stopped.
std::string metrics_text() {
  std::optional<Dispatcher::Snapshot> snap;
  if (const Dispatcher* d = device.load(std::memory_order_acquire)) snap = d->snapshot();
  std::optional<LatencyLogWriter::Status> log;
  if (latency_log) log = latency_log->status();
  return metrics->render(snap ? &*snap : nullptr, log ? &*log : nullptr);
}

// The other exports' devices follow the first one's scheduler; device_mu held.
void follow_first_scheduler() {
  Dispatcher* first = device.load();
  if (first == nullptr || devices.size() < 2) return;
  pending_scheduler = first->scheduler();
  for (Dispatcher* d : devices) {
    if (d == first || d->scheduler() == pending_scheduler) continue;
    try {
      d->switch_scheduler(pending_scheduler);
    } catch (const std::exception& e) {
      nbdkit_error("disksched: switching another export's device: %s", e.what());
    }
  }
}

// The command runs under device_mu; its file-system work (`save`, `reopen`) and the reply's
// rendering after the lock is let go.
std::string control_reply(const std::string& line) {
  ControlReply reply;
  {
    std::lock_guard lock(device_mu);
    ControlTarget target{device.load(), &pending_scheduler, config.classes.describe(),
                         config.save_dir, latency_log, metrics ? metrics_text : nullptr};
    reply = run_control_command(line, target);
    follow_first_scheduler();
  }
  return reply.finish();
}

int disksched_config(nbdkit_next_config* next, nbdkit_backend* nxdata, const char* key,
                     const char* value) {
  constexpr int kNotOurs = 1;  // a key for the plugin or a later filter
  const int r = nbdkit_guard("disksched", [&] {
    std::string v = value;
    const std::string k = key;
    if (k == "sched-log" || k == "sched-control" || k == "sched-metrics" || k == "sched-save-dir") {
      const auto abs = nbdkit_path_value(value);
      if (!abs) return -1;
      v = *abs;
    }
    if (config.set(k, v, nbdkit_key_parsers())) return 0;
    if (k == "file") config.plugin_files.push_back(v);  // checked against sched-log=
    return kNotOurs;
  });
  return r == kNotOurs ? next(nxdata, key, value) : r;
}

int disksched_config_complete(nbdkit_next_config_complete* next, nbdkit_backend* nxdata) {
  const int r = nbdkit_guard("disksched", [] {
    geometry_model = config.validate();
    geometry_rotational = geometry_model && geometry_model->rotational();
    pending_scheduler = config.sched;
    if (!config.log_path.empty()) {
      try {
        LatencyLogWriter::Options o;
        o.report = [](const std::string& m) { nbdkit_error("disksched: sched-log: %s", m.c_str()); };
        latency_log = new LatencyLogWriter(config.log_path, std::move(o));
      } catch (const std::exception& e) {
        throw std::runtime_error("sched-log=" + config.log_path + ": " + e.what());
      }
    }
    if (!config.metrics_path.empty() || !config.control_path.empty())
      metrics = new Metrics(config.disk_label());
    if (!config.metrics_path.empty()) {
      try {
        metrics_file = new MetricsFile(config.metrics_path, config.metrics_interval_ms, metrics_text);
      } catch (const std::exception& e) {
        throw std::runtime_error("sched-metrics=" + config.metrics_path + ": " + e.what());
      }
    }
    return 0;
  });
  return r < 0 ? r : next(nxdata);
}

// nbdkit was started with --run (read from the process's command line: nbdkit tells
// filters nothing of its options).
bool captive_server() {
  std::FILE* f = std::fopen("/proc/self/cmdline", "rb");
  if (f == nullptr) return false;
  std::string arg;
  bool run = false;
  for (int c; !run && (c = std::fgetc(f)) != EOF;) {
    if (c != '\0') {
      arg += static_cast<char>(c);
      continue;
    }
    run = arg == "--run" || arg.rfind("--run=", 0) == 0;
    arg.clear();
  }
  std::fclose(f);
  return run;
}

int disksched_get_ready(int thread_model) {
  if (thread_model != NBDKIT_THREAD_MODEL_PARALLEL) {
    // Not fatal, but the queue can then hold at most one request per connection (or one
    // in all): say why the scheduler has nothing to choose from.
    const char* name = thread_model == NBDKIT_THREAD_MODEL_SERIALIZE_REQUESTS
                           ? "serialize_requests"
                       : thread_model == NBDKIT_THREAD_MODEL_SERIALIZE_ALL_REQUESTS
                           ? "serialize_all_requests"
                           : "serialize_connections";
    fprintf(stderr,
            "nbdkit: disksched: warning: the thread model is %s (set by the plugin or a "
            "filter): requests are serialized before they reach the scheduler, so its queue "
            "holds at most one request per connection; use a plugin with the parallel thread "
            "model for scheduling to matter\n",
            name);
  }
#if NBDKIT_VERSION_MAJOR == 1 && NBDKIT_VERSION_MINOR < 34 && \
    !(NBDKIT_VERSION_MINOR == 33 && NBDKIT_VERSION_MICRO >= 10)
  // nbdkit loads only filters built against its own version, so this is the server's.
  // Not said to a captive server (--run), which serves one command and is not restarted.
  if (thread_model == NBDKIT_THREAD_MODEL_PARALLEL && !captive_server())
    fprintf(stderr,
            "nbdkit: disksched: note: nbdkit " NBDKIT_VERSION_STRING " can abort when a client "
            "disconnects with requests in flight (raw_send_socket: Assertion 'sock >= 0'; "
            "fixed in nbdkit 1.33.10 and 1.34.0): run it where it is restarted when it dies "
            "(the disksched@.service unit does), or with -t 1, which avoids the race but "
            "serves one request per connection at a time\n");
#endif
  if (config.depth > 1 && geometry_model && geometry_model->rotational())
    // Measured in virtual time (tests/daemon/filter/test_tracker_drive_queue.cpp): 100% within one
    // sector over a drive serving in dispatch order, 15-18% over one that reorders.
    fprintf(stderr,
            "nbdkit: disksched: note: sched-depth=%u: the head is predicted as if the device "
            "served requests in the order they are dispatched; a drive that reorders its own "
            "queue (NCQ, diskemu drive-queue=) breaks that, and the scheduler then orders by a "
            "wrong head position while the drive's firmware decides; for rotational scheduling "
            "use sched-depth=1 (ctl stats: prediction_within_sector)\n",
            config.depth);
  nbdkit_debug("disksched: thread model %d, scheduler %s, geometry %s, depth %u", thread_model,
               config.sched.c_str(), config.geometry.empty() ? "(LBN only)" : config.geometry.c_str(),
               config.depth);
  try {
    std::lock_guard lock(device_mu);
    if (geometry_model) create_device(std::move(geometry_model));
    if (!config.control_path.empty())
      control = new ControlServer(config.control_path, control_reply);
  } catch (const std::exception& e) {
    nbdkit_error("disksched: %s%s", config.control_path.empty() ? "" : "sched-control: ",
                 e.what());
    return -1;
  }
  return 0;
}

int disksched_after_fork(nbdkit_backend* /*nxdata*/) {
  std::lock_guard lock(device_mu);
  forked = true;
  for (Dispatcher* d : devices) d->start();
  if (latency_log) latency_log->start();
  if (control) control->start();
  if (metrics_file) metrics_file->start();
  try {
    graceful_stop = new GracefulStop(
        {}, [] { return requests_inside.load(std::memory_order_acquire) == 0; },
        [] { shut_down_served_connections({config.control_path}); });
    graceful_stop->start();
  } catch (const std::exception& e) {
    nbdkit_error("disksched: %s", e.what());
    return -1;
  }
  return 0;
}

void disksched_cleanup(nbdkit_backend* /*nxdata*/) {
  // All connections are closed: nothing is queued any more.
  if (graceful_stop) graceful_stop->stop();
  if (control) control->stop();
  {
    std::lock_guard lock(device_mu);
    for (Dispatcher* d : devices) d->stop();
  }
  if (latency_log) latency_log->stop();
  if (metrics_file) metrics_file->stop();
}

void disksched_unload() {
  // First: its thread reads the dispatcher and the log.
  delete metrics_file;
  metrics_file = nullptr;
  delete graceful_stop;
  graceful_stop = nullptr;
  delete control;
  control = nullptr;
  device.store(nullptr);
  export_device.clear();
  device_users.clear();
  for (Dispatcher* d : devices) delete d;
  devices.clear();
  delete metrics;
  metrics = nullptr;
  delete latency_log;
  latency_log = nullptr;
}

struct Handle {
  std::optional<ClassAssignment> connection_class;
  std::string export_name;        // as the client asked
  std::string plugin_export;      // as the plugin sees it
  Dispatcher* device = nullptr;   // set in .prepare
  bool counted = false;           // by admit_export
  ~Handle() {
    if (!counted) return;
    std::lock_guard lock(device_mu);
    release_export(plugin_export, device);
  }
};

IoprioClass peer_ioprio() {
  const std::int64_t pid = nbdkit_peer_pid();
  if (pid <= 0) return IoprioClass::None;
  constexpr int kWhoProcess = 1;  // IOPRIO_WHO_PROCESS
  const long prio = syscall(SYS_ioprio_get, kWhoProcess, static_cast<int>(pid));
  if (prio < 0) return IoprioClass::None;
  return static_cast<IoprioClass>((prio >> 13) & 0x7);  // IOPRIO_PRIO_CLASS
}

void* disksched_open(nbdkit_next_open* next, nbdkit_context* nxdata, int readonly,
                     const char* exportname, int /*is_tls*/) {
  if (graceful_stop && graceful_stop->stopping()) {
    nbdkit_error("disksched: the server is stopping: no new connections");
    return nullptr;
  }
  auto h = std::make_unique<Handle>();
  h->export_name = exportname;
  h->connection_class = config.classes.for_connection(exportname, peer_ioprio());
  // A class name is not the plugin's export: the plugin sees its default export.
  const char* pass = config.classes.is_class_export(exportname) ? "" : exportname;
  h->plugin_export = pass;
  {
    std::lock_guard lock(device_mu);
    if (!admit_export(pass, h->export_name)) return nullptr;
    h->counted = true;
  }
  if (next(nxdata, readonly, pass) == -1) return nullptr;
  return h.release();
}

void disksched_close(void* handle) { delete static_cast<Handle*>(handle); }

// A geometry much larger than the export (an 8 TB profile over a 1.3 GB disk) is most
// likely the wrong profile: its zones, and so every prediction, belong to another disk.
// Said once, on stderr (nbdkit -f) or syslog, and kept for `ctl show`.
void warn_if_geometry_larger(Dispatcher& d, const std::string& export_name, std::uint64_t size) {
  static std::atomic<bool> warned{false};
  if (size >= d.capacity_bytes() || warned.exchange(true)) return;
  const std::string m = fmt::format(
      "sched-geometry={} describes {} bytes but export '{}' is {} bytes ({:.2f}% of it): the "
      "geometry does not fit the export, so predictions use zones and seeks of a different "
      "disk; give the profile of the disk being served",
      config.geometry, d.capacity_bytes(), export_name, size,
      100.0 * static_cast<double>(size) / static_cast<double>(d.capacity_bytes()));
  fprintf(stderr, "nbdkit: disksched: warning: %s\n", m.c_str());
  d.note_warning(m);
}

int disksched_prepare(nbdkit_next* next, void* handle, int /*readonly*/) {
  auto* h = static_cast<Handle*>(handle);
  const std::int64_t size = next->get_size(next);
  if (size == -1) return -1;
  try {
    std::lock_guard lock(device_mu);
    if (!config.geometry.empty()) {
      // The geometry's one device must cover every export.
      Dispatcher* d = device.load();
      if (static_cast<std::uint64_t>(size) > d->capacity_bytes())
        throw std::invalid_argument(fmt::format(
            "sched-geometry={}: the device model holds {} bytes but export '{}' is {} bytes",
            config.geometry, d->capacity_bytes(), h->export_name, size));
      warn_if_geometry_larger(*d, h->export_name, static_cast<std::uint64_t>(size));
      h->device = d;
      return 0;
    }
    ExportDevices& e = export_device.at(h->plugin_export);  // counted in .open
    Dispatcher*& d = e.newest;
    if (d == nullptr || static_cast<std::uint64_t>(size) > d->capacity_bytes()) {
      if (d != nullptr)
        nbdkit_debug("disksched: export '%s' has grown to %lld bytes: a new LBN device for "
                     "the connections from now on",
                     h->export_name.c_str(), static_cast<long long>(size));
      Dispatcher* grown_over = d;
      d = create_device(config.model_for_export(static_cast<std::uint64_t>(size)));
      if (grown_over != nullptr && device_users[grown_over] == 0 && grown_over != device.load())
        free_device(grown_over);
    }
    h->device = d;
    ++device_users[d];
  } catch (const std::exception& e) {
    nbdkit_error("disksched: %s", e.what());
    return -1;
  }
  return 0;
}

int disksched_is_rotational(nbdkit_next* next, void* /*handle*/) {
  // A geometry describes a rotating disk even when the plugin does not say so.
  if (geometry_rotational) return 1;
  return next->is_rotational(next);
}

std::uint32_t to_core_flags(std::uint32_t f) {
  std::uint32_t out = 0;
  if (f & NBDKIT_FLAG_FUA) out |= kFlagFua;
  if (f & NBDKIT_FLAG_MAY_TRIM) out |= kFlagMayTrim;
  if (f & NBDKIT_FLAG_FAST_ZERO) out |= kFlagFastZero;
  if (f & NBDKIT_FLAG_REQ_ONE) out |= kFlagReqOne;
  return out;
}

// The scheduler's stops before a request (SCAN's trip to the edge): one-sector reads
// whose data nobody wants. They only move the arm, so a failed one is logged and the
// request goes ahead; it is the request's own I/O that decides its result.
// An export smaller than the geometry ends before the model's edge: the trip then goes
// to the export's last sector, the nearest the plugin can be asked for.
void travel(nbdkit_next* next, const Dispatcher& d, const Travel& stops) {
  if (stops.empty()) return;
  const std::uint32_t sb = d.sector_bytes();
  const std::int64_t size = next->get_size(next);
  if (size < static_cast<std::int64_t>(sb)) return;
  const std::uint64_t last = static_cast<std::uint64_t>(size) / sb - 1;
  std::vector<char> scratch(sb);
  for (std::uint64_t lba : stops) {
    lba = std::min(lba, last);
    int e = 0;
    if (next->pread(next, scratch.data(), sb, lba * sb, 0, &e) == -1)
      nbdkit_debug("disksched: travel read at block %llu failed (%s); serving the request",
                   static_cast<unsigned long long>(lba), std::strerror(e));
  }
}

// Queues the request, waits for the scheduler, runs `io` (the plugin call) and logs.
template <class Io>
int scheduled(nbdkit_next* next, void* handle, Op op, std::uint32_t count, std::uint64_t offset,
              std::uint32_t flags, int* err, Io&& io) {
  const Inside inside;
  if (graceful_stop && graceful_stop->hurrying()) {
    *err = ESHUTDOWN;  // stopping at once: the client learns now, not when the socket ends
    return -1;
  }
  Dispatcher* d = static_cast<const Handle*>(handle)->device;
  if (d == nullptr) {
    // Unreachable: .prepare opens the device before any I/O.
    *err = EIO;
    nbdkit_error("disksched: request before the device was opened");
    return -1;
  }
  const auto* h = static_cast<const Handle*>(handle);
  const std::uint32_t core_flags = to_core_flags(flags);
  const ClassAssignment cls = h->connection_class.value_or(config.classes.for_request(op, core_flags));
  LiveRecord rec = LiveRecord::arriving(op, offset, count, core_flags, cls);
  try {
    d->enter(rec);
  } catch (const std::exception& e) {
    nbdkit_error("disksched: %s request at %llu+%u: %s", std::string(op_name(op)).c_str(),
                 static_cast<unsigned long long>(offset), count, e.what());
    *err = EINVAL;
    return -1;
  }
  travel(next, *d, rec.core.travel);
  rec.issue_ns = d->now_ns();
  const int r = io();
  d->leave(rec, r == 0);
  rec.error = r == 0 ? 0 : (*err != 0 ? *err : EIO);
  if (metrics) metrics->observe(rec);
  if (disksched_debug_dispatch)
    nbdkit_debug("disksched: %s %llu+%u queue=%u predicted=%.1fus actual=%.1fus r=%d",
                 std::string(op_name(op)).c_str(), static_cast<unsigned long long>(offset), count,
                 rec.core.queue_len, rec.predicted_us(),
                 (rec.complete_ns - rec.dispatch_ns) / 1e3, r);
  if (latency_log) latency_log->push(std::move(rec));
  return r;
}

int disksched_pread(nbdkit_next* next, void* handle, void* buf, std::uint32_t count,
                    std::uint64_t offset, std::uint32_t flags, int* err) {
  return scheduled(next, handle, Op::Read, count, offset, flags, err,
                   [&] { return next->pread(next, buf, count, offset, flags, err); });
}

int disksched_pwrite(nbdkit_next* next, void* handle, const void* buf, std::uint32_t count,
                     std::uint64_t offset, std::uint32_t flags, int* err) {
  return scheduled(next, handle, Op::Write, count, offset, flags, err,
                   [&] { return next->pwrite(next, buf, count, offset, flags, err); });
}

int disksched_trim(nbdkit_next* next, void* handle, std::uint32_t count, std::uint64_t offset,
                   std::uint32_t flags, int* err) {
  return scheduled(next, handle, Op::Trim, count, offset, flags, err,
                   [&] { return next->trim(next, count, offset, flags, err); });
}

// Advertised whatever the plugin says, and refused in disksched_zero when the plugin
// cannot: nbdkit 1.32 passes a client's FAST_ZERO on without checking it against what
// was advertised, and a layer that did not advertise it aborts the server
// (backend_zero's assertion). Refusing at once is what the flag asks for.
int disksched_can_fast_zero(nbdkit_next* /*next*/, void* /*handle*/) { return 1; }

int disksched_zero(nbdkit_next* next, void* handle, std::uint32_t count, std::uint64_t offset,
                   std::uint32_t flags, int* err) {
  if ((flags & NBDKIT_FLAG_FAST_ZERO) && next->can_fast_zero(next) != 1) {
    *err = ENOTSUP;
    return -1;
  }
  return scheduled(next, handle, Op::Zero, count, offset, flags, err,
                   [&] { return next->zero(next, count, offset, flags, err); });
}

// A flush covers every write acknowledged before it arrived (NBD protocol, "Ordering
// of messages and writes"); this filter acknowledges a write only after the plugin
// completed it, so passing the flush straight on covers them all. Queued writes need
// not be waited for.
int disksched_flush(nbdkit_next* next, void* /*handle*/, std::uint32_t flags, int* err) {
  const Inside inside;
  return next->flush(next, flags, err);
}

nbdkit_filter make_filter() {
  nbdkit_filter f = nbdkit_filter();
  f.name = "disksched";
  f.longname = "nbdkit disk scheduling filter";
  f.unload = disksched_unload;
  f.config = disksched_config;
  f.config_complete = disksched_config_complete;
  f.config_help = filter_config_help();
  f.get_ready = disksched_get_ready;
  f.after_fork = disksched_after_fork;
  f.cleanup = disksched_cleanup;
  f.open = disksched_open;
  f.close = disksched_close;
  f.prepare = disksched_prepare;
  f.is_rotational = disksched_is_rotational;
  f.can_fast_zero = disksched_can_fast_zero;
  f.pread = disksched_pread;
  f.pwrite = disksched_pwrite;
  f.flush = disksched_flush;
  f.trim = disksched_trim;
  f.zero = disksched_zero;
  return f;
}

nbdkit_filter filter = make_filter();

}  // namespace

NBDKIT_REGISTER_FILTER(filter)
