#include "daemon/filter/metrics.hpp"

#include <cmath>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace disksched {

namespace {

// Exposition numbers: integers as integers, others in the shortest form that reads back.
std::string value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", v);
}

class Writer {
 public:
  explicit Writer(const std::string& disk) : disk_(prometheus_label_value(disk)) {}

  void family(const char* name, const char* type, const char* help) {
    out_ += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  }
  // `labels`: extra labels after disk, already formatted (`op="read",class="critical"`).
  void sample(const std::string& name, const std::string& labels, double v) {
    out_ += fmt::format("{}{{disk=\"{}\"{}{}}} {}\n", name, disk_, labels.empty() ? "" : ",",
                        labels, value(v));
  }
  template <std::size_t N, std::size_t M>
  void histogram(const std::string& name, const std::string& labels,
                 const std::array<std::uint64_t, M>& counts, std::uint64_t count, double sum,
                 const std::array<double, N>& bounds) {
    const std::string sep = labels.empty() ? "" : ",";
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < N; ++i) {
      cumulative += counts[i];
      sample(name + "_bucket", labels + sep + fmt::format("le=\"{}\"", value(bounds[i])),
             static_cast<double>(cumulative));
    }
    sample(name + "_bucket", labels + sep + "le=\"+Inf\"", static_cast<double>(count));
    sample(name + "_sum", labels, sum);
    sample(name + "_count", labels, static_cast<double>(count));
  }
  std::string take() { return std::move(out_); }

 private:
  std::string disk_;
  std::string out_;
};

constexpr Op kOpOrder[] = {Op::Read, Op::Write, Op::Flush, Op::Trim, Op::Zero};
constexpr IoClass kClassOrder[] = {IoClass::TimeCritical, IoClass::TimeLimited,
                                   IoClass::TimeNoncritical};

std::size_t op_index(Op op) {
  switch (op) {
    case Op::Read: return 0;
    case Op::Write: return 1;
    case Op::Flush: return 2;
    case Op::Trim: return 3;
    default: return 4;  // Zero (Cache is never queued)
  }
}

// The qos scheduler's counters (schedulers/classes/qos.cpp, counters()) as series: its
// name, the family, its type, the factor to the family's unit, the help. Per class
// ones are named qos_CLASS_WHAT and get a class label; other schedulers have none.
struct SchedulerSeries {
  const char* what;
  const char* family;
  const char* type;
  double scale;
  const char* help;
};
constexpr SchedulerSeries kQosSeries[] = {
    {"depth", "disksched_qos_depth", "gauge", 1, "Requests the qos scheduler lets the drive hold now."},
    {"min_depth_seen", "disksched_qos_min_depth", "gauge", 1, "The smallest depth qos has allowed."},
    {"shrinks", "disksched_qos_depth_cuts_total", "counter", 1, "Times qos cut the depth (a window over the target)."},
    {"grows", "disksched_qos_depth_grows_total", "counter", 1, "Times qos let the depth grow."},
    {"admitted", "disksched_qos_admitted_total", "counter", 1, "Requests qos sent to the drive, by class."},
    {"max_wait_ms", "disksched_qos_max_wait_seconds", "gauge", 1e-3, "Longest wait at the host, arrival to the drive, by class (model time)."},
    {"max_response_ms", "disksched_qos_max_response_seconds", "gauge", 1e-3, "Longest response, by class (model time)."},
    {"over_target", "disksched_qos_over_target_total", "counter", 1, "Foreground completions over their target, by class."},
    {"overdue", "disksched_qos_overdue_total", "counter", 1, "Background requests sent because they had waited bg-wait."},
};

// "qos_noncritical_overdue" -> class label and "overdue"; "qos_depth" -> no label.
std::pair<std::string, std::string> qos_series_of(const std::string& name) {
  std::string rest = name.substr(4);
  for (IoClass c : kClassOrder) {
    const std::string prefix = std::string(class_name(c)) + "_";
    if (rest.rfind(prefix, 0) == 0)
      return {fmt::format("class=\"{}\"", class_name(c)), rest.substr(prefix.size())};
  }
  return {"", rest};
}

