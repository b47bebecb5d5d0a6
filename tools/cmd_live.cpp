// `disksched replay`, `disksched ctl`, `disksched log`: the live side of the toolkit.
//
// replay is an open-loop load generator over libnbd: it issues a workload spec of the
// simulator (the same spec, device extent and seed give the same arrivals as
// `disksched sim`) at its exact arrival times, with as many requests in flight as the
// arrivals make, and reports latencies with the keys of `disksched log summary --json`.
// A closed workload with one client (closed:n=1,think=T) is a job whose progress waits
// on its reads: each read is issued only after the previous one completed and the job
// computed for T; its elapsed time is reported. SIGINT or SIGTERM (or --time-limit) stops
// issuing, waits for the requests in flight and reports (so a background load can be
// stopped without dropping a connection with requests in flight).
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <climits>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <queue>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <libnbd.h>
#include <nlohmann/json.hpp>

#include "bench/sim/workload.hpp"
#include "daemon/filter/control.hpp"
#include "daemon/filter/latency_log.hpp"
#include "daemon/filter/log_summary.hpp"
#include "common/clock.hpp"
#include "common/units.hpp"
#include "tools/commands.hpp"
#include "tools/instance.hpp"

namespace disksched::cli {
namespace {

// ---------------------------------------------------------------------------------
// replay

struct ReplayOptions {
  std::string uri;
  std::string workload = "uniform";
  double rate = 0.0;
  std::uint64_t requests = 1000;
  std::uint64_t warmup = 0;
  std::uint64_t seed = 1;
  std::size_t rep = 0;
  double timescale = 1.0;
  std::size_t connections = 1;
  std::size_t max_queue = 5000;
  std::string time_limit;  // a duration of model time; empty: none
  std::string log;
  bool json = false;
  bool quiet = false;
};

// Set by SIGINT/SIGTERM. The signals are blocked except inside ppoll(), so one can only
// arrive where the loops look at this next.
volatile std::sig_atomic_t stop_requested = 0;
void on_stop_signal(int) { stop_requested = 1; }

[[noreturn]] void nbd_fail(const std::string& what) {
  throw std::runtime_error(fmt::format("{}: {}", what, nbd_get_error()));
}

class Replayer {
 public:
  explicit Replayer(const ReplayOptions& o) : o_(o) {
    for (std::size_t i = 0; i < o.connections; ++i) {
      nbd_handle* h = nbd_create();
      if (h == nullptr) nbd_fail("nbd_create");
      handles_.push_back(h);
      if (nbd_connect_uri(h, o.uri.c_str()) == -1) nbd_fail(fmt::format("cannot connect to '{}'", o.uri));
    }
    const std::int64_t size = nbd_get_size(handles_[0]);
    if (size < 0) nbd_fail("nbd_get_size");
    size_ = static_cast<std::uint64_t>(size);
    read_only_ = nbd_is_read_only(handles_[0]) == 1;
    can_flush_ = nbd_can_flush(handles_[0]) == 1;
    can_trim_ = nbd_can_trim(handles_[0]) == 1;
  }
  ~Replayer() {
    for (auto* h : handles_) {
      nbd_shutdown(h, 0);
      nbd_close(h);
    }
  }

  std::uint64_t size() const { return size_; }
  // Whether SIGINT/SIGTERM or the time limit ended the run before the workload did.
  bool stopped() const { return stopped_; }
  // From the start of the run to the last completion, real nanoseconds.
  std::int64_t elapsed_ns() const { return last_complete_ns_ > 0 ? last_complete_ns_ - start_ns_ : 0; }

  // Runs the workload; fills rows (one per request, warm-up excluded) and returns
  // whether it ended saturated (more than max_queue outstanding).
  bool run(const Workload& w, std::vector<LogRow>& rows, std::vector<LiveRecord>& records);

  double late_p99_us() const {
    if (late_us_.empty()) return 0.0;
    std::vector<double> v = late_us_;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<std::size_t>(std::ceil(0.99 * v.size())) - 1)];
  }

