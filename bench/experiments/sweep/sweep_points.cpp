#include "bench/experiments/sweep/sweep_points.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "bench/experiments/sweep/experiment.hpp"
#include "bench/experiments/sweep/job_pool.hpp"
#include "common/regular_file.hpp"

namespace disksched {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Doubles go through JSON exactly (nlohmann prints the shortest round-trip form);
// JSON has no NaN or infinity, so those are strings.
json num(double v) {
  if (std::isfinite(v)) return v;
  return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
}

double num_of(const json& j) {
  if (j.is_number()) return j.get<double>();
  const auto s = j.get<std::string>();
  if (s == "nan") return NAN;
  if (s == "inf") return INFINITY;
  if (s == "-inf") return -INFINITY;
  throw std::runtime_error(fmt::format("'{}' is not a number", s));
}

// The RunSummary fields, named once for both directions.
template <class F>
void each_field(RunSummary& r, F&& f) {
  f("throughput_per_s", r.throughput_per_s);
  f("mean_ms", r.mean_ms);
  f("std_ms", r.std_ms);
  f("sq_cv", r.sq_cv);
  f("p95_ms", r.p95_ms);
  f("p95_hist_ms", r.p95_hist_ms);
  f("p99_ms", r.p99_ms);
  f("max_ms", r.max_ms);
  f("mean_wait_ms", r.mean_wait_ms);
  f("mean_delay_ms", r.mean_delay_ms);
  f("mean_service_ms", r.mean_service_ms);
  f("mean_queue_len", r.mean_queue_len);
  f("mean_seek_ms", r.mean_seek_ms);
  f("mean_rotation_ms", r.mean_rotation_ms);
  f("mean_transfer_ms", r.mean_transfer_ms);
  f("mean_travel_ms", r.mean_travel_ms);
  f("mean_overhead_ms", r.mean_overhead_ms);
  f("utilization", r.utilization);
}

json run_to_json(RunSummary r) {
  json j;
  j["requests"] = r.requests;
  j["saturated"] = r.saturated;
  each_field(r, [&](const char* k, double& v) { j[k] = num(v); });
  return j;
}

// A point file is a few hundred bytes; a plan a few kilobytes per scheduler.
constexpr std::size_t kPointMaxBytes = 64 * 1024;
constexpr std::size_t kPlanMaxBytes = 16 * 1024 * 1024;

// The 1-based line of byte `at` of `text`.
std::size_t line_of_byte(std::string_view text, std::size_t at) {
  at = std::min(at, text.size());
  return 1 + static_cast<std::size_t>(
                 std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

// The line where `"key":` first appears: a point file has each key once, on a line of
// its own; the first line when it is not there.
std::size_t line_of_key(std::string_view text, std::string_view key) {
  const auto at = text.find(fmt::format("\"{}\":", key));
  return at == std::string_view::npos ? 1 : line_of_byte(text, at);
}

// A point's result file, if it is there and belongs to this plan's point.
std::optional<RunSummary> read_point(const SweepPlan& plan, const std::string& dir,
                                     const ManifestPoint& p) {
  const std::string path = point_path(dir, p.id);
  std::optional<std::string> text;
  try {
    text = read_regular_file(path, kPointMaxBytes);
  } catch (const FileError& e) {
    throw std::runtime_error(fmt::format(
        "{} (a point file is a regular file `disksched sweep run` writes; remove this one to "
        "rerun the point)", e.what()));
  }
  if (!text) return std::nullopt;
  return parse_point(*text, path, point_key(plan.spec, p), p);
}

bool chained(const SweepSpec& s) { return s.values.empty() && s.stop_at_saturation; }

// In a rate sweep that stops at saturation, a point is not needed once some lower
// rate of its scheduler saturated: the single-process sweep never runs it.
bool unneeded(const SweepPlan& plan, const std::string& dir, const ManifestPoint& p) {
  if (!chained(plan.spec)) return false;
  const std::size_t reps = plan.spec.reps;
  const std::size_t first = p.series * plan.xs.size() * reps;
  for (std::size_t xi = 0; xi < p.xi; ++xi)
    for (std::size_t rep = 0; rep < reps; ++rep) {
      auto r = read_point(plan, dir, plan.points[first + xi * reps + rep]);
      if (r && r->saturated) return true;
    }
  return false;
}

}  // namespace

std::string point_key(const SweepSpec& spec, const ManifestPoint& p) {
  // Everything that decides the point's result, as canonical JSON (keys sorted, doubles
  // in their shortest exact form), hashed with 64-bit FNV-1a: a key of the content,
  // not a defence against forgery.
  const json whole = spec_to_json(spec);
  const json definition = {{"format", 1},          {"model", whole.at("model")},
                           {"workload", whole.at("workload")}, {"sim", whole.at("sim")},
                           {"sched", p.sched},     {"x", num(p.x)},
                           {"rate", num(p.rate)},  {"rep", p.rep},
                           {"seed", p.seed}};
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const unsigned char c : definition.dump()) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return fmt::format("{:016x}", h);
}

std::string point_text(const SweepSpec& spec, const ManifestPoint& p, const RunSummary& r) {
  const json j = {{"key", point_key(spec, p)}, {"id", p.id},     {"sched", p.sched},
                  {"x", num(p.x)},             {"rate", num(p.rate)}, {"rep", p.rep},
                  {"seed", p.seed},            {"run", run_to_json(r)}};
  return j.dump(2) + "\n";
}

RunSummary parse_point(std::string_view text, const std::string& path, const std::string& key,
                       const ManifestPoint& p) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw PointFileError(fmt::format("{}:{}: not a point result (not JSON: {}); remove it to "
                                     "rerun the point",
                                     path, line_of_byte(text, e.byte ? e.byte - 1 : 0), e.what()));
  } catch (const json::exception& e) {  // a number beyond a double (1e400)
    throw PointFileError(fmt::format("{}: not a point result ({}); remove it to rerun the point",
                                     path, e.what()));
  }
  const auto bad = [&](std::string_view k, const std::string& what) {
    return PointFileError(fmt::format("{}:{}: {}: {}; the file was changed after `sweep run` "
                                      "wrote it: remove it to rerun the point",
                                      path, line_of_key(text, k), k, what));
  };
  if (!j.is_object()) throw bad("(top)", "expected a JSON object");
  const auto stored = j.find("key");
  if (stored == j.end() || !stored->is_string() || *stored != key)
    throw PointFileError(fmt::format(
        "{}:{}: the result of another plan, not this plan's point {} ({}, rate {}, seed {}): "
        "its key is {}, this point's {}. The directory holds point files of an earlier plan: "
        "remove the stale point files (or the whole points/ directory) to run this plan's "
        "points, or plan into a new directory",
        path, line_of_key(text, "key"), p.id, p.sched, p.rate, p.seed,
        stored == j.end() ? std::string("missing") : stored->dump(), key));
  // The key covers these; a file whose key matches and whose fields do not was edited.
  const json want = {{"id", p.id},     {"sched", p.sched}, {"x", num(p.x)},
                     {"rate", num(p.rate)}, {"rep", p.rep}, {"seed", p.seed}};
  for (const auto& [k, v] : want.items())
    if (!j.contains(k) || j.at(k) != v)
      throw bad(k, fmt::format("{}, the plan's point says {}", j.contains(k) ? j.at(k).dump() : "missing",
                               v.dump()));
  const auto run = j.find("run");
  if (run == j.end() || !run->is_object()) throw bad("run", "expected an object of results");
  RunSummary r;
  const auto requests = run->find("requests");
  if (requests == run->end() || !requests->is_number_unsigned())
    throw bad("requests", "expected a count (an integer >= 0)");
  r.requests = requests->get<std::size_t>();
  const auto saturated = run->find("saturated");
  if (saturated == run->end() || !saturated->is_boolean())
    throw bad("saturated", "expected true or false");
  r.saturated = saturated->get<bool>();
  each_field(r, [&](const char* k, double& v) {
    const auto f = run->find(k);
    if (f == run->end()) throw bad("run", fmt::format("{} is missing", k));
    // Every result is a time, a rate, a count or a fraction: never negative. "nan" is
    // what a run without requests writes; "inf" what an unbounded one would.
    bool ok = false;
    if (f->is_number()) {
      v = f->get<double>();
      ok = v >= 0.0;
    } else if (f->is_string() && (*f == "nan" || *f == "inf")) {
      v = num_of(*f);
      ok = true;
    }
    if (!ok)
      throw bad(k, fmt::format("{}: expected a number >= 0 (or \"nan\", \"inf\")", f->dump()));
  });
  return r;
}

