// Class-aware priority scheduling (Ganger & Patt sec. 6).
//
// GP divide requests by how their process waits for them (sec. 3) and schedule the
// classes in separate queues (sec. 6.1). How each class maps to a queue here:
//   TimeCritical    -> high queue (the process waits at once)
//   TimeLimited     -> high queue (GP: "Time-critical and time-limited requests are
//                      placed in the high-priority queue"; the time limit itself is not
//                      used for ordering, as in GP)
//   TimeNoncritical -> low queue, and with a timeout it moves up as it ages (below).
// The high queue is served first, by shortest seek with requests on one cylinder in
// ascending block order (GP) or, beyond GP, by shortest positioning time (`high=satf`).
// The low queue is an elevator (GP's "modified SCAN, also known as LOOK"; `low=clook`
// for the one-way form) that runs only when the queues above it are empty:
//   variant=1 (Priority #1): the low queue's sweep keeps its own position and direction
//     across interruptions by high-priority requests, returning "to its previous place";
//   variant=2 (Priority #2): after an interruption the sweep restarts at the low request
//     nearest the head and continues in its direction from there.
// Timeouts (sec. 6.3), in ms: a low request that has waited `timeout` is timed out.
// GP's schemes had none ("an unlimited timeout value corresponds to the original
// priority schemes"), which starves a noncritical request for as long as critical ones
// keep coming (GP: "starved for extended periods of time"); the default is 500 ms,
// and timeout=0 gives GP's original. GP move it to the high queue, where shortest seek decides (`expired=mix`);
// under a saturated high queue that gives no bound. `expired=first` sends timed-out
// requests ahead of the high queue, oldest first (like Linux's deadline expiry): that
// bounds a low request's wait, but a flood of noncritical writes that keeps timing out
// then starves the critical reads behind it. So by default (`expired=alternate`)
// timed-out requests, oldest first, take turns with the high queue, one each: a
// critical request waits for at most one timed-out request per pick, and a timed-out
// one for at most one critical request per pick. queues=3 is GP's 3Q scheme: a low request that has
// waited half the timeout moves to a middle queue served after the high queue and
// before the low one, in the high queue's order.
#include <map>
#include <set>

#include <fmt/format.h>

#include "schedulers/classes/algorithms.hpp"
#include "schedulers/seek/ordering.hpp"

namespace disksched::classes {
namespace {

// Requests of one queue, by cylinder (then block) and by arrival.
struct ClassQueue {
  PositionIndex<std::int64_t> by_cyl;
  std::set<ArrivalKey> by_arrival;
  void insert(const Request& r) {
    by_cyl.insert(r.loc.cylinder, r.loc.lba, r);
    by_arrival.insert(arrival_key(r));
  }
  void erase(const Request& r) {
    by_cyl.erase(r.loc.cylinder, r.loc.lba, r);
    by_arrival.erase(arrival_key(r));
  }
  bool empty() const { return by_arrival.empty(); }
};

// A noncritical request's longest wait before it goes ahead, by default: finite, so
// nothing starves, and well under the 120 s after which Linux calls a blocked task hung.
constexpr Millis kDefaultTimeoutMs = 500;

// Where timed-out noncritical requests go (the `expired` parameter).
enum class Expired { Alternate, First, Mix };

std::string_view expired_name(Expired e) {
  return e == Expired::First ? "first" : e == Expired::Mix ? "mix" : "alternate";
}

class Priority final : public Scheduler {
 public:
  struct Config {
    int variant = 1;
    Millis timeout_ms = kDefaultTimeoutMs;
    int queues = 2;
    bool high_satf = false;
    bool low_circular = false;
    Expired expired = Expired::Alternate;
  };

  Priority(Config c, const DeviceModel& model) : c_(c), model_(model) {}

  std::string spec() const override {
    return fmt::format("priority:variant={},timeout={}ms,queues={},high={},low={},expired={}",
                       c_.variant, c_.timeout_ms, c_.queues, c_.high_satf ? "satf" : "sstf",
                       c_.low_circular ? "clook" : "look", expired_name(c_.expired));
  }

  void add(const Request& r) override {
    const Request& held = held_.insert(r);
    place(held, r.cls == IoClass::TimeNoncritical ? Where::Low : Where::High);
  }

  bool remove(std::uint64_t id) override {
    const Request* r = held_.find(id);
    if (r == nullptr) return false;
    unplace(*r);
    held_.take(id);
    return true;
  }

  std::optional<Request> pick(Millis now, const HeadState& head) override {
    if (held_.empty()) return std::nullopt;
    promote(now);
    std::uint64_t id;
    bool from_low = false;
    const bool expired_turn =
        c_.expired == Expired::First || high_.empty() || !last_was_expired_;
    last_was_expired_ = false;
    if (!expired_.empty() && expired_turn) {
      id = expired_.begin()->id;
      last_was_expired_ = true;
    } else if (!high_.empty()) {
      id = pick_urgent(high_, head);
    } else if (!mid_.empty()) {
      id = pick_urgent(mid_, head);
    } else {
      id = pick_low(head);
      from_low = true;
    }
    Request r = held_.take(id);
    unplace(r);
    last_was_low_ = from_low;
    if (from_low) low_pos_ = r.loc.cylinder;
    return r;
  }

  std::size_t size() const override { return held_.size(); }

  std::vector<Request> drain() override {
    std::vector<Request> out = held_.take_all();
    where_.clear();
    high_ = {};
    mid_ = {};
    low_ = {};
    expired_.clear();
    last_was_expired_ = false;
    return out;
  }