void write_scheduler_counters(Writer& w, const std::vector<std::pair<std::string, double>>& counters) {
  for (const SchedulerSeries& s : kQosSeries) {
    bool named = false;
    for (const auto& [name, v] : counters) {
      if (name.rfind("qos_", 0) != 0) continue;
      const auto [labels, what] = qos_series_of(name);
      if (what != s.what) continue;
      if (!named) w.family(s.family, s.type, s.help);
      named = true;
      w.sample(s.family, labels, v * s.scale);
    }
  }
}

}  // namespace

std::string prometheus_label_value(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

void Metrics::Histogram::add(double v, const double* bounds, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (v <= bounds[i]) {
      ++counts[i];
      break;
    }
  ++count;
  sum += v;
}

Metrics::Metrics(std::string disk) : disk_(std::move(disk)) {}

void Metrics::observe(const LiveRecord& r) {
  const double response_s = static_cast<double>(r.complete_ns - r.arrive_ns) / 1e9;
  const double service_s = static_cast<double>(r.complete_ns - r.dispatch_ns) / 1e9;
  std::lock_guard lock(mu_);
  PerOpClass& p = by_[op_index(r.core.op)][static_cast<std::size_t>(r.core.cls)];
  ++p.requests;
  if (!r.core.ok) ++p.errors;
  p.response.add(response_s, kBuckets.data(), kBuckets.size());
  p.service.add(service_s, kBuckets.data(), kBuckets.size());
  queue_len_.add(static_cast<double>(r.core.queue_len), kQueueBuckets.data(), kQueueBuckets.size());
  if (r.core.ok && r.predicted)
    prediction_error_.add(std::fabs(service_s - r.predicted_us() / 1e6), kBuckets.data(),
                          kBuckets.size());
}

std::string Metrics::render(const Dispatcher::Snapshot* snap,
                            const LatencyLogWriter::Status* log) const {
  Writer w(disk_);
  {
    std::lock_guard lock(mu_);
    // Only the operation/class pairs that have had requests appear.
    auto each = [&](auto&& f) {
      for (Op op : kOpOrder)
        for (IoClass cls : kClassOrder) {
          const PerOpClass& p = by_[op_index(op)][static_cast<std::size_t>(cls)];
          if (p.requests == 0) continue;
          f(p, fmt::format("op=\"{}\",class=\"{}\"", op_name(op), class_name(cls)));
        }
    };
    w.family("disksched_requests_total", "counter",
             "Requests completed, failed ones included, by operation and class.");
    each([&](const PerOpClass& p, const std::string& l) { w.sample("disksched_requests_total", l, p.requests); });
    w.family("disksched_request_errors_total", "counter",
             "Requests the backing device failed, by operation and class.");
    each([&](const PerOpClass& p, const std::string& l) { w.sample("disksched_request_errors_total", l, p.errors); });
    w.family("disksched_response_seconds", "histogram",
             "Response time, arrival at the filter to completion.");
    each([&](const PerOpClass& p, const std::string& l) {
      w.histogram("disksched_response_seconds", l, p.response.counts, p.response.count,
                  p.response.sum, kBuckets);
    });
    w.family("disksched_service_seconds", "histogram",
             "Service time, dispatch to the device to completion.");
    each([&](const PerOpClass& p, const std::string& l) {
      w.histogram("disksched_service_seconds", l, p.service.counts, p.service.count,
                  p.service.sum, kBuckets);
    });
    w.family("disksched_prediction_error_seconds", "histogram",
             "Absolute difference between the predicted and the actual service time.");
    w.histogram("disksched_prediction_error_seconds", "", prediction_error_.counts,
                prediction_error_.count, prediction_error_.sum, kBuckets);
    w.family("disksched_dispatch_queue_length", "histogram",
             "Requests the scheduler chose among at each dispatch.");
    w.histogram("disksched_dispatch_queue_length", "", queue_len_.counts, queue_len_.count,
                queue_len_.sum, kQueueBuckets);
  }
  w.family("disksched_device_open", "gauge",
           "1 once a client opened the device and the dispatcher runs, else 0.");
  w.sample("disksched_device_open", "", snap ? 1 : 0);
  if (snap) {
    const auto& st = snap->stats;
    w.family("disksched_scheduler_info", "gauge", "The scheduler and geometry in use (always 1).");
    w.sample("disksched_scheduler_info",
             fmt::format("scheduler=\"{}\",geometry=\"{}\"", prometheus_label_value(snap->scheduler),
                         prometheus_label_value(snap->model)),
             1);
    write_scheduler_counters(w, snap->scheduler_counters);
    w.family("disksched_arrived_requests_total", "counter", "Requests queued.");
    w.sample("disksched_arrived_requests_total", "", static_cast<double>(st.arrived));
    w.family("disksched_dispatched_requests_total", "counter", "Requests sent to the device.");
    w.sample("disksched_dispatched_requests_total", "", static_cast<double>(st.dispatched));
    w.family("disksched_scheduler_switches_total", "counter", "Scheduler changes (ctl switch).");
    w.sample("disksched_scheduler_switches_total", "", static_cast<double>(st.switches));
    w.family("disksched_queued_requests", "gauge", "Requests waiting in the queue now.");
    w.sample("disksched_queued_requests", "", static_cast<double>(snap->queued));
    w.family("disksched_in_flight_requests", "gauge", "Requests at the device now.");
    w.sample("disksched_in_flight_requests", "", static_cast<double>(snap->in_flight));
    w.family("disksched_predictions_checked_total", "counter",
             "Completions whose predicted service time was checked (rotational geometry).");
    w.sample("disksched_predictions_checked_total", "", static_cast<double>(st.predictions_checked));
    w.family("disksched_predictions_within_sector_total", "counter",
             "Checked completions predicted within one sector time.");
    w.sample("disksched_predictions_within_sector_total", "", static_cast<double>(st.predictions_within));
    w.family("disksched_delta_seconds", "gauge",
             "The calibrated offset between predicted and observed service time.");
    w.sample("disksched_delta_seconds", "", snap->delta_ms / 1e3);
    if (snap->profile_rotation_ms > 0) {
      w.family("disksched_rotation_period_seconds", "gauge",
               "The rotation period predictions use (refined from completions when enabled).");
      w.sample("disksched_rotation_period_seconds", "", snap->rotation_ms / 1e3);
      w.family("disksched_rotation_drift_ratio", "gauge",
               "The rotation period in use relative to the profile's, minus 1 (1e-6 = 1 ppm).");
      w.sample("disksched_rotation_drift_ratio", "", snap->rotation_ms / snap->profile_rotation_ms - 1.0);
      w.family("disksched_tracks_rephased", "gauge",
               "Tracks whose phase was corrected from completions.");
      w.sample("disksched_tracks_rephased", "", static_cast<double>(snap->tracks_rephased));
      w.family("disksched_track_phase_adjustments_total", "counter", "Track phase corrections.");
      w.sample("disksched_track_phase_adjustments_total", "",
               static_cast<double>(snap->track_phase_adjustments));
    }
  }
  if (log != nullptr) {
    w.family("disksched_log_records_written_total", "counter",
             "Records written to the latency log (sched-log=).");
    w.sample("disksched_log_records_written_total", "", static_cast<double>(log->written));
    w.family("disksched_log_records_dropped_total", "counter",
             "Latency log records lost: its buffer was full or a write failed.");
    w.sample("disksched_log_records_dropped_total", "", static_cast<double>(log->dropped));
    w.family("disksched_log_write_errors_total", "counter",
             "Failed writes to the latency log (each loses its batch of records).");
    w.sample("disksched_log_write_errors_total", "", static_cast<double>(log->write_errors));
  }
  return w.take();
}

}  // namespace disksched