SweepPlan plan_sweep(const SweepSpec& spec) {
  Sweep check(spec);  // the same validation as a single-process sweep
  SweepPlan plan;
  plan.spec = spec;
  const bool param = !spec.values.empty();
  plan.xs = param ? spec.values : spec.rates;
  if (!param) std::sort(plan.xs.begin(), plan.xs.end());
  for (std::size_t s = 0; s < spec.scheds.size(); ++s)
    for (std::size_t xi = 0; xi < plan.xs.size(); ++xi)
      for (std::size_t rep = 0; rep < spec.reps; ++rep) {
        ManifestPoint p;
        p.id = plan.points.size();
        p.series = s;
        p.xi = xi;
        p.x = plan.xs[xi];
        p.rate = param ? spec.rates[0] : p.x;
        p.sched = param ? substitute_value(spec.scheds[s], p.x) : spec.scheds[s];
        p.rep = rep;
        p.seed = replication_seed(spec.seed, rep);
        plan.points.push_back(std::move(p));
      }
  return plan;
}

json spec_to_json(const SweepSpec& s) {
  json rates = json::array(), values = json::array();
  for (double r : s.rates) rates.push_back(num(r));
  for (double v : s.values) values.push_back(num(v));
  return {{"model", s.model},
          {"scheds", s.scheds},
          {"workload", s.workload},
          {"rates", rates},
          {"values", values},
          {"param", s.param},
          {"reps", s.reps},
          {"seed", s.seed},
          {"stop_at_saturation", s.stop_at_saturation},
          {"sim",
           {{"depth", s.cfg.depth},
            {"warmup", s.cfg.warmup},
            {"measured", s.cfg.measured},
            {"keep_warm_max", s.cfg.keep_warm_max},
            {"max_queue", s.cfg.max_queue},
            {"max_growth", num(s.cfg.max_growth)},
            {"keep_records", s.cfg.keep_records}}}};
}