 private:
  enum class Where { High, Mid, Low, Expired };

  ClassQueue& queue(Where w) { return w == Where::High ? high_ : w == Where::Mid ? mid_ : low_; }

  void place(const Request& r, Where w) {
    where_[r.id] = w;
    if (w == Where::Expired)
      expired_.insert(arrival_key(r));
    else
      queue(w).insert(r);
  }
  void unplace(const Request& r) {
    auto it = where_.find(r.id);
    if (it->second == Where::Expired)
      expired_.erase(arrival_key(r));
    else
      queue(it->second).erase(r);
    where_.erase(it);
  }
  void move(std::uint64_t id, Where to) {
    const Request& r = *held_.find(id);
    unplace(r);
    place(r, to);
  }

  // Moves the low (and middle) requests that have waited long enough, oldest first.
  void promote(Millis now) {
    if (c_.timeout_ms <= 0) return;
    const Where timed_out = c_.expired == Expired::Mix ? Where::High : Where::Expired;
    auto waited = [now](const ArrivalKey& k) { return now - k.arrival; };
    while (!mid_.empty() && waited(*mid_.by_arrival.begin()) >= c_.timeout_ms)
      move(mid_.by_arrival.begin()->id, timed_out);
    while (!low_.empty() && waited(*low_.by_arrival.begin()) >= c_.timeout_ms)
      move(low_.by_arrival.begin()->id, timed_out);
    if (c_.queues == 3) {
      while (!low_.empty() && waited(*low_.by_arrival.begin()) >= c_.timeout_ms / 2)
        move(low_.by_arrival.begin()->id, Where::Mid);
    }
  }

  std::uint64_t pick_urgent(const ClassQueue& q, const HeadState& head) const {
    if (!c_.high_satf) return q.by_cyl.nearest(head.cylinder)->key.id;
    return shortest_positioning(model_, head, held_, q.by_arrival, [](const ArrivalKey&) {
             return false;
           }).value_or(0);
  }

  std::uint64_t pick_low(const HeadState& head) {
    const auto& idx = low_.by_cyl;
    std::int64_t pos = low_pos_.value_or(head.cylinder);
    if (c_.variant == 2 && !last_was_low_) {
      // Priority #2: restart at the nearest pending request, keep the direction.
      return idx.nearest(head.cylinder)->key.id;
    }
    return (c_.low_circular ? idx.circular_look(pos) : idx.look(pos, up_))->key.id;
  }

  Config c_;
  const DeviceModel& model_;
  HeldRequests held_;
  std::unordered_map<std::uint64_t, Where> where_;
  ClassQueue high_, mid_, low_;
  std::set<ArrivalKey> expired_;
  // The low queue's sweep: its position (the cylinder of the last low request served)
  // and direction, kept across interruptions.
  std::optional<std::int64_t> low_pos_;
  bool up_ = true;
  bool last_was_low_ = false;
  bool last_was_expired_ = false;  // expired=alternate: whose turn it is
};

ParamSpec choice(std::string name, std::string description, std::vector<std::string> choices) {
  ParamSpec p;
  p.name = std::move(name);
  p.description = std::move(description);
  p.default_choice = choices.front();
  p.choices = std::move(choices);
  return p;
}

}  // namespace

AlgorithmInfo priority_algorithm() {
  return {
      .name = "priority",
      .aliases = {"class", "gp"},
      .description =
          "class-aware: critical and time-limited requests first by shortest seek, the rest by an "
          "elevator, with timeouts",
      .source = "GP sec. 6.1 (Priority #1, #2), 6.3 (timeouts, 3Q)",
      .params = {
          choice("variant", "1 = low sweep resumes where it was interrupted, 2 = restarts at the nearest request",
                 {"1", "2"}),
          number_param("timeout", "ms",
                       "a noncritical request waiting this long is timed out and goes ahead (0 = never: GP's "
                       "original, which starves noncritical requests while critical ones keep coming)",
                       kDefaultTimeoutMs, 0, 1e9),
          choice("queues", "3 = GP's 3Q: a middle queue for requests past half their timeout",
                 {"2", "3"}),
          choice("high", "order of the high (and middle) queue: shortest seek or shortest positioning time",
                 {"sstf", "satf"}),
          choice("low", "order of the low queue: elevator (LOOK) or one-way elevator (C-LOOK)",
                 {"look", "clook"}),
          choice("expired", "timed-out requests: alternate = oldest first, taking turns with the high "
                 "queue; first = ahead of the high queue (a flood of them starves critical requests); "
                 "mix = into the high queue (GP; under a busy high queue they starve)",
                 {"alternate", "first", "mix"}),
      },
      .check = [](const Params& p, const DeviceModel&) {
        if (p.choice("queues") == "3" && p.number("timeout") <= 0)
          throw SpecError("priority: queues=3 needs a timeout > 0 (the middle queue holds requests "
                          "past half their timeout)");
      },
      .factory = [](const Params& p, const DeviceModel& m) -> std::unique_ptr<Scheduler> {
        Priority::Config c;
        c.variant = p.choice("variant") == "2" ? 2 : 1;
        c.timeout_ms = p.number("timeout");
        c.queues = p.choice("queues") == "3" ? 3 : 2;
        c.high_satf = p.choice("high") == "satf";
        c.low_circular = p.choice("low") == "clook";
        const std::string expired = p.choice("expired");
        c.expired = expired == "first" ? Expired::First
                    : expired == "mix" ? Expired::Mix
                                       : Expired::Alternate;
        return std::make_unique<Priority>(c, m);
      },
  };
}

}  // namespace disksched::classes