 private:
  struct Pending {
    Replayer* self = nullptr;
    std::uint64_t index = 0;       // request number from 0 (warm-up first)
    Op op = Op::Read;
    std::uint64_t offset = 0;
    std::uint32_t length = 0;
    std::int64_t arrive_ns = 0;    // when it was due
    std::int64_t issue_ns = 0;
    std::size_t in_flight_at_issue = 0;
    std::size_t client = 0;        // closed workloads
    std::vector<char> buf;         // read data
    std::int64_t complete_ns = 0;
    int error = 0;
  };

  static int on_complete(void* user_data, int* error);
  void issue(std::unique_ptr<Pending> p);
  // Waits for socket activity until `until_ns` (or forever when < 0).
  void wait(std::int64_t until_ns);
  // Stop issuing: a signal came, or the time limit passed.
  bool stopping() const {
    return stop_requested != 0 || (deadline_ns_ >= 0 && monotonic_ns() >= deadline_ns_);
  }
  // Wake for `until_ns` (< 0: no wake-up of its own) or the time limit, whichever is sooner.
  std::int64_t or_deadline(std::int64_t until_ns) const {
    if (deadline_ns_ < 0) return until_ns;
    return until_ns < 0 ? deadline_ns_ : std::min(until_ns, deadline_ns_);
  }
  std::int64_t real_ns(Millis model_ms) const {
    return start_ns_ + static_cast<std::int64_t>(std::llround(model_ms * o_.timescale * 1e6));
  }
  void progress(bool force = false);

  ReplayOptions o_;
  std::vector<nbd_handle*> handles_;
  std::uint64_t size_ = 0;
  bool read_only_ = false, can_flush_ = false, can_trim_ = false;
  std::int64_t start_ns_ = 0;
  std::int64_t last_complete_ns_ = 0;
  std::int64_t deadline_ns_ = -1;  // the time limit, real; < 0: none
  bool stopped_ = false;
  sigset_t wait_mask_{};  // the signal mask inside ppoll(): SIGINT/SIGTERM let through
  std::size_t in_flight_ = 0;
  std::size_t next_handle_ = 0;
  std::uint64_t issued_ = 0, completed_ = 0, failed_ = 0;
  std::uint64_t measured_left_ = 0;  // measured requests issued, not completed
  std::int64_t last_progress_ns_ = 0;
  std::vector<double> late_us_;
  std::deque<std::unique_ptr<Pending>> done_;  // completed, not yet collected
  std::vector<char> write_data_;
};

int Replayer::on_complete(void* user_data, int* error) {
  // libnbd hands the request back: keep it until collect() takes its numbers.
  std::unique_ptr<Pending> p(static_cast<Pending*>(user_data));
  Replayer* self = p->self;
  p->complete_ns = monotonic_ns();
  p->error = *error;
  self->last_complete_ns_ = std::max(self->last_complete_ns_, p->complete_ns);
  p->buf = {};
  --self->in_flight_;
  ++self->completed_;
  if (*error != 0) ++self->failed_;
  self->done_.push_back(std::move(p));
  return 1;
}

void Replayer::issue(std::unique_ptr<Pending> p) {
  if (p->op != Op::Read && read_only_)
    throw std::runtime_error(fmt::format("the export is read-only but the workload has a {}",
                                         op_name(p->op)));
  if (p->op == Op::Trim && !can_trim_)
    throw std::runtime_error("the export cannot trim but the workload has a trim");
  if ((p->op == Op::Flush || p->op == Op::Cache) && !can_flush_)
    throw std::runtime_error("the export cannot flush but the workload has a flush");
  nbd_handle* h = handles_[next_handle_++ % handles_.size()];
  p->self = this;
  p->issue_ns = monotonic_ns();
  p->in_flight_at_issue = in_flight_ + 1;
  late_us_.push_back(static_cast<double>(p->issue_ns - p->arrive_ns) / 1e3);
  Pending* raw = p.release();
  nbd_completion_callback cb{on_complete, raw, nullptr};
  std::int64_t cookie = -1;
  switch (raw->op) {
    case Op::Read:
      raw->buf.resize(raw->length);
      cookie = nbd_aio_pread(h, raw->buf.data(), raw->length, raw->offset, cb, 0);
      break;
    case Op::Write:
    case Op::Zero:
      if (write_data_.size() < raw->length) write_data_.resize(raw->length, '\x5a');
      cookie = nbd_aio_pwrite(h, write_data_.data(), raw->length, raw->offset, cb, 0);
      break;
    case Op::Trim:
      cookie = nbd_aio_trim(h, raw->length, raw->offset, cb, 0);
      break;
    case Op::Flush:
    case Op::Cache:
      cookie = nbd_aio_flush(h, cb, 0);
      break;
  }
  if (cookie == -1) {
    delete raw;
    nbd_fail("issuing a request");
  }
  ++in_flight_;
  ++issued_;
}

