// `disksched sim`, `disksched sweep`, `disksched repro`: the simulator from the
// command line.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench/experiments/sweep/experiment.hpp"
#include "bench/experiments/repro/repro.hpp"
#include "bench/experiments/sweep/sweep.hpp"
#include "bench/experiments/sweep/sweep_points.hpp"
#include "bench/experiments/workload/workload.hpp"
#include "common/units.hpp"
#include "emulator/sim/process_flow/flow_report.hpp"
#include "emulator/sim/process_flow/flow_workload.hpp"
#include "emulator/sim/process_flow/process_flow.hpp"
#include "emulator/sim/simulator.hpp"
#include "schedulers/registry.hpp"
#include "tools/commands.hpp"
#include "common/regular_file.hpp"

namespace disksched::cli {
namespace {

struct SimOptions {
  std::string model = "hp97560";
  std::string sched = "fcfs";
  std::string workload = "uniform";
  double rate = 30.0;
  std::uint64_t requests = 2000;
  std::uint64_t warmup = 1000;
  std::uint64_t keep_warm = 0;
  std::size_t max_queue = 5000;
  std::size_t reps = 0;  // 0: 20 for random workloads, 1 for a trace
  std::uint64_t seed = 1;
  std::size_t depth = 1;
  bool json = false;
  std::string log;
  CLI::Option* requests_opt = nullptr;  // given on the command line?
  CLI::Option* warmup_opt = nullptr;
  // The drive's own command queue (sim only; 0: none).
  unsigned drive_queue = 0;
  std::string drive_policy = "satf";
  std::string drive_age_limit = "1s";
  unsigned drive_window = 0;  // the oldest commands the firmware reorders among (0: all)
  // A volatile write cache (sim only; as diskemu's write-cache= keys).
  std::string write_cache;
  std::string write_cache_high_water;
};



void add_run_options(CLI::App* c, SimOptions& o) {
  c->add_option("--model", o.model,
                "device model: " + builtin_models_text() + ", fixed:ms=X, or a .json profile")
      ->capture_default_str();
  c->add_option("--workload", o.workload,
                "uniform[:size=8k,reads=1.0] | seq[:p=0.829] | burst[:len=32,span=4m] | "
                "closed:n=16[,think=5ms] | mixed[:fg=1,bg=8,writers=0] | trace:FORMAT:PATH[,scale=F,dev=N|all,fold=1,events=D|Q,time=ns]")
      ->capture_default_str();
  o.requests_opt = c->add_option("--requests", o.requests,
                                 "measured requests per replication (a trace: 0 = all, the default)")
                       ->capture_default_str();
  o.warmup_opt = c->add_option("--warmup", o.warmup, "warm-up requests before measuring (a trace: 0)")
                     ->capture_default_str();
  c->add_option("--keep-warm", o.keep_warm,
                "keep-warm arrivals allowed before a run counts as saturated (0: warm-up + measured)")
      ->capture_default_str();
  c->add_option("--max-queue", o.max_queue, "stop a run as saturated beyond this many waiting (0: no limit)")
      ->capture_default_str();
  c->add_option("--reps", o.reps, "replications (default 20, or 1 for a trace)");
  c->add_option("--seed", o.seed, "random seed")->capture_default_str();
  c->add_option("--depth", o.depth, "requests at the device at once")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
}

// A trace is replayed whole by default (no warm-up, every request measured); a
// synthetic workload never ends, so it needs a number of measured requests.
SimConfig config_of(const SimOptions& o, const Workload& w) {
  SimConfig c;
  c.depth = o.depth;
  c.warmup = o.warmup;
  c.measured = o.requests;
  c.keep_warm_max = o.keep_warm;
  c.max_queue = o.max_queue;
  if (w.kind() == "trace") {
    if (o.warmup_opt->count() == 0) c.warmup = 0;
    if (o.requests_opt->count() == 0) c.measured = 0;
  } else if (c.measured == 0) {
    throw std::invalid_argument(fmt::format(
        "--requests 0 (until the workload ends) needs a trace; workload '{}' never ends", w.kind()));
  }
  return c;
}

std::size_t default_reps(const SimOptions& o, const Workload& w) {
  if (o.reps > 0) return o.reps;
  return w.kind() == "trace" ? 1 : 20;
}

std::string ms(const Estimate& e) {
  if (!std::isfinite(e.mean)) return "-";
  if (!std::isfinite(e.half_width)) return fmt::format("{:.2f}", e.mean);
  return fmt::format("{:.2f} +- {:.2f}", e.mean, e.half_width);
}

void print_point(const PointResult& p, const std::string& model, const Workload& w) {
  const Replicated& s = p.stats;
  std::cout << fmt::format("model {}, scheduler {}, workload {}", model, p.sched, w.spec());
  if (p.rate > 0) std::cout << fmt::format(", {} requests/s", p.rate);
  std::cout << fmt::format("\n{} replications, {} measured requests{}\n", s.reps, s.requests,
                           s.saturated ? " (SATURATED: the queue did not keep up)" : "");
  auto row = [](const std::string& k, const std::string& v) {
    std::cout << fmt::format("  {:<26} {}\n", k, v);
  };
  row("throughput (req/s)", ms(s.throughput_per_s));
  row("mean response (ms)", ms(s.mean_ms));
  row("p95 response (ms)", ms(s.p95_ms));
  row("p95, 200-bin histogram", ms(s.p95_hist_ms));
  row("p99 response (ms)", ms(s.p99_ms));
  row("max response (ms)", ms(s.max_ms));
  row("std deviation (ms)", ms(s.std_ms));
  row("squared CV", ms(s.sq_cv));
  row("mean wait (ms)", ms(s.mean_wait_ms));
  row("mean queue length", ms(s.mean_queue_len));
  row("mean seek (ms)", ms(s.mean_seek_ms));
  row("mean rotation (ms)", ms(s.mean_rotation_ms));
  row("mean transfer (ms)", ms(s.mean_transfer_ms));
  if (s.mean_travel_ms.mean > 0) row("mean travel to edges (ms)", ms(s.mean_travel_ms));
  row("utilization", ms(s.utilization));
}

// Results split by request class, for a trace whose requests carry classes (GP's
// view: who waits matters more than the mean over everyone).
struct ClassResult {
  std::string name;
  std::size_t count = 0;
  double mean_ms = 0, p50_ms = 0, p95_ms = 0, p99_ms = 0, max_ms = 0;
  double max_wait_ms = 0;  // at the host: arrival -> dispatch
  double mb_per_s = 0;     // the class's bytes over the measurement window
  std::size_t limited = 0, within_limit = 0;  // time-limited requests, and those in time
};

std::vector<ClassResult> per_class(const SimResult& r) {
  std::vector<ClassResult> out;
  for (IoClass c : {IoClass::TimeCritical, IoClass::TimeLimited, IoClass::TimeNoncritical}) {
    std::vector<double> resp;
    ClassResult x;
    x.name = std::string(class_name(c));
    double bytes = 0;
    for (const auto& rec : r.measured) {
      if (rec.cls != c) continue;
      resp.push_back(rec.response_ms());
      bytes += rec.length;
      x.max_wait_ms = std::max(x.max_wait_ms, rec.dispatch_ms - rec.arrival_ms);
      if (c == IoClass::TimeLimited) {
        ++x.limited;
        if (rec.response_ms() <= rec.limit_ms) ++x.within_limit;
      }
    }
    if (resp.empty()) continue;
    std::sort(resp.begin(), resp.end());
    x.count = resp.size();
    for (double v : resp) x.mean_ms += v / static_cast<double>(resp.size());
    auto quantile = [&](double q) {
      const auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(resp.size())));
      return resp[std::min(resp.size() - 1, k == 0 ? 0 : k - 1)];
    };
    x.p50_ms = quantile(0.50);
    x.p95_ms = quantile(0.95);
    x.p99_ms = quantile(0.99);
    x.max_ms = resp.back();
    const double window_s = (r.window_end_ms - r.window_start_ms) / 1000.0;
    if (window_s > 0) x.mb_per_s = bytes / 1e6 / window_s;
    out.push_back(x);
  }
  return out;
}

