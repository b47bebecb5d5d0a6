// qos: latency targets over a drive that queues (ARCHITECTURE.md, "Latency targets over
// a drive that queues"; the admission rules are schedulers/dispatch/qos_admission.hpp).
//
// Two inner orders, one per side of GP's class line (sec. 3, 6.1): the foreground
// (time-critical and time-limited requests: a process waits for them) and the
// background (time-noncritical). The dispatch core asks for a request whenever its own
// depth leaves room; this scheduler answers only while the admission controller allows
// one more at the drive, so the depth the drive holds is the controller's, and says
// from which side. The core's depth (the filter's sched-depth, the simulator's --depth)
// stays the outer bound.
#include <limits>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

#include "schedulers/classes/algorithms.hpp"
#include "schedulers/dispatch/qos_admission.hpp"
#include "schedulers/seek/ordering.hpp"

namespace disksched::classes {
namespace {

class Qos final : public Scheduler {
 public:
  Qos(std::string spec, QosConfig c, std::unique_ptr<Scheduler> fg, std::unique_ptr<Scheduler> bg)
      : spec_(std::move(spec)), admission_(c), fg_(std::move(fg)), bg_(std::move(bg)) {}

  std::string spec() const override { return spec_; }

  void add(const Request& r) override {
    if (QosAdmission::foreground(r.cls)) {
      fg_->add(r);
    } else {
      bg_->add(r);
      bg_waiting_.emplace(arrival_key(r), r);
    }
  }

  bool remove(std::uint64_t id) override {
    if (fg_->remove(id)) return true;
    if (!bg_->remove(id)) return false;
    forget_bg(id);
    return true;
  }

  bool relocate(const Request& r) override {
    if (QosAdmission::foreground(r.cls)) return fg_->relocate(r);
    if (!bg_->relocate(r)) return false;
    if (auto it = bg_waiting_.find(arrival_key(r)); it != bg_waiting_.end()) it->second = r;
    return true;
  }

  std::optional<Request> pick(Millis now, const HeadState& head) override {
    const bool bg_waiting = !bg_waiting_.empty();
    const Millis oldest = bg_waiting ? bg_waiting_.begin()->first.arrival : now;
    std::optional<Request> r;
    switch (admission_.next(now, fg_->size() > 0, bg_waiting, oldest)) {
      case QosAdmission::Grant::None:
        return std::nullopt;
      case QosAdmission::Grant::Foreground:
        r = fg_->pick(now, head);
        break;
      case QosAdmission::Grant::Background:
        r = pick_background(now, head);
        break;
    }
    if (!r) return r;
    admission_.admitted(r->cls, r->arrival_ms, now);
    at_drive_.emplace(r->id, AtDrive{r->cls, now});
    return r;
  }

  std::size_t size() const override { return fg_->size() + bg_->size(); }

  std::vector<Request> drain() override {
    std::vector<Request> out = fg_->drain();
    for (Request& r : bg_->drain()) out.push_back(std::move(r));
    bg_waiting_.clear();
    return out;
  }

  void completed(const Request& r, Millis now) override {
    auto it = at_drive_.find(r.id);
    // One that was at the drive before a switch (adopted, or not even told of) went there
    // under another depth: it is counted, not judged.
    const Millis dispatched = it == at_drive_.end() ? kBeforeSwitch : it->second.dispatched;
    if (it != at_drive_.end()) at_drive_.erase(it);
    admission_.completed(r.cls, r.arrival_ms, dispatched, now, r.limit_ms);
    (QosAdmission::foreground(r.cls) ? fg_ : bg_)->completed(r, now);
  }

  void at_device(const Request& r) override {
    admission_.adopt(r.cls);
    at_drive_.emplace(r.id, AtDrive{r.cls, kBeforeSwitch});
  }

  bool uses_locations() const override { return fg_->uses_locations() || bg_->uses_locations(); }
  bool uses_head() const override { return fg_->uses_head() || bg_->uses_head(); }

  std::vector<std::pair<std::string, double>> counters() const override {
    const QosStats& s = admission_.stats();
    std::vector<std::pair<std::string, double>> out = {
        {"qos_depth", s.depth},
        {"qos_min_depth_seen", s.min_depth_seen},
        {"qos_shrinks", static_cast<double>(s.shrinks)},
        {"qos_grows", static_cast<double>(s.grows)},
    };
    for (IoClass c : {IoClass::TimeCritical, IoClass::TimeLimited, IoClass::TimeNoncritical}) {
      const QosClassStats& k = s.cls[static_cast<std::size_t>(c)];
      if (k.admitted == 0) continue;
      const std::string n(class_name(c));
      out.emplace_back("qos_" + n + "_admitted", static_cast<double>(k.admitted));
      out.emplace_back("qos_" + n + "_max_wait_ms", k.max_wait_ms);
      out.emplace_back("qos_" + n + "_max_response_ms", k.max_response_ms);
      if (QosAdmission::foreground(c))
        out.emplace_back("qos_" + n + "_over_target", static_cast<double>(k.over_target));
      else
        out.emplace_back("qos_" + n + "_overdue", static_cast<double>(k.overdue));
    }
    return out;
  }