void Replayer::wait(std::int64_t until_ns) {
  std::vector<pollfd> fds(handles_.size());
  for (std::size_t i = 0; i < handles_.size(); ++i) {
    fds[i].fd = nbd_aio_get_fd(handles_[i]);
    const unsigned dir = nbd_aio_get_direction(handles_[i]);
    fds[i].events = static_cast<short>(((dir & LIBNBD_AIO_DIRECTION_READ) ? POLLIN : 0) |
                                       ((dir & LIBNBD_AIO_DIRECTION_WRITE) ? POLLOUT : 0));
  }
  timespec ts{};
  timespec* tsp = nullptr;
  if (until_ns >= 0) {
    const std::int64_t left = std::max<std::int64_t>(0, until_ns - monotonic_ns());
    ts.tv_sec = left / 1000000000;
    ts.tv_nsec = left % 1000000000;
    tsp = &ts;
  }
  const int r = ppoll(fds.data(), fds.size(), tsp, &wait_mask_);
  if (r < 0) {
    if (errno == EINTR) return;
    throw std::runtime_error(fmt::format("poll: {}", std::strerror(errno)));
  }
  for (std::size_t i = 0; i < handles_.size(); ++i) {
    if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
      if (nbd_aio_notify_read(handles_[i]) == -1) nbd_fail("connection failed");
    } else if (fds[i].revents & POLLOUT) {
      if (nbd_aio_notify_write(handles_[i]) == -1) nbd_fail("connection failed");
    }
  }
}

