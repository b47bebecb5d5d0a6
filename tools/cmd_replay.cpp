// `disksched replay`: an open-loop load generator over libnbd. It issues a workload spec of the
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

#include "bench/experiments/workload/workload.hpp"
#include "common/clock.hpp"
#include "common/progress_line.hpp"
#include "common/units.hpp"
#include "daemon/filter/latency_log.hpp"
#include "tools/log_summary.hpp"
#include "tools/commands.hpp"

namespace disksched::cli {
namespace {

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
  ProgressLine progress_line_{o_.quiet ? nullptr : stderr};
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
  if (!progress_line_.enabled()) return;
  // A bar redrawn on a terminal; elsewhere a line every 2 s (and at the end).
  const std::int64_t now = monotonic_ns();
  const std::int64_t every_ns = progress_line_.tty() ? 200'000'000 : 2'000'000'000;
  if (!force && now - last_progress_ns_ < every_ns) return;
  last_progress_ns_ = now;
  const std::uint64_t total = o_.warmup + o_.requests;
  if (progress_line_.tty()) {
    progress_line_.draw("replay", total ? static_cast<double>(completed_) / static_cast<double>(total) : 1.0,
                        fmt::format("{} issued, {} in flight", issued_, in_flight_));
    if (force) progress_line_.finish();
    return;
  }
  progress_line_.print(fmt::format("replay: {} of {} issued, {} completed, {} in flight", issued_,
                                   total, completed_, in_flight_));
}

bool Replayer::run(const Workload& w, std::vector<LogRow>& rows,
                   std::vector<LiveRecord>& records) {
  const DeviceExtent dev{size_, 512};
  // The seed of `disksched sim` replication `rep` (bench/experiments/sweep/experiment.cpp).
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
  // What the client measures is issue -> completion, the server's queueing included: a
  // response time, not the device's service time (the filter's log has that).
  j["mean_response_client_ms"] = j["mean_service_ms"];
  j.erase("mean_service_ms");
  j["note"] = "latencies in model time (real / timescale); mean_queue_len = requests in "
              "flight at issue, as the client saw them; mean_response_client_ms = issue to "
              "completion as the client saw it (the filter's sched-log has the device's service)";
  if (o.json) {
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format("replay {} at {} req/s (seed {}, rep {}), timescale {}{}{}\n", w.spec(),
                           o.rate, o.seed, o.rep, o.timescale, saturated ? ", SATURATED" : "",
                           r.stopped() ? ", STOPPED (a signal or --time-limit)" : "");
  std::cout << fmt::format("elapsed {:.3f} s (model time, start to last completion)\n",
                           static_cast<double>(r.elapsed_ns()) / 1e9 / o.timescale);
  std::cout << summary_to_text(s, {.queue = "mean in flight at issue (client)",
                                    .service = "mean response (client: issue to completion)"});
  std::cout << fmt::format("issue lateness p99 {:.1f} us (real)\n", r.late_p99_us());
}

}  // namespace

void add_replay_command(CLI::App& app) {
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
}

}  // namespace disksched::cli