SweepSpec spec_from_json(const json& j) {
  SweepSpec s;
  s.model = j.at("model").get<std::string>();
  s.scheds = j.at("scheds").get<std::vector<std::string>>();
  s.workload = j.at("workload").get<std::string>();
  for (const auto& r : j.at("rates")) s.rates.push_back(num_of(r));
  for (const auto& v : j.at("values")) s.values.push_back(num_of(v));
  s.param = j.at("param").get<std::string>();
  s.reps = j.at("reps").get<std::size_t>();
  s.seed = j.at("seed").get<std::uint64_t>();
  s.stop_at_saturation = j.at("stop_at_saturation").get<bool>();
  const json& c = j.at("sim");
  s.cfg.depth = c.at("depth").get<std::size_t>();
  s.cfg.warmup = c.at("warmup").get<std::uint64_t>();
  s.cfg.measured = c.at("measured").get<std::uint64_t>();
  s.cfg.keep_warm_max = c.at("keep_warm_max").get<std::uint64_t>();
  s.cfg.max_queue = c.at("max_queue").get<std::size_t>();
  s.cfg.max_growth = num_of(c.at("max_growth"));
  s.cfg.keep_records = c.at("keep_records").get<bool>();
  return s;
}

void write_plan(const SweepPlan& plan, const std::string& dir) {
  fs::create_directories(dir + "/points");
  const json spec = spec_to_json(plan.spec);
  const std::string spec_path = dir + "/sweep.json";
  if (const auto text = read_regular_file(spec_path, kPlanMaxBytes)) {
    json old;
    try {
      old = json::parse(*text);
    } catch (const json::exception&) {
    }
    if (old != spec)
      throw std::runtime_error(fmt::format(
          "'{}' already holds another sweep plan (sweep.json differs); plan into a new "
          "directory, or remove the old plan first (sweep.json, manifest.tsv and points/)",
          dir));
  }
  std::string manifest = "id\tseries\tsched\tx\trate\trep\tseed\n";
  for (const auto& p : plan.points)
    manifest += fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}\n", p.id, plan.spec.scheds[p.series],
                            p.sched, p.x, p.rate, p.rep, p.seed);
  replace_file(spec_path, spec.dump(2) + "\n");
  replace_file(dir + "/manifest.tsv", manifest);
}

SweepPlan read_plan(const std::string& dir) {
  const std::string path = dir + "/sweep.json";
  const auto text = read_regular_file(path, kPlanMaxBytes);
  if (!text)
    throw std::runtime_error(fmt::format(
        "'{}' holds no sweep plan ({} is missing); write one with `disksched sweep ... -o {} --plan`",
        dir, path, dir));
  try {
    return plan_sweep(spec_from_json(json::parse(*text)));
  } catch (const json::exception& e) {
    throw std::runtime_error(fmt::format("{}: not a sweep plan ({})", path, e.what()));
  }
}

