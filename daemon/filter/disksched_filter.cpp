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
#include <memory>
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
#include "daemon/filter/devices.hpp"
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

// The devices (devices.hpp); created in .config_complete, deleted in .unload.
Devices* devices = nullptr;
std::unique_ptr<DeviceModel> geometry_model;  // validated at start-up, handed to the device
bool geometry_rotational = false;

// No lock: the first dispatcher is only deleted in .unload, after the writers stopped.
std::string metrics_text() {
  std::optional<Dispatcher::Snapshot> snap;
  if (const Dispatcher* d = devices->first()) snap = d->snapshot();
  std::optional<LatencyLogWriter::Status> log;
  if (latency_log) log = latency_log->status();
  return metrics->render(snap ? &*snap : nullptr, log ? &*log : nullptr);
}

// The command runs under the devices' lock; its file-system work (`save`, `reopen`) and
// the reply's rendering after the lock is let go.
std::string control_reply(const std::string& line) {
  ControlTarget target{nullptr, nullptr, config.classes.describe(), config.save_dir, latency_log,
                       metrics ? metrics_text : nullptr};
  return devices->command(line, std::move(target)).finish();
}

Devices::Options devices_options() {
  Devices::Options o;
  o.clock = monotonic_ns;
  o.warn = [](const std::string& m) {
    fprintf(stderr, "nbdkit: disksched: warning: %s\n", m.c_str());
  };
  o.error = [](const std::string& m) { nbdkit_error("disksched: %s", m.c_str()); };
  o.debug = [](const std::string& m) { nbdkit_debug("disksched: %s", m.c_str()); };
  return o;
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
    FilterConfig::Checked checked = config.check();
    geometry_model = std::move(checked.geometry);
    geometry_rotational = geometry_model && geometry_model->rotational();
    devices = new Devices(config, std::move(checked.scheduler), devices_options());
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
    if (geometry_model) devices->open_geometry(std::move(geometry_model));
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
  devices->start();
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
  if (devices) devices->stop();
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
  delete devices;
  devices = nullptr;
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
  bool counted = false;           // by Devices::admit
  ~Handle() {
    if (counted) devices->release(plugin_export, device);
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
  try {
    devices->admit(pass, h->export_name);
  } catch (const std::exception& e) {
    nbdkit_error("disksched: %s", e.what());
    return nullptr;
  }
  h->counted = true;
  if (next(nxdata, readonly, pass) == -1) return nullptr;
  return h.release();
}

void disksched_close(void* handle) { delete static_cast<Handle*>(handle); }

int disksched_prepare(nbdkit_next* next, void* handle, int /*readonly*/) {
  auto* h = static_cast<Handle*>(handle);
  const std::int64_t size = next->get_size(next);
  if (size == -1) return -1;
  try {
    h->device =
        devices->prepare(h->plugin_export, h->export_name, static_cast<std::uint64_t>(size));
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