void Replayer::progress(bool force) {
  if (o_.quiet) return;
  const std::int64_t now = monotonic_ns();
  if (!force && now - last_progress_ns_ < 2'000'000'000) return;
  last_progress_ns_ = now;
  std::cerr << fmt::format("replay: {} of {} issued, {} completed, {} in flight\n", issued_,
                           o_.warmup + o_.requests, completed_, in_flight_);
}

bool Replayer::run(const Workload& w, std::vector<LogRow>& rows,
                   std::vector<LiveRecord>& records) {
  const DeviceExtent dev{size_, 512};
  // The seed of `disksched sim` replication `rep` (bench/sim/experiment.cpp).
  const std::uint64_t seed = Rng::derive(o_.seed, o_.rep);
  const std::uint64_t total = o_.warmup + o_.requests;
  bool saturated = false;
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);  // wake for arrivals within microseconds
  pthread_sigmask(SIG_SETMASK, nullptr, &wait_mask_);
  sigdelset(&wait_mask_, SIGINT);
  sigdelset(&wait_mask_, SIGTERM);
  start_ns_ = monotonic_ns();
  last_progress_ns_ = start_ns_;
  if (!o_.time_limit.empty()) deadline_ns_ = real_ns(parse_duration_ms(o_.time_limit));

  auto collect = [&] {
    while (!done_.empty()) {
      std::unique_ptr<Pending> p = std::move(done_.front());
      done_.pop_front();
      const std::int64_t complete_ns = p->complete_ns;
      const int error = p->error;
      if (p->index >= o_.warmup && p->index < total) {
        if (measured_left_ > 0) --measured_left_;
        LiveRecord r = LiveRecord::arriving(p->op, p->offset, p->length, 0, {});
        r.core.seq = p->index + 1;
        r.core.queue_len = static_cast<std::uint32_t>(p->in_flight_at_issue);
        r.arrive_ns = p->arrive_ns;
        r.dispatch_ns = p->issue_ns;
        r.issue_ns = p->issue_ns;
        r.complete_ns = complete_ns;
        r.error = error;
        records.push_back(r);
        LogRow row;
        row.op = std::string(op_name(p->op));
        // Latencies in model time, so they compare with the simulator's.
        row.arrive_ns = 0;
        row.dispatch_ns = static_cast<std::int64_t>((p->issue_ns - p->arrive_ns) / o_.timescale);
        row.complete_ns = static_cast<std::int64_t>((complete_ns - p->arrive_ns) / o_.timescale);
        // Keep the span right for throughput: shift each row to its own arrival.
        const auto shift = static_cast<std::int64_t>((p->arrive_ns - start_ns_) / o_.timescale);
        row.arrive_ns += shift;
        row.dispatch_ns += shift;
        row.complete_ns += shift;
        row.queue_len = static_cast<double>(p->in_flight_at_issue);
        if (error != 0) row.error = strerrorname_np(error) ? strerrorname_np(error) : "EIO";
        rows.push_back(std::move(row));
      }
    }
  };

  if (w.is_closed()) {
    auto clients = w.closed_stream(dev, seed);
    // (due time, client) of each client's next request.
    using Due = std::pair<std::int64_t, std::size_t>;
    std::priority_queue<Due, std::vector<Due>, std::greater<>> due;
    std::vector<std::optional<ClosedStep>> next(clients->population());
    for (std::size_t c = 0; c < clients->population(); ++c) {
      next[c] = clients->next(c);
      if (next[c]) due.push({real_ns(next[c]->think_ms), c});
    }
    std::uint64_t index = 0;
    while (index < total && (!due.empty() || in_flight_ > 0) && !stopping()) {
      while (!due.empty() && due.top().first <= monotonic_ns() && index < total) {
        const auto [at, c] = due.top();
        due.pop();
        auto p = std::make_unique<Pending>();
        p->index = index++;
        p->op = next[c]->op;
        p->offset = next[c]->offset;
        p->length = next[c]->length;
        p->arrive_ns = at;
        p->client = c;
        issue(std::move(p));
      }
      wait(or_deadline(due.empty() ? -1 : due.top().first));
      // A completion makes its client think, then issue the next.
      for (auto& p : done_) {
        if (p->client >= next.size()) continue;
        const std::size_t c = p->client;
        next[c] = clients->next(c);
        if (next[c]) due.push({p->complete_ns + static_cast<std::int64_t>(next[c]->think_ms * o_.timescale * 1e6), c});
      }
      collect();
      progress();
    }
    stopped_ = index < total && stopping();
  } else {
    auto arrivals = w.open_stream(dev, o_.rate, seed);
    std::optional<Arrival> a = arrivals->next();
    std::uint64_t index = 0;
    // After the measured requests, arrivals go on (unmeasured: "keep-warm", JW sec. 6)
    // until every measured request completed, so the last ones see the same load; more
    // keep-warm arrivals than warm-up + measured requests means the device saturated.
    while (a && (index < total || measured_left_ > 0) && !stopping()) {
      if (index >= 2 * total) {
        saturated = true;
        break;
      }
      const std::int64_t at = real_ns(a->time_ms);
      while (monotonic_ns() < at && !stopping()) wait(or_deadline(at));
      if (stopping()) break;
      auto p = std::make_unique<Pending>();
      p->index = index++;
      p->op = a->op;
      p->offset = a->offset;
      p->length = a->length;
      p->arrive_ns = at;
      p->client = static_cast<std::size_t>(-1);
      if (p->index >= o_.warmup && p->index < total) ++measured_left_;
      issue(std::move(p));
      // Drain whatever completed without blocking.
      wait(0);
      collect();
      progress();
      if (in_flight_ > o_.max_queue) {
        saturated = true;
        break;
      }
      a = arrivals->next();
    }
    stopped_ = !saturated && a && (index < total || measured_left_ > 0) && stopping();
  }
  while (in_flight_ > 0) {
    wait(-1);
    collect();
    progress();
  }
  collect();
  progress(true);
  return saturated;
}