Shard parse_shard(const std::string& text) {
  const auto bad = [&] {
    return std::invalid_argument(fmt::format(
        "--shard '{}': expected I/N with 0 <= I < N, e.g. 0/4 for the first of four shards", text));
  };
  const auto slash = text.find('/');
  if (slash == std::string::npos) throw bad();
  Shard s;
  try {
    std::size_t used = 0;
    const std::string a = text.substr(0, slash), b = text.substr(slash + 1);
    s.index = std::stoul(a, &used);
    if (used != a.size() || a.empty() || a[0] == '-') throw bad();
    s.count = std::stoul(b, &used);
    if (used != b.size() || b.empty() || b[0] == '-') throw bad();
  } catch (const std::logic_error&) {
    throw bad();
  }
  if (s.count == 0 || s.index >= s.count) throw bad();
  return s;
}

std::vector<std::size_t> shard_ids(const SweepPlan& plan, Shard shard) {
  std::vector<std::size_t> ids;
  for (std::size_t id = shard.index; id < plan.points.size(); id += shard.count) ids.push_back(id);
  return ids;
}

std::string point_path(const std::string& dir, std::size_t id) {
  return fmt::format("{}/points/{}.json", dir, id);
}

std::size_t run_points(const SweepPlan& plan, const std::string& dir,
                       const std::vector<std::size_t>& ids, std::size_t threads, bool progress) {
  for (std::size_t id : ids)
    if (id >= plan.points.size())
      throw std::invalid_argument(fmt::format("--point {}: the manifest has points 0 to {}", id,
                                              plan.points.size() - 1));
  fs::create_directories(dir + "/points");
  const Workload workload = Workload::parse(plan.spec.workload);
  std::atomic<std::size_t> ran{0};
  JobPool pool(threads, "sweep points", ids.size(), progress);
  for (std::size_t id : ids) {
    pool.submit([&, id](Worker& w) {
      const ManifestPoint& p = plan.points[id];
      if (read_point(plan, dir, p) || unneeded(plan, dir, p)) return;
      const RunSummary r = run_once(w.model(plan.spec.model), workload, p.sched, p.rate, p.seed,
                                    plan.spec.cfg);
      replace_file(point_path(dir, id), point_text(plan.spec, p, r));
      ++ran;
    });
  }
  pool.wait();
  return ran;
}

SweepResult merge_points(const SweepPlan& plan, const std::string& dir) {
  const SweepSpec& spec = plan.spec;
  SweepResult r;
  r.spec = spec;
  r.workload = Workload::parse(spec.workload).spec();
  r.param_sweep = !spec.values.empty();
  r.series = spec.scheds;
  std::vector<std::size_t> missing;
  const std::size_t reps = spec.reps;
  for (std::size_t s = 0; s < spec.scheds.size(); ++s) {
    bool stopped = false;  // a lower rate saturated: the rest were skipped
    for (std::size_t xi = 0; xi < plan.xs.size(); ++xi) {
      const ManifestPoint& first = plan.points[(s * plan.xs.size() + xi) * reps];
      SweepPoint p;
      p.series = spec.scheds[s];
      p.sched = first.sched;
      p.x = first.x;
      p.rate = first.rate;
      if (!stopped) {
        std::vector<RunSummary> runs;
        for (std::size_t rep = 0; rep < reps; ++rep) {
          if (auto run = read_point(plan, dir, plan.points[first.id + rep]))
            runs.push_back(*run);
          else
            missing.push_back(first.id + rep);
        }
        if (runs.size() == reps) {
          p.ran = true;
          p.result.sched = p.sched;
          p.result.rate = p.rate;
          p.result.runs = std::move(runs);
          p.result.stats = replicate(p.result.runs);
          stopped = chained(spec) && p.result.stats.saturated;
        } else {
          stopped = chained(spec) && std::any_of(runs.begin(), runs.end(),
                                                 [](const RunSummary& x) { return x.saturated; });
        }
      }
      r.points.push_back(std::move(p));
    }
  }
  if (!missing.empty()) {
    std::string list;
    for (std::size_t i = 0; i < std::min<std::size_t>(missing.size(), 10); ++i)
      list += (i ? " " : "") + std::to_string(missing[i]);
    throw std::runtime_error(fmt::format(
        "{} point(s) of '{}' have no result yet (ids {}{}); run them with `disksched sweep run {}`",
        missing.size(), dir, list, missing.size() > 10 ? " ..." : "", dir));
  }
  return r;
}

}  // namespace disksched