std::string class_source(const Workload& w) {
  return w.kind() == "trace" ? "classes from the trace: " + w.class_map().spec()
                             : "classes from the workload";
}

void print_classes(const std::vector<ClassResult>& classes, const Workload& w) {
  std::cout << fmt::format("per class (replication 0; {})\n", class_source(w));
  std::cout << fmt::format("  {:<12} {:>8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>11} {:>8} {:>14}\n",
                           "class", "count", "mean ms", "p50 ms", "p95 ms", "p99 ms", "max ms",
                           "max wait ms", "MB/s", "within limit");
  for (const auto& c : classes)
    std::cout << fmt::format("  {:<12} {:>8} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>11.2f} {:>8.2f} {:>14}\n",
                             c.name, c.count, c.mean_ms, c.p50_ms, c.p95_ms, c.p99_ms, c.max_ms,
                             c.max_wait_ms, c.mb_per_s,
                             c.limited ? fmt::format("{:.1f}%", 100.0 * static_cast<double>(c.within_limit) /
                                                                     static_cast<double>(c.limited))
                                       : "-");
}

nlohmann::json classes_json(const std::vector<ClassResult>& classes, const Workload& w) {
  nlohmann::json j = nlohmann::json::object();
  j["map"] = w.kind() == "trace" ? w.class_map().spec() : "workload";
  for (const auto& c : classes) {
    nlohmann::json x = {{"count", c.count},   {"mean_ms", c.mean_ms}, {"p50_ms", c.p50_ms},
                        {"p95_ms", c.p95_ms}, {"p99_ms", c.p99_ms},   {"max_ms", c.max_ms},
                        {"max_wait_ms", c.max_wait_ms}, {"mb_per_s", c.mb_per_s}};
    if (c.limited) x["within_limit"] = static_cast<double>(c.within_limit) / static_cast<double>(c.limited);
    j[c.name] = x;
  }
  return j;
}