void run_replay(const ReplayOptions& o) {
  const Workload w = Workload::parse(o.workload);
  if (!w.is_closed() && w.kind() != "trace" && !(o.rate > 0))
    throw std::invalid_argument(fmt::format(
        "--rate R (requests per second of model time, > 0) is needed for workload '{}'",
        w.spec()));
  if (!(o.timescale > 0)) throw std::invalid_argument("--timescale must be > 0");
  if (!o.time_limit.empty()) {
    try {
      parse_duration_ms(o.time_limit);
    } catch (const UnitError& e) {
      throw std::invalid_argument(fmt::format("--time-limit: {}", e.what()));
    }
  }
  // SIGINT/SIGTERM: stop issuing, drain, report (again and again: a repeated signal
  // does not cut the drain short; SIGQUIT or SIGKILL do).
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  Replayer r(o);
  std::vector<LogRow> rows;
  std::vector<LiveRecord> records;
  const bool saturated = r.run(w, rows, records);
  if (!o.log.empty()) {
    LatencyLogWriter::Options lo;
    lo.append = false;  // one run, one log (an existing latency log is replaced)
    lo.drop_when_full = false;
    LatencyLogWriter writer(o.log, lo);
    for (auto& rec : records) writer.push(std::move(rec));
    writer.stop();
  }
  const LogSummary s = summarize_log(rows);
  nlohmann::json j = summary_to_json(s);
  j["saturated"] = saturated;
  j["workload"] = w.spec();
  j["rate"] = o.rate;
  j["seed"] = o.seed;
  j["rep"] = o.rep;
  j["warmup"] = o.warmup;
  j["timescale"] = o.timescale;
  j["connections"] = o.connections;
  j["issue_late_p99_us"] = r.late_p99_us();
  j["stopped"] = r.stopped();
  // Model time, as the latencies: how long the job took, warm-up included.
  j["elapsed_s"] = static_cast<double>(r.elapsed_ns()) / 1e9 / o.timescale;
  j["note"] = "latencies in model time (real / timescale); mean_queue_len = requests in "
              "flight at issue, as the client saw them";
  if (o.json) {
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format("replay {} at {} req/s (seed {}, rep {}), timescale {}{}{}\n", w.spec(),
                           o.rate, o.seed, o.rep, o.timescale, saturated ? ", SATURATED" : "",
                           r.stopped() ? ", STOPPED (a signal or --time-limit)" : "");
  std::cout << fmt::format("elapsed {:.3f} s (model time, start to last completion)\n",
                           static_cast<double>(r.elapsed_ns()) / 1e9 / o.timescale);
  std::cout << summary_to_text(s);
  std::cout << fmt::format("issue lateness p99 {:.1f} us (real)\n", r.late_p99_us());
}

// ---------------------------------------------------------------------------------
// ctl

void print_reply(const std::string& command, const nlohmann::json& j) {
  if (command == "metrics") {
    std::cout << j.value("metrics", std::string());
    return;
  }
  if (command.rfind("switch", 0) == 0) {
    std::cout << fmt::format("scheduler: {} -> {}\n", j.value("previous", "?"),
                             j.value("scheduler", "?"));
    return;
  }
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "ok") continue;
    std::string v = it.value().is_string() ? it.value().get<std::string>() : it.value().dump();
    std::cout << fmt::format("{:<26} {}\n", it.key(), v);
  }
}

void run_ctl(const std::string& socket, const std::vector<std::string>& words, bool json) {
  std::string line;
  for (const auto& w : words) line += (line.empty() ? "" : " ") + w;
  const std::string reply = control_request(socket, line);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(reply);
  } catch (const std::exception&) {
    throw std::runtime_error(fmt::format("control socket '{}' answered something that is not "
                                         "JSON: {}",
                                         socket, reply));
  }
  if (!j.value("ok", false))
    throw std::runtime_error(fmt::format("{}: {}", line, j.value("error", std::string("failed"))));
  if (json)
    std::cout << j.dump(2) << "\n";
  else
    print_reply(line, j);
}

// ---------------------------------------------------------------------------------
// log

struct LogView {
  // Only requests arriving in [from, to): one value for every log, or one per log.
  std::vector<std::int64_t> from_ns, to_ns;
  double timescale = 1.0;                   // report model time: real / timescale
};