 private:
  static constexpr Millis kBeforeSwitch = -std::numeric_limits<Millis>::infinity();

  struct AtDrive {
    IoClass cls;
    Millis dispatched;
  };

  // The background's own order, except that one waiting past its bound goes first.
  std::optional<Request> pick_background(Millis now, const HeadState& head) {
    const auto oldest = bg_waiting_.begin();
    const QosConfig& c = admission_.config();
    if (c.control && c.bg_wait_ms > 0 && now - oldest->first.arrival >= c.bg_wait_ms) {
      Request r = oldest->second;
      bg_->remove(r.id);
      bg_waiting_.erase(oldest);
      return r;
    }
    auto r = bg_->pick(now, head);
    if (r) bg_waiting_.erase(arrival_key(*r));
    return r;
  }

  void forget_bg(std::uint64_t id) {
    for (auto it = bg_waiting_.begin(); it != bg_waiting_.end(); ++it)
      if (it->first.id == id) {
        bg_waiting_.erase(it);
        return;
      }
  }

  std::string spec_;
  QosAdmission admission_;
  std::unique_ptr<Scheduler> fg_, bg_;
  std::map<ArrivalKey, Request> bg_waiting_;  // the background's waiting requests, oldest first
  std::unordered_map<std::uint64_t, AtDrive> at_drive_;
};

const std::vector<std::string> kOrders = {"fcfs", "sstf", "look", "clook", "satf", "asatf"};

std::vector<ParamSpec> qos_params() {
  ParamSpec control = choice_param(
      "control", "off: no depth control and no bound, foreground first at max-depth (an ablation)",
      {"on", "off"}, "on");
  control.hidden = true;
  return {
      number_param("target", "ms", "time-critical requests' latency target (at the quantile)", 50,
                   0.001, 1e9),
      number_param("limited-target", "ms",
                   "time-limited requests' target (0: each request's own time limit, e.g. "
                   "sched-classes' limited:100ms, else target)",
                   0, 0, 1e9),
      number_param("quantile", "fraction", "the response-time quantile kept under the target", 0.99,
                   0.5, 0.9999),
      count_param("window", "completions", "foreground completions judged together", 100, 1, 1e6),
      count_param("min-depth", "requests", "the fewest the drive is allowed to hold", 1, 1, 1024),
      count_param("max-depth", "requests", "the most the drive is allowed to hold (its queue)", 32, 1,
                  1024),
      number_param("bg-share", "fraction",
                   "share of the dispatches background takes while foreground requests wait (0: "
                   "only the room the foreground leaves)",
                   0, 0, 1),
      number_param("bg-wait", "ms",
                   "a background request waiting this long goes next (0: no bound, strict priority)",
                   1000, 0, 1e9),
      count_param("bg-depth", "requests",
                  "the most background requests at the drive at once (0: up to the depth)", 1, 0,
                  1024),
      choice_param("order", "foreground order at the host", kOrders, "fcfs"),
      choice_param("bg-order", "background order at the host", kOrders, "fcfs"),
      control,
  };
}

}  // namespace

AlgorithmInfo qos_algorithm() {
  return {
      .name = "qos",
      .aliases = {"latency"},
      .description = "latency targets over a drive that queues: the drive's depth adapted to the "
                     "foreground's quantile, background in the room it leaves, with a bounded wait",
      .source = "GP sec. 3, 6 (classes); Linux iocost vrate, ZFS vdev min/max active",
      .params = qos_params(),
      .check = [](const Params& p, const DeviceModel& m) {
        const auto min_depth = static_cast<unsigned>(p.number("min-depth"));
        const auto max_depth = static_cast<unsigned>(p.number("max-depth"));
        if (min_depth > max_depth)
          throw SpecError(
              fmt::format("qos: min-depth={} is above max-depth={}", min_depth, max_depth));
        for (const char* key : {"order", "bg-order"}) {
          try {
            Registry::builtin().check(p.choice(key), m);
          } catch (const SpecError& e) {
            throw SpecError(fmt::format("qos: {}={}: {}", key, p.choice(key), e.what()));
          }
        }
      },
      .factory = [](const Params& p, const DeviceModel& m) -> std::unique_ptr<Scheduler> {
        QosConfig c;
        c.target_ms = p.number("target");
        c.limited_target_ms = p.number("limited-target");
        c.quantile = p.number("quantile");
        c.window = static_cast<std::size_t>(p.number("window"));
        c.min_depth = static_cast<unsigned>(p.number("min-depth"));
        c.max_depth = static_cast<unsigned>(p.number("max-depth"));
        c.bg_share = p.number("bg-share");
        c.bg_wait_ms = p.number("bg-wait");
        c.bg_depth = static_cast<unsigned>(p.number("bg-depth"));
        c.control = p.choice("control") == "on";
        return std::make_unique<Qos>(format_spec("qos", qos_params(), p), c,
                                     make_scheduler(p.choice("order"), m),
                                     make_scheduler(p.choice("bg-order"), m));
      },
  };
}

}  // namespace disksched::classes