void write_log(const std::string& path, const SimResult& r) {
  std::ostringstream f;
  f << "seq,op,offset,length,arrival_ms,dispatch_ms,start_ms,completion_ms,response_ms,queue_len,"
       "overhead_ms,seek_ms,rotation_ms,transfer_ms,travel_ms,class\n";
  for (const auto& x : r.measured)
    f << fmt::format("{},{},{},{},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{}\n",
                     x.seq, op_name(x.op), x.offset, x.length, x.arrival_ms, x.dispatch_ms,
                     x.start_ms, x.completion_ms, x.response_ms(), x.queue_len,
                     x.overhead_ms + x.report_ms, x.seek_ms, x.rotation_ms, x.transfer_ms,
                     x.travel_ms, class_name(x.cls));
  try {
    replace_file(path, f.str());
  } catch (const FileError& e) {
    throw std::runtime_error(fmt::format("--log: {}", e.what()));
  }
}

// The rate a run uses: a trace keeps its own timing unless --rate was given.
double effective_rate(const SimOptions& o, const Workload& w, bool rate_given) {
  if (w.is_closed()) {
    if (rate_given)
      throw std::invalid_argument(fmt::format(
          "--rate has no meaning for the closed-loop workload '{}': its clients set the pace",
          w.spec()));
    return 0.0;
  }
  if (w.kind() == "trace") return rate_given ? o.rate : 0.0;
  return o.rate;
}