std::int64_t window_value(const std::vector<std::int64_t>& v, std::size_t i, std::size_t logs,
                          std::int64_t none, const char* option) {
  if (v.empty()) return none;
  if (v.size() == 1) return v[0];
  if (v.size() != logs)
    throw std::invalid_argument(fmt::format("{} has {} values for {} logs (give one, or one per log)",
                                            option, v.size(), logs));
  return v[i];
}

// Reads log `index` of `logs`, keeps its window and converts to model time.
std::vector<LogRow> read_view(const std::string& path, const LogView& v, std::size_t index = 0,
                              std::size_t logs = 1) {
  if (!(v.timescale > 0)) throw std::invalid_argument("--timescale must be > 0");
  const std::int64_t from = window_value(v.from_ns, index, logs, INT64_MIN, "--from-ns");
  const std::int64_t to = window_value(v.to_ns, index, logs, INT64_MAX, "--to-ns");
  std::vector<LogRow> rows;
  std::vector<std::string> notes;
  auto all = read_latency_log(path, &notes);
  for (const auto& n : notes) std::cerr << "disksched: note: " << n << "\n";
  for (auto& r : all) {
    if (r.arrive_ns < from || r.arrive_ns >= to) continue;
    if (v.timescale != 1.0) {
      const std::int64_t base = r.arrive_ns;
      auto scale = [&](std::int64_t t) {
        return base + static_cast<std::int64_t>(static_cast<double>(t - base) / v.timescale);
      };
      r.dispatch_ns = scale(r.dispatch_ns);
      r.complete_ns = scale(r.complete_ns);
      // Arrivals themselves spread over model time too (for throughput).
      const auto shifted = static_cast<std::int64_t>(static_cast<double>(base) / v.timescale);
      r.dispatch_ns += shifted - base;
      r.complete_ns += shifted - base;
      r.arrive_ns = shifted;
      if (r.predicted_us) *r.predicted_us /= v.timescale;
      if (r.actual_us) *r.actual_us /= v.timescale;
      if (r.sector_us) *r.sector_us /= v.timescale;
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

void add_view_options(CLI::App* c, LogView& v) {
  c->add_option("--from-ns", v.from_ns,
                "only requests arriving at or after this CLOCK_MONOTONIC time (ns); "
                "comma-separated: one per log")
      ->delimiter(',');
  c->add_option("--to-ns", v.to_ns, "only requests arriving before this time (ns)")
      ->delimiter(',');
  c->add_option("--timescale", v.timescale,
                "the emulator's timescale: report model time (real time / timescale)")
      ->capture_default_str();
}

void run_log_summary(const std::string& path, const LogView& view, bool json) {
  const LogSummary s = summarize_log(read_view(path, view));
  if (json)
    std::cout << summary_to_json(s).dump(2) << "\n";
  else
    std::cout << summary_to_text(s);
}

// Latency summaries side by side, one column per log.
void run_log_compare(const std::vector<std::string>& paths, std::vector<std::string> labels,
                     const LogView& view, bool json) {
  if (!labels.empty() && labels.size() != paths.size())
    throw std::invalid_argument(fmt::format("--labels has {} names for {} logs", labels.size(),
                                            paths.size()));
  if (labels.empty()) labels = paths;
  std::vector<LogSummary> s;
  for (std::size_t i = 0; i < paths.size(); ++i)
    s.push_back(summarize_log(read_view(paths[i], view, i, paths.size())));
  if (json) {
    nlohmann::json j = nlohmann::json::object();
    for (std::size_t i = 0; i < s.size(); ++i) j[labels[i]] = summary_to_json(s[i]);
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::string out = fmt::format("{:<28}", "");
  for (const auto& l : labels) out += fmt::format(" {:>16}", l.substr(0, 16));
  out += "\n";
  auto row = [&](const std::string& name, auto get) {
    out += fmt::format("{:<28}", name);
    for (const auto& x : s) out += fmt::format(" {:>16}", get(x));
    out += "\n";
  };
  auto f3 = [](double v) { return fmt::format("{:.3f}", v); };
  row("requests", [](const LogSummary& x) { return std::to_string(x.requests); });
  row("errors", [](const LogSummary& x) { return std::to_string(x.errors); });
  row("throughput (req/s)", [](const LogSummary& x) { return fmt::format("{:.1f}", x.throughput_per_s); });
  row("mean queue length", [](const LogSummary& x) {
    return x.mean_queue_len ? fmt::format("{:.2f}", *x.mean_queue_len) : std::string("-");
  });
  row("mean service (ms)", [&](const LogSummary& x) { return f3(x.mean_service_ms); });
  row("latency mean (ms)", [&](const LogSummary& x) { return f3(x.latency.mean_ms); });
  row("latency p50 (ms)", [&](const LogSummary& x) { return f3(x.latency.p50_ms); });
  row("latency p95 (ms)", [&](const LogSummary& x) { return f3(x.latency.p95_ms); });
  row("latency p99 (ms)", [&](const LogSummary& x) { return f3(x.latency.p99_ms); });
  row("latency max (ms)", [&](const LogSummary& x) { return f3(x.latency.max_ms); });
  std::vector<std::string> ops;
  for (const auto& x : s)
    for (const auto& [op, st] : x.by_op)
      if (std::find(ops.begin(), ops.end(), op) == ops.end()) ops.push_back(op);
  for (const auto& op : ops) {
    row(op + " mean / p95 (ms)", [&](const LogSummary& x) {
      auto it = x.by_op.find(op);
      return it == x.by_op.end() ? std::string("-")
                                 : fmt::format("{:.2f} / {:.2f}", it->second.mean_ms, it->second.p95_ms);
    });
  }
  row("predicted within 1 sector", [](const LogSummary& x) {
    return x.prediction.within_sector ? fmt::format("{:.1f}%", 100 * *x.prediction.within_sector)
                                      : std::string("-");
  });
  std::cout << out;
}

}  // namespace

void add_live_commands(CLI::App& app) {
  // replay
  auto ro = std::make_shared<ReplayOptions>();
  auto* replay = app.add_subcommand(
      "replay", "issue a workload of the simulator against an NBD server at its exact arrival times "
                "(closed:n=1,think=T: a job that waits on each read; SIGINT/SIGTERM or "
                "--time-limit: stop issuing, drain, report)");
  replay->add_option("--nbd", ro->uri, "NBD URI, e.g. nbd+unix:///?socket=/tmp/d.sock")->required();
  replay->add_option("--workload", ro->workload,
                     "workload spec as for `disksched sim`: uniform[:size=8k,reads=1.0] | "
                     "seq[:p=0.829] | burst[...] | closed:n=16[,think=5ms] | trace:FORMAT:PATH")
      ->capture_default_str();
  replay->add_option("--rate", ro->rate,
                     "arrival rate, requests per second of model time (open synthetic workloads; "
                     "rescales a trace, 0 keeps its timing)");
  replay->add_option("--requests", ro->requests, "measured requests")->capture_default_str();
  replay->add_option("--warmup", ro->warmup, "requests issued before measuring")->capture_default_str();
  replay->add_option("--seed", ro->seed, "random seed (as `disksched sim --seed`)")->capture_default_str();
  replay->add_option("--rep", ro->rep,
                     "replication number: the arrivals of `disksched sim` replication REP")
      ->capture_default_str();
  replay->add_option("--timescale", ro->timescale,
                     "real time per model time, as the emulator's timescale: arrivals are "
                     "compressed by it and latencies reported in model time")
      ->capture_default_str();
  replay->add_option("--connections", ro->connections, "NBD connections (requests round-robin)")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  replay->add_option("--max-queue", ro->max_queue,
                     "stop as saturated when more requests than this are in flight")
      ->capture_default_str();
  replay->add_option("--time-limit", ro->time_limit,
                     "stop issuing after this much model time (a duration: 60s, 500ms), drain "
                     "the requests in flight and report, as on SIGINT/SIGTERM");
  replay->add_option("--log", ro->log, "write every measured request to a latency log (CSV)");
  replay->add_flag("--json", ro->json, "print the summary as JSON");
  replay->add_flag("--quiet", ro->quiet, "no progress on stderr");
  replay->callback([ro] { run_replay(*ro); });

  // ctl
  auto socket = std::make_shared<std::string>();
  auto words = std::make_shared<std::vector<std::string>>();
  auto ctl_json = std::make_shared<bool>(false);
  auto* ctl = app.add_subcommand(
      "ctl", "talk to a running filter's control socket (sched-control=PATH) or instance "
             "(disksched@NAME): show | stats | metrics | switch SPEC | period refine|fixed | "
             "tracks refine|fixed | save PROFILE.json | reopen");
  ctl->add_option("socket", *socket,
                  "the control socket, or an instance name (NAME: " + instance_run_dir() +
                      "/NAME/control.sock)")
      ->required();
  ctl->add_option("command", *words, "show | stats | metrics | switch SPEC | period refine|fixed | tracks refine|fixed | save PROFILE.json | reopen")
      ->required()
      ->expected(1, 2);
  ctl->add_flag("--json", *ctl_json, "print the daemon's JSON reply");
  ctl->callback([socket, words, ctl_json] {
    const std::string& c = words->front();
    if (c != "show" && c != "stats" && c != "metrics" && c != "switch" && c != "period" &&
        c != "tracks" && c != "save" && c != "reopen")
      throw std::invalid_argument(fmt::format(
          "unknown ctl command '{}'; valid: show, stats, metrics, switch SPEC, period refine|fixed, "
          "tracks refine|fixed, save PROFILE.json, reopen",
          c));
    if (c == "save") {
      if (words->size() != 2)
        throw std::invalid_argument(
            "ctl save needs the file to write, e.g. save refined.json (a name in the "
            "filter's sched-save-dir)");
      // A bare name is one in the filter's sched-save-dir; a path is the caller's, and the
      // daemon resolves paths from its own directory: send an absolute one.
      if ((*words)[1].find('/') != std::string::npos)
        (*words)[1] = std::filesystem::absolute((*words)[1]).string();
    }
    if (c == "switch" && words->size() != 2)
      throw std::invalid_argument("ctl switch needs a scheduler spec, e.g. switch asatf:w=30");
    const bool refine_word = words->size() == 2 && ((*words)[1] == "refine" || (*words)[1] == "fixed");
    if (c == "period" && !refine_word)
      throw std::invalid_argument(
          "ctl period needs 'refine' (estimate the rotation period from completions) or "
          "'fixed' (keep the geometry's)");
    if (c == "tracks" && !refine_word)
      throw std::invalid_argument(
          "ctl tracks needs 'refine' (correct each track's phase from completions) or "
          "'fixed' (keep the track angles as they are)");
    if (c != "switch" && c != "period" && c != "tracks" && c != "save" && words->size() != 1)
      throw std::invalid_argument(fmt::format("ctl {} takes no argument", c));
    run_ctl(control_socket_for(*socket), *words, *ctl_json);
  });

  // log
  auto* log = app.add_subcommand("log", "latency logs (sched-log=, replay --log)");
  log->require_subcommand(1);
  auto file = std::make_shared<std::string>();
  auto log_json = std::make_shared<bool>(false);
  auto* summary = log->add_subcommand(
      "summary", "counts, mean and p50/p95/p99/max latency per op and class, queue length, "
                 "prediction error");
  summary->add_option("file", *file, "latency log")->required()->check(CLI::ExistingFile);
  summary->add_flag("--json", *log_json, "print JSON");
  auto view = std::make_shared<LogView>();
  add_view_options(summary, *view);
  summary->callback([file, log_json, view] { run_log_summary(*file, *view, *log_json); });

  auto files = std::make_shared<std::vector<std::string>>();
  auto labels = std::make_shared<std::vector<std::string>>();
  auto cmp_json = std::make_shared<bool>(false);
  auto* compare = log->add_subcommand("compare", "latency summaries of several logs side by side");
  compare->add_option("files", *files, "latency logs")->required()->check(CLI::ExistingFile);
  compare->add_option("--labels", *labels, "column names, one per log")->delimiter(',');
  compare->add_flag("--json", *cmp_json, "print JSON keyed by label");
  add_view_options(compare, *view);
  compare->callback(
      [files, labels, cmp_json, view] { run_log_compare(*files, *labels, *view, *cmp_json); });
}

}  // namespace disksched::cli
