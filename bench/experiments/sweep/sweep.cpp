#include "bench/experiments/sweep/sweep.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <iostream>
#include <stdexcept>

#include <fmt/format.h>

#include "common/csv.hpp"
#include "common/install_dirs.hpp"
#include "common/text.hpp"
#include "common/regular_file.hpp"

namespace disksched {

#ifndef DISKSCHED_SOURCE_DIR
#define DISKSCHED_SOURCE_DIR "."
#endif

struct Sweep::Slot {
  std::string series, sched;
  double x = 0, rate = 0;
  std::vector<RunSummary> runs;
  std::size_t reps_done = 0;  // guarded by the Sweep's point mutex
  bool ran = false;
  std::mutex mu;
};

std::string substitute_value(const std::string& tmpl, double v) {
  std::string out = tmpl;
  auto pos = out.find("{}");
  if (pos != std::string::npos) out.replace(pos, 2, fmt::format("{}", v));
  return out;
}

Sweep::Sweep(SweepSpec spec) : spec_(std::move(spec)), workload_(Workload::parse(spec_.workload)) {
  if (spec_.scheds.empty()) throw std::invalid_argument("sweep: give at least one scheduler");
  if (spec_.reps == 0) throw std::invalid_argument("sweep: reps must be >= 1");
  const bool param = !spec_.values.empty();
  if (param) {
    if (spec_.rates.size() != 1)
      throw std::invalid_argument("sweep: a parameter sweep runs at exactly one rate");
    for (const auto& s : spec_.scheds)
      if (s.find("{}") == std::string::npos)
        throw std::invalid_argument(fmt::format(
            "sweep: scheduler '{}' has no '{{}}' for the parameter values to go in", s));
    xs_ = spec_.values;
  } else {
    if (spec_.rates.empty()) throw std::invalid_argument("sweep: give the rates to sweep");
    xs_ = spec_.rates;
    std::sort(xs_.begin(), xs_.end());
  }
  for (const auto& s : spec_.scheds) {
    for (double x : xs_) {
      auto slot = std::make_unique<Slot>();
      slot->series = s;
      slot->x = x;
      slot->rate = param ? spec_.rates[0] : x;
      slot->sched = param ? substitute_value(s, x) : s;
      slot->runs.resize(spec_.reps);
      slots_.push_back(std::move(slot));
    }
  }
}

Sweep::~Sweep() = default;

std::size_t Sweep::planned_runs() const { return slots_.size() * spec_.reps; }

void Sweep::start(JobPool& pool) {
  const bool param = !spec_.values.empty();
  const bool chained = !param && spec_.stop_at_saturation;
  for (std::size_t s = 0; s < spec_.scheds.size(); ++s) {
    if (chained) {
      submit_point(pool, s, 0);
    } else {
      for (std::size_t i = 0; i < xs_.size(); ++i) submit_point(pool, s, i);
    }
  }
}

void Sweep::submit_point(JobPool& pool, std::size_t series, std::size_t xi) {
  Slot* slot = slots_[series * xs_.size() + xi].get();
  slot->ran = true;
  for (std::size_t rep = 0; rep < spec_.reps; ++rep) {
    pool.submit([this, slot, rep, series, xi, &pool](Worker& w) {
      const DeviceModel& model = w.model(spec_.model);
      slot->runs[rep] = run_once(model, workload_, slot->sched, slot->rate,
                                 replication_seed(spec_.seed, rep), spec_.cfg);
      bool last = false;
      {
        std::lock_guard<std::mutex> l(slot->mu);
        last = ++slot->reps_done == spec_.reps;
      }
      if (last) point_done(pool, series, xi);
    });
  }
}

void Sweep::point_done(JobPool& pool, std::size_t series, std::size_t xi) {
  const bool param = !spec_.values.empty();
  if (param || !spec_.stop_at_saturation) return;
  if (xi + 1 >= xs_.size()) return;
  const Slot* slot = slots_[series * xs_.size() + xi].get();
  const bool saturated = std::any_of(slot->runs.begin(), slot->runs.end(),
                                     [](const RunSummary& r) { return r.saturated; });
  if (saturated)
    pool.skip((xs_.size() - xi - 1) * spec_.reps);
  else
    submit_point(pool, series, xi + 1);
}

SweepResult Sweep::result() const {
  SweepResult r;
  r.spec = spec_;
  r.workload = workload_.spec();
  r.param_sweep = !spec_.values.empty();
  r.series = spec_.scheds;
  for (const auto& slot : slots_) {
    SweepPoint p;
    p.series = slot->series;
    p.sched = slot->sched;
    p.x = slot->x;
    p.rate = slot->rate;
    p.ran = slot->ran && slot->reps_done == spec_.reps;
    if (p.ran) {
      p.result.sched = slot->sched;
      p.result.rate = slot->rate;
      p.result.runs = slot->runs;
      p.result.stats = replicate(slot->runs);
    }
    r.points.push_back(std::move(p));
  }
  return r;
}

std::vector<const SweepPoint*> SweepResult::of(const std::string& s) const {
  std::vector<const SweepPoint*> out;
  for (const auto& p : points)
    if (p.series == s) out.push_back(&p);
  return out;
}

const SweepPoint* SweepResult::at(const std::string& s, double x) const {
  for (const auto& p : points)
    if (p.series == s && p.x == x) return &p;
  return nullptr;
}

SweepResult run_sweep(const SweepSpec& spec, std::size_t threads, bool progress) {
  Sweep sweep(spec);
  JobPool pool(threads, "sweep", sweep.planned_runs(), progress);
  sweep.start(pool);
  pool.wait();
  return sweep.result();
}

std::vector<double> parse_range(const std::string& text, const std::string& what) {
  auto number = [&](std::string_view field) {
    const std::string s(field);
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0' || !std::isfinite(v))
      throw std::invalid_argument(
          fmt::format("{} '{}': '{}' is not a number (expected LO:HI:STEP or A,B,C)", what, text, s));
    return v;
  };
  std::vector<double> out;
  if (text.find(':') != std::string::npos) {
    const std::vector<std::string_view> parts = split(text, ':');
    if (parts.size() != 3)
      throw std::invalid_argument(fmt::format("{} '{}': expected LO:HI:STEP", what, text));
    const double lo = number(parts[0]), hi = number(parts[1]), step = number(parts[2]);
    if (!(step > 0) || hi < lo)
      throw std::invalid_argument(fmt::format("{} '{}': need STEP > 0 and HI >= LO", what, text));
    const auto n = static_cast<std::size_t>(std::floor((hi - lo) / step + 1e-9)) + 1;
    if (n > 100000) throw std::invalid_argument(fmt::format("{} '{}': too many values", what, text));
    for (std::size_t i = 0; i < n; ++i) out.push_back(lo + static_cast<double>(i) * step);
  } else {
    for (std::string_view v : split(text, ',')) out.push_back(number(v));
  }
  return out;
}

namespace {

std::string csv_num(double v) { return std::isfinite(v) ? fmt::format("{:.6g}", v) : ""; }

}  // namespace

void write_csv(const SweepResult& r, const std::string& path) {
  std::ostringstream f;
  f << "series,sched,x,rate,ran,saturated,reps,requests,throughput_per_s,mean_ms,ci95_mean_ms,"
       "p95_ms,ci95_p95_ms,p95_hist_ms,p99_ms,max_ms,std_ms,ci95_std_ms,sq_cv,mean_wait_ms,"
       "mean_delay_ms,mean_queue_len,mean_seek_ms,mean_rotation_ms,mean_transfer_ms,utilization\n";
  for (const auto& p : r.points) {
    const Replicated& s = p.result.stats;
    f << csv_field(p.series) << ',' << csv_field(p.sched) << ',' << csv_num(p.x) << ','
      << csv_num(p.rate) << ',' << (p.ran ? 1 : 0) << ',' << (p.saturated() ? 1 : 0) << ',';
    if (!p.ran) {
      f << ",,,,,,,,,,,,,,,,,,,\n";
      continue;
    }
    f << s.reps << ',' << s.requests << ',' << csv_num(s.throughput_per_s.mean) << ','
      << csv_num(s.mean_ms.mean) << ',' << csv_num(s.mean_ms.half_width) << ','
      << csv_num(s.p95_ms.mean) << ',' << csv_num(s.p95_ms.half_width) << ','
      << csv_num(s.p95_hist_ms.mean) << ',' << csv_num(s.p99_ms.mean) << ','
      << csv_num(s.max_ms.mean) << ',' << csv_num(s.std_ms.mean) << ','
      << csv_num(s.std_ms.half_width) << ',' << csv_num(s.sq_cv.mean) << ','
      << csv_num(s.mean_wait_ms.mean) << ',' << csv_num(s.mean_delay_ms.mean) << ','
      << csv_num(s.mean_queue_len.mean) << ',' << csv_num(s.mean_seek_ms.mean) << ','
      << csv_num(s.mean_rotation_ms.mean) << ',' << csv_num(s.mean_transfer_ms.mean) << ','
      << csv_num(s.utilization.mean) << '\n';
  }
  replace_file(path, f.str());
}

std::string Sustained::text() const {
  switch (bound) {
    case '>': return fmt::format(">= {:.1f}", rate);
    case '<': return fmt::format("< {:.1f}", rate);
    default: return fmt::format("{:.1f}", rate);
  }
}

Sustained sustained_rate(const SweepResult& r, const std::string& series, Metric m,
                         double target_ms) {
  auto pts = r.of(series);
  if (pts.empty()) throw std::invalid_argument(fmt::format("no series '{}' in the sweep", series));
  auto metric = [&](const SweepPoint* p) {
    if (p->saturated()) return static_cast<double>(INFINITY);
    return m == Metric::Mean ? p->result.stats.mean_ms.mean : p->result.stats.p95_ms.mean;
  };
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const double v = metric(pts[i]);
    if (v <= target_ms) continue;
    if (i == 0) return {pts[0]->rate, '<'};
    const double v0 = metric(pts[i - 1]);
    if (!std::isfinite(v)) return {pts[i - 1]->rate, '>'};
    const double r0 = pts[i - 1]->rate, r1 = pts[i]->rate;
    return {r0 + (r1 - r0) * (target_ms - v0) / (v - v0), '='};
  }
  return {pts.back()->rate, '>'};
}