// A trace's notes (which events were replayed, implausible timing, folded requests)
// go to stderr, so a reader of the results hears them without parsing them.
void print_trace_notes(const Workload& w, const DeviceModel& model) {
  for (const auto& note : w.trace_notes(DeviceExtent::of(model)))
    std::cerr << "disksched: note: " << note << "\n";
}

// The drive's queue from --drive-queue/--drive-policy/--drive-age-limit; none when
// --drive-queue is 0. Bad values fail before any work, naming the option.
std::optional<DriveQueueOptions> drive_queue_of(const SimOptions& o, const DeviceModel& model) {
  if (o.drive_queue == 0) return std::nullopt;
  DriveQueueOptions d;
  d.depth = o.drive_queue;
  d.window = o.drive_window;
  try {
    d.policy = make_scheduler(o.drive_policy, model)->spec();
  } catch (const std::exception& e) {
    throw std::invalid_argument(fmt::format("--drive-policy {}: {}", o.drive_policy, e.what()));
  }
  if (o.drive_age_limit != "none") {
    try {
      d.age_limit_ms = parse_duration_ms(o.drive_age_limit);
    } catch (const std::exception& e) {
      throw std::invalid_argument(fmt::format("--drive-age-limit {}: {}", o.drive_age_limit, e.what()));
    }
    if (!(d.age_limit_ms > 0.0))
      throw std::invalid_argument(fmt::format(
          "--drive-age-limit {}: expected a duration > 0 (e.g. 500ms) or 'none'", o.drive_age_limit));
  }
  return d;
}

// The write cache from --write-cache/--write-cache-high-water (diskemu's write-cache= and
// write-cache-high-water=); none when --write-cache is not given.
std::optional<WriteCacheOptions> write_cache_of(const SimOptions& o) {
  if (o.write_cache.empty()) {
    if (!o.write_cache_high_water.empty())
      throw std::invalid_argument(fmt::format(
          "--write-cache-high-water {}: needs a write cache: give --write-cache SIZE (e.g. 8M) too",
          o.write_cache_high_water));
    return std::nullopt;
  }
  WriteCacheOptions w;
  try {
    w.bytes = parse_size(o.write_cache);
  } catch (const std::exception& e) {
    throw std::invalid_argument(fmt::format("--write-cache {}: {} (0: write-through)", o.write_cache, e.what()));
  }
  if (!o.write_cache_high_water.empty()) {
    double f = -1.0;
    try {
      f = parse_fraction(o.write_cache_high_water);
    } catch (const std::exception&) {
    }
    if (!(f >= 0.0 && f <= 1.0))
      throw std::invalid_argument(fmt::format(
          "--write-cache-high-water {}: expected a fraction from 0 to 1 (0.75 or 75%)",
          o.write_cache_high_water));
    w.high_water = f;
  }
  return w;
}

