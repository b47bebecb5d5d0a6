// The filter's live devices: their dispatchers, which export uses which, the scheduler
// they run, and one lock over all of it. Free of nbdkit: the filter's glue calls it from
// its callbacks (.get_ready, .after_fork, .open, .prepare, .close, the control socket).
//
// With a geometry there is one device, opened at start-up, that every export shares.
// Without one the LBN model needs a size, known only when a connection asks for an
// export: each export gets a device of its own size, and one that has grown since (a
// longer file) a new one for the connections to come. A client chooses the export name,
// and many plugins take any name, so the names in use are bounded (sched-max-exports=)
// and a device is freed with its last connection.
//
// The first device opened is the one the control socket and the metrics show, and is
// kept until the filter unloads. A scheduler switch applies to all: the others follow
// the first one's scheduler, and a device opened later starts with it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "daemon/filter/control_commands.hpp"
#include "daemon/filter/dispatcher.hpp"
#include "daemon/filter/filter_config.hpp"
#include "predictor/device_model.hpp"

namespace disksched {

class Devices {
 public:
  using Say = std::function<void(const std::string&)>;
  struct Options {
    Dispatcher::Clock clock;  // for the dispatchers (CLOCK_MONOTONIC ns in the filter)
    Say warn;                 // a device's warnings (Dispatcher::Options::warn)
    Say error;                // what failed without failing a request
    Say debug;                // what nbdkit -v shows
  };

  // `config` must outlive this; `scheduler` (FilterConfig::check's) is the one the first
  // device starts with.
  Devices(const FilterConfig& config, SchedulerSpec scheduler, Options options);
  ~Devices();  // stops and frees every device
  Devices(const Devices&) = delete;
  Devices& operator=(const Devices&) = delete;

  // Opens the geometry's one device (.get_ready).
  void open_geometry(std::unique_ptr<DeviceModel> geometry);
  // Starts (.after_fork) or stops (.cleanup) every device's calibration thread; devices
  // opened after start() start at once.
  void start();
  void stop();

  // A connection asks for `plugin_export` (`asked`: the name the client gave). Without a
  // geometry it is counted, or refused with std::runtime_error when
  // sched-max-exports= names are in use already.
  void admit(const std::string& plugin_export, const std::string& asked);
  // The device for an admitted connection to an export of `size` bytes (.prepare): the
  // geometry's, or the export's own, opened now when it has none or it has grown. The
  // connection uses it until release(). Throws std::invalid_argument when the geometry
  // holds less than the export.
  Dispatcher* prepare(const std::string& plugin_export, const std::string& asked,
                      std::uint64_t size);
  // Undoes admit() for a closing connection that used device `used` (or none, when it
  // closed before .prepare): a device nobody uses any more is freed.
  void release(const std::string& plugin_export, Dispatcher* used);

  // Runs a control command on the first device (or the scheduler to start with, before
  // one opened) under the lock, then has the others follow its scheduler. `target`
  // gives the rest the commands read; the caller finishes the reply after.
  ControlReply command(const std::string& line, ControlTarget target);

  // The first device, or null before one opened. Read without the lock: it is only
  // freed when this is destroyed.
  const Dispatcher* first() const { return first_.load(std::memory_order_acquire); }

 private:
  struct Export {
    Dispatcher* newest = nullptr;  // for the connections to come
    unsigned connections = 0;      // open (from admit to release), on any of its devices
  };

  Dispatcher* open_device(std::unique_ptr<DeviceModel> model);  // mu_ held
  void free_device(Dispatcher* d);                              // mu_ held; never the first
  void follow_first_scheduler();                                // mu_ held
  void warn_if_geometry_larger(Dispatcher& d, const std::string& asked, std::uint64_t size);

  const FilterConfig& config_;
  Options options_;
  std::mutex mu_;
  std::atomic<Dispatcher*> first_{nullptr};
  std::vector<std::unique_ptr<Dispatcher>> all_;
  // Without a geometry: the plugin's export -> its devices, and each device's prepared
  // connections.
  std::map<std::string, Export> exports_;
  std::map<const Dispatcher*, unsigned> users_;
  SchedulerSpec scheduler_;  // what the first device starts with: sched=, or a switch before
  bool started_ = false;
  bool warned_larger_ = false;
};

}  // namespace disksched
