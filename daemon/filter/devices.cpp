#include "daemon/filter/devices.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "schedulers/registry.hpp"

namespace disksched {

Devices::Devices(const FilterConfig& config, SchedulerSpec scheduler, Options options)
    : config_(config), options_(std::move(options)), scheduler_(std::move(scheduler)) {}

Devices::~Devices() {
  first_.store(nullptr);
  all_.clear();
}

Dispatcher* Devices::open_device(std::unique_ptr<DeviceModel> model) {
  // A later export's device starts with the scheduler the first one has now.
  const Dispatcher* first = first_.load();
  auto scheduler = first != nullptr ? make_scheduler(first->scheduler(), *model)
                                    : Registry::builtin().make(scheduler_, *model);
  Dispatcher::Options o = config_.dispatcher_options(model->capacity_bytes());
  o.warn = options_.warn;
  auto* d = all_.emplace_back(std::make_unique<Dispatcher>(std::move(model), std::move(scheduler),
                                                           std::move(o), options_.clock))
                .get();
  if (started_) d->start();
  if (first_.load() == nullptr) first_.store(d, std::memory_order_release);
  return d;
}

void Devices::free_device(Dispatcher* d) {
  d->stop();
  users_.erase(d);
  all_.erase(std::find_if(all_.begin(), all_.end(), [d](const auto& p) { return p.get() == d; }));
}

void Devices::open_geometry(std::unique_ptr<DeviceModel> geometry) {
  std::lock_guard lock(mu_);
  open_device(std::move(geometry));
}

void Devices::start() {
  std::lock_guard lock(mu_);
  started_ = true;
  for (const auto& d : all_) d->start();
}

void Devices::stop() {
  std::lock_guard lock(mu_);
  for (const auto& d : all_) d->stop();
}

void Devices::admit(const std::string& plugin_export, const std::string& asked) {
  if (!config_.geometry.empty()) return;
  std::lock_guard lock(mu_);
  auto it = exports_.find(plugin_export);
  if (it == exports_.end()) {
    if (exports_.size() >= config_.max_exports)
      throw std::runtime_error(fmt::format(
          "export '{}' refused: {} export names are in use, the most sched-max-exports={} "
          "allows (each has a device and a thread of its own until its last connection "
          "closes)",
          asked, exports_.size(), config_.max_exports));
    it = exports_.emplace(plugin_export, Export{}).first;
  }
  ++it->second.connections;
}

void Devices::release(const std::string& plugin_export, Dispatcher* used) {
  if (!config_.geometry.empty()) return;
  std::lock_guard lock(mu_);
  auto it = exports_.find(plugin_export);
  if (it == exports_.end()) return;
  Export& e = it->second;
  Dispatcher* first = first_.load();
  if (used != nullptr && --users_[used] == 0 && used != e.newest && used != first)
    free_device(used);  // an export that has grown since: its older device
  if (--e.connections > 0) return;
  if (e.newest == first && first != nullptr) return;  // kept, and its name with it
  if (e.newest != nullptr) free_device(e.newest);
  exports_.erase(it);
}

// A geometry much larger than the export (an 8 TB profile over a 1.3 GB disk) is most
// likely the wrong profile: its zones, and so every prediction, belong to another disk.
// Said once, and kept for `ctl show`.
void Devices::warn_if_geometry_larger(Dispatcher& d, const std::string& asked,
                                      std::uint64_t size) {
  if (size >= d.capacity_bytes() || warned_larger_) return;
  warned_larger_ = true;
  const std::string m = fmt::format(
      "sched-geometry={} describes {} bytes but export '{}' is {} bytes ({:.2f}% of it): the "
      "geometry does not fit the export, so predictions use zones and seeks of a different "
      "disk; give the profile of the disk being served",
      config_.geometry, d.capacity_bytes(), asked, size,
      100.0 * static_cast<double>(size) / static_cast<double>(d.capacity_bytes()));
  if (options_.warn) options_.warn(m);
  d.note_warning(m);
}

Dispatcher* Devices::prepare(const std::string& plugin_export, const std::string& asked,
                             std::uint64_t size) {
  std::lock_guard lock(mu_);
  if (!config_.geometry.empty()) {
    // The geometry's one device must cover every export.
    Dispatcher* d = first_.load();
    if (size > d->capacity_bytes())
      throw std::invalid_argument(fmt::format(
          "sched-geometry={}: the device model holds {} bytes but export '{}' is {} bytes",
          config_.geometry, d->capacity_bytes(), asked, size));
    warn_if_geometry_larger(*d, asked, size);
    return d;
  }
  Dispatcher*& d = exports_.at(plugin_export).newest;  // counted in admit()
  if (d == nullptr || size > d->capacity_bytes()) {
    if (d != nullptr && options_.debug)
      options_.debug(fmt::format("export '{}' has grown to {} bytes: a new LBN device for the "
                                 "connections from now on",
                                 asked, size));
    Dispatcher* grown_over = d;
    d = open_device(config_.model_for_export(size));
    if (grown_over != nullptr && users_[grown_over] == 0 && grown_over != first_.load())
      free_device(grown_over);
  }
  ++users_[d];
  return d;
}

void Devices::follow_first_scheduler() {
  Dispatcher* first = first_.load();
  if (first == nullptr || all_.size() < 2) return;
  const std::string spec = first->scheduler();
  for (const auto& d : all_) {
    if (d.get() == first || d->scheduler() == spec) continue;
    try {
      d->switch_scheduler(spec);
    } catch (const std::exception& e) {
      if (options_.error)
        options_.error("switching another export's device: " + std::string(e.what()));
    }
  }
}

ControlReply Devices::command(const std::string& line, ControlTarget target) {
  std::lock_guard lock(mu_);
  target.dispatcher = first_.load();
  target.configured_scheduler = &scheduler_;
  ControlReply reply = run_control_command(line, target);
  follow_first_scheduler();
  return reply;
}

}  // namespace disksched