void run_sim(const SimOptions& o, bool rate_given) {
  auto model = load_model(o.model);
  const Workload w = Workload::parse(o.workload);
  print_trace_notes(w, *model);
  Registry::builtin().check(o.sched, *model);  // a bad spec fails before any work
  PointSpec spec;
  spec.sched = o.sched;
  spec.rate = effective_rate(o, w, rate_given);
  spec.reps = default_reps(o, w);
  spec.seed = o.seed;
  spec.cfg = config_of(o, w);
  spec.cfg.drive_queue = drive_queue_of(o, *model);
  spec.cfg.device.write_cache = write_cache_of(o);
  if (spec.cfg.device.write_cache) try {
    VirtualDevice check(*model, spec.cfg.device);  // a cache the model cannot take fails now
  } catch (const std::exception& e) {
    throw std::invalid_argument(fmt::format("--write-cache {}: {}", o.write_cache, e.what()));
  }
  PointResult p = run_point(*model, w, spec);
  std::vector<ClassResult> classes;
  std::vector<std::pair<std::string, double>> counters;  // the scheduler's, replication 0
  if (!o.log.empty() || w.has_classes()) {
    SimResult r;
    run_once(*model, w, o.sched, spec.rate, replication_seed(o.seed, 0), spec.cfg, &r);
    if (!o.log.empty()) write_log(o.log, r);
    if (w.has_classes()) classes = per_class(r);
    counters = r.scheduler_counters;
  }
  const auto& dq = spec.cfg.drive_queue;
  const auto& wc = spec.cfg.device.write_cache;
  if (o.json) {
    auto j = to_json(p, o.model, w);
    if (w.has_classes()) j["classes"] = classes_json(classes, w);
    if (!counters.empty()) {
      nlohmann::json c = nlohmann::json::object();
      for (const auto& [k, v] : counters) c[k] = v;
      j["scheduler_counters"] = c;
    }
    if (dq)
      j["drive_queue"] = {{"depth", dq->depth}, {"policy", dq->policy}, {"window", dq->window},
                          {"age_limit", dq->has_age_limit() ? format_duration_ms(dq->age_limit_ms) : "none"}};
    if (wc) j["write_cache"] = {{"bytes", wc->bytes}, {"high_water", wc->high_water}};
    std::cout << j.dump(2) << "\n";
  } else {
    if (dq)
      std::cout << fmt::format("drive queue: {} commands, policy {}{}, age limit {}\n", dq->depth,
                               dq->policy,
                               dq->window > 0 ? fmt::format(" among the oldest {}", dq->window) : "",
                               dq->has_age_limit() ? format_duration_ms(dq->age_limit_ms) : "none");
    if (wc)
      std::cout << fmt::format("write cache: {} bytes{}\n", wc->bytes,
                               wc->bytes > 0 ? fmt::format(", high water {:g}", wc->high_water)
                                             : std::string(" (write-through)"));
    print_point(p, o.model, w);
    if (w.has_classes()) print_classes(classes, w);
    if (!counters.empty()) {
      std::cout << "scheduler counters (replication 0)\n";
      for (const auto& [k, v] : counters) std::cout << fmt::format("  {:<34} {:g}\n", k, v);
    }
  }
}

struct SweepOptions {
  SimOptions run;
  std::vector<std::string> scheds;
  std::string rates = "10:120:10";
  std::string values;
  std::string param = "w";
  std::string out_dir;
  std::size_t threads = 0;
  std::string mean_targets = "100,200,300";
  std::string p95_targets = "200,400,600,1000";
  bool no_plot = false;
  bool quiet = false;
  bool plan = false;
};

SweepSpec sweep_spec_of(const SweepOptions& o, bool rate_given) {
  if (o.scheds.empty())
    throw std::invalid_argument("sweep: give at least one --sched SPEC (repeatable)");
  SweepSpec spec;
  spec.model = o.run.model;
  spec.scheds = o.scheds;
  spec.workload = o.run.workload;
  const Workload w = Workload::parse(o.run.workload);
  if (w.is_closed())
    throw std::invalid_argument("sweep: a closed workload has no arrival rate to sweep; use sim");
  if (!o.values.empty()) {
    spec.values = parse_range(o.values, "--values");
    spec.rates = {o.run.rate};
    spec.param = o.param;
  } else {
    spec.rates = parse_range(o.rates, "--rates");
    if (rate_given) throw std::invalid_argument("sweep: --rate goes with --values (a parameter sweep); use --rates");
  }
  spec.reps = default_reps(o.run, w);
  spec.seed = o.run.seed;
  spec.cfg = config_of(o.run, w);
  {
    auto model = load_model(spec.model);
    print_trace_notes(w, *model);
    for (const auto& s : spec.scheds) {
      const std::string probe = spec.values.empty() ? s : substitute_value(s, spec.values.front());
      Registry::builtin().check(probe, *model);  // bad specs fail before any work
    }
  }
  return spec;
}