std::string sustained_table(const SweepResult& r, const std::vector<double>& mean_targets,
                            const std::vector<double>& p95_targets, const std::string& csv_path) {
  std::string out = fmt::format("{:<24}", "rate sustained at");
  for (double t : mean_targets) out += fmt::format(" {:>12}", fmt::format("mean<={:g}s", t / 1000));
  for (double t : p95_targets) out += fmt::format(" {:>12}", fmt::format("p95<={:g}s", t / 1000));
  out += "\n";
  std::ostringstream csv;
  csv << "series,metric,target_ms,rate_per_s,bound\n";
  for (const auto& s : r.series) {
    out += fmt::format("{:<24}", s);
    auto cell = [&](Metric m, double t) {
      Sustained v = sustained_rate(r, s, m, t);
      out += fmt::format(" {:>12}", v.text());
      csv << csv_field(s) << ',' << (m == Metric::Mean ? "mean" : "p95") << ',' << t << ','
            << fmt::format("{:.3f}", v.rate) << ',' << v.bound << '\n';
    };
    for (double t : mean_targets) cell(Metric::Mean, t);
    for (double t : p95_targets) cell(Metric::P95, t);
    out += "\n";
  }
  if (!csv_path.empty()) replace_file(csv_path, csv.str());
  return out;
}