// The files and text of a finished sweep, the same from one process or merged points.
void report_sweep(const SweepResult& r, const std::string& out_dir,
                  const std::string& mean_targets, const std::string& p95_targets, bool no_plot) {
  const SweepSpec& spec = r.spec;
  const std::string csv = out_dir + "/sweep.csv";
  write_csv(r, csv);
  std::cout << "wrote " << csv << "\n";
  if (!r.param_sweep) {
    const std::string table = sustained_table(r, parse_range(mean_targets, "--mean-targets"),
                                              parse_range(p95_targets, "--p95-targets"),
                                              out_dir + "/sustained.csv");
    replace_file(out_dir + "/sustained.txt", table);
    std::cout << "\nArrival rate (requests/s) sustained at each response-time target "
                 "(interpolated; JW footnote 7):\n"
              << table << "wrote " << out_dir << "/sustained.csv\n";
  } else {
    for (const auto& s : r.series) {
      std::cout << "\n" << s << " at " << spec.rates[0] << " requests/s:\n";
      std::cout << fmt::format("  {:>10} {:>12} {:>12} {:>12}\n", spec.param, "mean ms", "std ms", "p95 ms");
      for (const auto* p : r.of(s)) {
        if (p->saturated()) {
          std::cout << fmt::format("  {:>10g} {:>12}\n", p->x, "saturated");
          continue;
        }
        const Replicated& st = p->result.stats;
        std::cout << fmt::format("  {:>10g} {:>12.1f} {:>12.1f} {:>12.1f}\n", p->x,
                                 st.mean_ms.mean, st.std_ms.mean, st.p95_ms.mean);
      }
    }
  }
  if (!no_plot) {
    for (const auto& png : plot_sweep(r, csv, out_dir + "/sweep",
                                      fmt::format("{} on {}", r.workload, spec.model)))
      std::cout << "wrote " << png << "\n";
  }
}

void run_sweep_command(const SweepOptions& o, bool rate_given) {
  if (o.out_dir.empty()) throw std::invalid_argument("sweep: give the output directory with -o DIR");
  const SweepSpec spec = sweep_spec_of(o, rate_given);
  if (o.plan) {
    const SweepPlan plan = plan_sweep(spec);
    write_plan(plan, o.out_dir);
    std::cout << fmt::format(
        "wrote {0}/manifest.tsv: {1} points (ids 0 to {2}); run them with `disksched sweep run "
        "{0} --shard I/N` or `--point ID`, then `disksched sweep merge {0}`\n",
        o.out_dir, plan.points.size(), plan.points.size() - 1);
    return;
  }
  std::filesystem::create_directories(o.out_dir);
  SweepResult r = run_sweep(spec, o.threads, !o.quiet);
  report_sweep(r, o.out_dir, o.mean_targets, o.p95_targets, o.no_plot);
}

struct SweepRunOptions {
  std::string dir;
  std::string shard;
  std::vector<std::size_t> ids;
  std::size_t threads = 0;
  bool quiet = false;
};

void run_sweep_points_command(const SweepRunOptions& o) {
  const SweepPlan plan = read_plan(o.dir);
  if (!o.shard.empty() && !o.ids.empty())
    throw std::invalid_argument("sweep run: give --shard I/N or --point ID, not both");
  std::vector<std::size_t> ids = o.ids;
  if (ids.empty()) ids = shard_ids(plan, o.shard.empty() ? Shard{} : parse_shard(o.shard));
  const std::size_t ran = run_points(plan, o.dir, ids, o.threads, !o.quiet);
  if (!o.quiet)
    std::cout << fmt::format("{} of {} point(s) run, the rest already done or not needed\n", ran,
                             ids.size());
}

}  // namespace

void add_sim_commands(CLI::App& app) {
  {
    auto* o = new SimOptions;  // lives as long as the app (the process)
    auto* c = app.add_subcommand("sim", "simulate a scheduler on a device model in virtual time");
    c->add_option("--sched", o->sched, "scheduler spec (see `disksched sched list`)")
        ->capture_default_str();
    auto* rate = c->add_option("--rate", o->rate,
                               "arrival rate, requests/s (a trace: rescaled to this mean rate)")
                     ->capture_default_str();
    add_run_options(c, *o);
    c->add_option("--drive-queue", o->drive_queue,
                  "the drive's own command queue: commands it holds (1: no queueing; SATA NCQ: "
                  "32; 0: none, the device serves in dispatch order)")
        ->capture_default_str();
    c->add_option("--drive-policy", o->drive_policy,
                  "the drive's firmware policy, a scheduler spec (fcfs, satf, asatf:w=30, ...)")
        ->capture_default_str();
    c->add_option("--drive-window", o->drive_window,
                  "the firmware reorders only the oldest N commands it holds (0: all; a "
                  "desktop drive: about 4)")
        ->capture_default_str();
    c->add_option("--drive-age-limit", o->drive_age_limit,
                  "a command the drive has held longer than this goes next (or 'none')")
        ->capture_default_str();
    c->add_option("--write-cache", o->write_cache,
                  "a volatile write cache of SIZE bytes (8M, 256M): writes complete after the "
                  "host transfer, destaged shortest positioning first when idle; 0: "
                  "write-through (as diskemu's write-cache=)");
    c->add_option("--write-cache-high-water", o->write_cache_high_water,
                  "above this fraction full the cache destages before the next command "
                  "(default 0.75)");
    c->add_flag("--json", o->json, "print JSON");
    c->add_option("--log", o->log, "write replication 0's measured requests as CSV to this file");
    c->callback([o, rate] { run_sim(*o, rate->count() > 0); });
  }
  {
    auto* o = new SweepOptions;
    auto* c = app.add_subcommand(
        "sweep", "run schedulers over arrival rates (or a parameter) in parallel; CSV, plots, "
                 "sustained-rate table; or plan it as independent points (--plan, run, merge)");
    c->add_option("--sched", o->scheds,
                  "scheduler spec, repeatable (required); with --values, '{}' in it takes each value");
    c->add_option("--rates", o->rates, "arrival rates LO:HI:STEP or A,B,C")->capture_default_str();
    auto* rate = c->add_option("--rate", o->run.rate, "the one rate of a parameter sweep");
    c->add_option("--values", o->values, "parameter values LO:HI:STEP or A,B,C (a parameter sweep)");
    c->add_option("--param", o->param, "the parameter's name, for the plot")->capture_default_str();
    add_run_options(c, o->run);
    c->add_option("-o,--out", o->out_dir, "output directory (required)");
    c->add_option("--threads", o->threads, "worker threads (0: every core)")->capture_default_str();
    c->add_option("--mean-targets", o->mean_targets, "mean response targets, ms")->capture_default_str();
    c->add_option("--p95-targets", o->p95_targets, "p95 response targets, ms")->capture_default_str();
    c->add_flag("--no-plot", o->no_plot, "skip the PNG plots");
    c->add_flag("-q,--quiet", o->quiet, "no progress bar");
    c->add_flag("--plan", o->plan,
                "write the grid as independent points (DIR/sweep.json, DIR/manifest.tsv) and stop; "
                "run them with `sweep run`, combine with `sweep merge`");
    c->require_subcommand(0, 1);

    auto* ro = new SweepRunOptions;
    auto* run = c->add_subcommand("run", "run points of a planned sweep, each to DIR/points/ID.json; "
                                         "points already done are skipped");
    run->add_option("dir", ro->dir, "the directory written by `sweep --plan`")->required();
    run->add_option("--shard", ro->shard, "run shard I of N (0 <= I < N): the points whose id % N == I (neither this nor --point: every point)");
    run->add_option("--point", ro->ids, "run the point with this id (the manifest's first column); repeatable");
    run->add_option("--threads", ro->threads, "worker threads (0: every core)")->capture_default_str();
    run->add_flag("-q,--quiet", ro->quiet, "no progress bar or summary");
    run->callback([ro] { run_sweep_points_command(*ro); });

    auto* mo = new SweepOptions;
    auto* merge = c->add_subcommand(
        "merge", "combine a planned sweep's point results into sweep.csv, the sustained-rate "
                 "table and plots, as a single-process sweep writes them");
    merge->add_option("dir", mo->out_dir, "the directory written by `sweep --plan`")->required();
    merge->add_option("--mean-targets", mo->mean_targets, "mean response targets, ms")->capture_default_str();
    merge->add_option("--p95-targets", mo->p95_targets, "p95 response targets, ms")->capture_default_str();
    merge->add_flag("--no-plot", mo->no_plot, "skip the PNG plots");
    merge->callback([mo] {
      const SweepPlan plan = read_plan(mo->out_dir);
      report_sweep(merge_points(plan, mo->out_dir), mo->out_dir, mo->mean_targets,
                   mo->p95_targets, mo->no_plot);
    });

    c->callback([o, rate, run, merge] {
      if (run->parsed() || merge->parsed()) return;
      run_sweep_command(*o, rate->count() > 0);
    });
  }
  {
    // The process-flow model (GP 1993): one deterministic run of a system workload.
    struct FlowOptions {
      std::string model = "gp93", sched = "look", workload = "gp93";
    };
    auto* o = new FlowOptions;
    auto* c = app.add_subcommand(
        "flow", "run processes, CPU and buffer cache over a scheduled disk (GP 1993's process-flow model)");
    c->add_option("--model", o->model, "device model")->capture_default_str();
    c->add_option("--sched", o->sched, "scheduler spec")->capture_default_str();
    c->add_option("--workload", o->workload, "gp93[:key=value,...] or flow:key=value,... "
                  "(emulator/sim/process_flow/flow_workload.hpp)")->capture_default_str();
    c->callback([o] {
      const flow::FlowWorkload w = flow::FlowWorkload::parse(o->workload);
      const auto model = load_model(o->model);
      auto sched = make_scheduler(o->sched, *model);
      const std::string spec = sched->spec();
      flow::ProcessFlowSim sim(*model, std::move(sched), w.config(model->capacity_bytes()));
      for (auto& p : w.programs()) sim.add_process(std::move(p));
      const flow::FlowResult r = sim.run();
      std::cout << fmt::format("model {}, scheduler {}, workload {}\n", model->name(), spec, w.spec())
                << flow::report(r);
    });
  }
  {
    auto* o = new ReproOptions;
    auto* which = new std::string;
    auto* c = app.add_subcommand(
        "repro", "rerun the experiments behind the seed papers' claims; ours beside theirs");
    c->add_option("paper", *which, "jw91 | hong03 | dn13 | gp93 | dn13-flow")
        ->required()
        ->check(CLI::IsMember({"jw91", "hong03", "dn13", "gp93", "dn13-flow"}));
    c->add_option("-o,--out", o->out_dir, "output directory for CSV, tables and plots")->required();
    c->add_option("--reps", o->reps, "replications per point")->capture_default_str();
    c->add_option("--seed", o->seed, "random seed")->capture_default_str();
    c->add_option("--threads", o->threads, "worker threads (0: every core)")->capture_default_str();
    c->add_flag("--quick", o->quick, "fewer replications and rates (a smoke test, not the result)");
    c->add_flag("--no-plot", o->no_plot, "skip the PNG plots");
    c->add_flag("--strict", o->strict, "exit 1 when a claim disagrees");
    c->add_flag("-q,--quiet", o->quiet, "no progress bar");
    c->callback([o, which] {
      const int disagreements = run_repro(*which, *o);
      if (o->strict && disagreements > 0)
        throw std::runtime_error(fmt::format("repro {}: {} claim(s) disagree", *which, disagreements));
    });
  }
}

}  // namespace disksched::cli