std::string script_dir() {
  if (const char* env = std::getenv("DISKSCHED_SCRIPTS"); env && *env) return env;
  if (auto installed = installed_data_dir("plots")) return *installed;
  return std::string(DISKSCHED_SOURCE_DIR) + "/bench/experiments/plots";
}

bool run_python(const std::string& script, const std::vector<std::string>& args) {
  const std::string path = script_dir() + "/" + script;
  if (!std::filesystem::exists(path)) {
    std::cerr << "disksched: no plot: " << path << " not found (set DISKSCHED_SCRIPTS)\n";
    return false;
  }
  std::vector<std::string> argv_s{"/usr/bin/python3", path};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout.flush();
  const pid_t pid = ::fork();
  if (pid < 0) {
    std::cerr << "disksched: no plot: fork failed\n";
    return false;
  }
  if (pid == 0) {
    ::execv(argv[0], argv.data());
    std::_Exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::cerr << "disksched: no plot: " << script << " failed (status " << status << ")\n";
    return false;
  }
  return true;
}

std::vector<std::string> plot_sweep(const SweepResult& r, const std::string& csv_path,
                                    const std::string& out_prefix, const std::string& title) {
  const std::string png = out_prefix + ".png";
  std::vector<std::string> args{"--csv", csv_path, "--out", png, "--title", title, "--kind",
                                r.param_sweep ? "param" : "rate", "--param", r.spec.param};
  if (!run_python("plot_sweep.py", args)) return {};
  return {png};
}

}  // namespace disksched
