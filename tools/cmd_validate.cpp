// `disksched validate`: replay a DiskSim validate trace (measured access times of a real
// drive) on a device model, closed at depth 1, and say how far the simulated access times
// are from the measured ones: the demerit, the means, by class, the worst requests, CDFs.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench/sim/trace/trace_reader.hpp"
#include "bench/validate/validate_replay.hpp"
#include "predictor/disk_model.hpp"
#include "predictor/import/disksim_import.hpp"
#include "tools/commands.hpp"
#include "tools/plot.hpp"

namespace disksched::cli {
namespace {

using nlohmann::json;

// DiskSim's validation script and manual: within 2% of the mean access time is acceptable.
constexpr double kBarPercentOfMean = 2.0;

struct Options {
  std::string profile;
  std::string trace;
  std::string format = "validate";
  std::string plot;
  std::size_t worst = 10;
  bool json = false;
  std::vector<std::string> set;  // DiskSim overrides, for a profile read from DiskSim's files
};

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The model: a profile or built-in, or a drive imported from DiskSim's files (a .parv,
// .diskspecs or .model) with the overrides given, as `model import --set` reads it.
std::unique_ptr<DeviceModel> model_of(const Options& o) {
  const bool disksim = ends_with(o.profile, ".parv") || ends_with(o.profile, ".diskspecs") ||
                       ends_with(o.profile, ".model");
  if (!disksim) {
    if (!o.set.empty())
      throw std::invalid_argument(fmt::format(
          "--set '{}': overrides apply to DiskSim files (--profile NAME.parv, .diskspecs or "
          ".model), not to {}",
          o.set.front(), o.profile));
    return load_model(o.profile);
  }
  std::vector<disksim::Override> overrides;
  for (const auto& spec : o.set) overrides.push_back(disksim::parse_override(spec));
  const disksim::DiskSimImport r = disksim::import_disksim(o.profile, "", overrides);
  for (const auto& line : r.ignored) std::cerr << "validate: ignored (not modelled): " << line << "\n";
  for (const auto& note : r.notes) std::cerr << "validate: note: " << note << "\n";
  return std::make_unique<DiskModel>(r.profile);
}

double percent_of(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

json class_json(const ValidateClass& c) {
  return {{"class", c.name},
          {"requests", c.requests},
          {"mean_measured_ms", c.mean_measured_ms},
          {"mean_simulated_ms", c.mean_simulated_ms},
          {"demerit_ms", c.demerit_ms},
          {"demerit_grid_ms", c.demerit_grid_ms},
          {"demerit_histogram_ms", c.demerit_histogram_ms},
          {"demerit_percent_of_mean", percent_of(c.demerit_ms, c.mean_measured_ms)},
          {"simulated_hits", c.simulated_hits}};
}

json sample_json(const ValidateSample& s) {
  return {{"request", s.index},
          {"op", std::string(op_name(s.op))},
          {"flag", std::string(buffer_flag_name(s.buffer))},
          {"block", s.lba},
          {"blocks", s.blocks},
          {"issue_ms", s.issue_ms},
          {"measured_ms", s.measured_ms},
          {"simulated_ms", s.simulated_ms},
          {"simulated_hit", s.simulated_hit},
          {"cylinder", s.cylinder},
          {"head", s.head},
          {"overhead_ms", s.cost.overhead_ms},
          {"seek_ms", s.cost.seek_ms},
          {"rotation_ms", s.cost.rotation_ms},
          {"transfer_ms", s.cost.transfer_ms},
          {"completion_ms", s.cost.completion_ms}};
}

// Every request, for the plot and for the user: OUT.png writes OUT.csv beside it.
std::string write_samples_csv(const std::string& png, const std::vector<ValidateSample>& samples) {
  const std::string csv = png.substr(0, png.size() - 4) + ".csv";
  std::ofstream f(csv);
  if (!f) throw std::runtime_error("--plot: cannot write " + csv);
  f << "request,op,flag,block,blocks,issue_ms,measured_ms,simulated_ms\n";
  for (const auto& s : samples)
    f << fmt::format("{},{},{},{},{},{:.6f},{:.6f},{:.6f}\n", s.index, op_name(s.op),
                     buffer_flag_name(s.buffer), s.lba, s.blocks, s.issue_ms, s.measured_ms,
                     s.simulated_ms);
  if (!f) throw std::runtime_error("--plot: cannot write " + csv);
  return csv;
}

void print_human(const std::string& model_name, const TraceData& trace, const ValidateClass& all,
                 const std::vector<ValidateClass>& classes,
                 const std::vector<ValidateSample>& worst) {
  std::cout << fmt::format("validate: {} ({} requests) on {}, closed at depth 1\n", trace.path,
                           all.requests, model_name);
  std::cout << fmt::format("{:<10} {:>8} {:>12} {:>13} {:>11} {:>10} {:>9}\n", "class", "requests",
                           "measured ms", "simulated ms", "demerit ms", "% of mean", "sim hits");
  auto row = [](const ValidateClass& c) {
    std::cout << fmt::format("{:<10} {:>8} {:>12.3f} {:>13.3f} {:>11.3f} {:>9.2f}% {:>9}\n", c.name,
                             c.requests, c.mean_measured_ms, c.mean_simulated_ms, c.demerit_ms,
                             percent_of(c.demerit_ms, c.mean_measured_ms), c.simulated_hits);
  };
  row(all);
  for (const auto& c : classes) row(c);
  const double pct = percent_of(all.demerit_ms, all.mean_measured_ms);
  std::cout << fmt::format(
      "demerit {:.3f} ms ({:.3f} ms on the grid p = 0.0001..1) = {:.2f}% of the measured mean: "
      "{} the DiskSim manual's bar of {:.0f}%\n"
      "demerit {:.4f} ms as DiskSim's rms computes it (from its 1%-wide access-time buckets): "
      "the figure to set beside DiskSim's published ones\n",
      all.demerit_ms, all.demerit_grid_ms, pct, pct <= kBarPercentOfMean ? "within" : "beyond",
      kBarPercentOfMean, all.demerit_histogram_ms);
  if (worst.empty()) return;
  std::cout << fmt::format("worst {} requests by |measured - simulated|:\n", worst.size());
  std::cout << fmt::format("{:>8} {:>2} {:<4} {:>10} {:>6} {:>10} {:>12} {:>13} {:>9} {:>4}  {}\n",
                           "request", "op", "flag", "block", "blocks", "cyl:head", "measured ms",
                           "simulated ms", "diff ms", "sim", "simulated = seek + rotation + transfer + rest");
  for (const auto& s : worst)
    std::cout << fmt::format(
        "{:>8} {:>2} {:<4} {:>10} {:>6} {:>10} {:>12.3f} {:>13.3f} {:>+9.3f} {:>4}  {:.3f} + {:.3f} + "
        "{:.3f} + {:.3f}\n",
        s.index, s.op == Op::Read ? "R" : "W", buffer_flag_name(s.buffer), s.lba, s.blocks,
        fmt::format("{}:{}", s.cylinder, s.head), s.measured_ms, s.simulated_ms,
        s.simulated_ms - s.measured_ms, s.simulated_hit ? "Hit" : "Miss",
        s.cost.seek_ms, s.cost.rotation_ms, s.cost.transfer_ms,
        s.cost.overhead_ms + s.cost.completion_ms);
}

void run(const Options& o) {
  if (o.format != "validate")
    throw std::invalid_argument(fmt::format(
        "--format '{}': only 'validate' (DiskSim's validate traces) carries measured access times",
        o.format));
  if (!o.plot.empty() && (o.plot.size() < 5 || o.plot.substr(o.plot.size() - 4) != ".png"))
    throw std::invalid_argument(fmt::format("--plot '{}': expected a file name ending in .png",
                                            o.plot));
  const auto model = model_of(o);
  const TraceData trace = read_trace(o.format, o.trace);
  if (trace.records.empty()) throw std::invalid_argument(o.trace + ": the trace has no requests");
  const auto samples = replay_validate(*model, trace);
  const ValidateClass all = compare("all", samples);
  const auto classes = compare_by_class(samples);
  const auto worst = worst_requests(samples, o.worst);
  if (!o.plot.empty()) {
    const std::string csv = write_samples_csv(o.plot, samples);
    run_plot("validate_cdf.py",
             {csv, o.plot,
              fmt::format("{} on {}\ndemerit {:.3f} ms ({:.2f}% of the measured mean)",
                          std::filesystem::path(trace.path).filename().string(), model->name(),
                          all.demerit_ms,
                          percent_of(all.demerit_ms, all.mean_measured_ms))});
  }
  if (o.json) {
    json j = class_json(all);
    j.erase("class");
    j["trace"] = o.trace;
    j["profile"] = o.profile;
    j["model"] = model->name();
    j["bar_percent_of_mean"] = kBarPercentOfMean;
    j["classes"] = json::array();
    for (const auto& c : classes) j["classes"].push_back(class_json(c));
    j["worst"] = json::array();
    for (const auto& s : worst) j["worst"].push_back(sample_json(s));
    if (!o.plot.empty()) j["plot"] = o.plot;
    std::cout << j.dump(2) << "\n";
    return;
  }
  print_human(model->name(), trace, all, classes, worst);
  if (!o.plot.empty())
    std::cout << fmt::format("plot: {} (each request: {}.csv)\n", o.plot,
                             o.plot.substr(0, o.plot.size() - 4));
}

}  // namespace

void add_validate_commands(CLI::App& app) {
  auto o = std::make_shared<Options>();
  auto* v = app.add_subcommand(
      "validate",
      "Replay a DiskSim validate trace of measured access times on a model and compare");
  v->footer(
      "The trace (DiskSim 4.0's valid/*.trace): 'R|W flag block blocks access_us nextinter_us' a "
      "line, 512-byte blocks. Where reads say both Hit and Miss (whether the drive's buffer "
      "served them) the reads are split by it; Doub/Trip on writes are shown, not interpreted.\n"
      "Replay as DiskSim's: closed at depth 1, each request issued nextinter after the previous "
      "one completed, on the emulated device (no jitter).\n"
      "Access time, as measured: from the command's issue at the drive to its completion; "
      "simulated: the same on the emulated device, which at depth 1 is its service time "
      "(controller overhead + seek + rotational wait + media or bus transfer + completion "
      "overhead).\n"
      "Demerit: the RMS horizontal distance between the measured and the simulated access-time "
      "CDFs, exact on the samples (inverse CDFs linear between order statistics, integrated over "
      "p in [0, 1]); the grid form averages p = 0.0001, 0.0002, ..., 1 as DiskSim's manual "
      "defines it. DiskSim's own figures (its rms tool) come from its access-time histograms: "
      "samples truncated to whole microseconds, buckets each 1% wider than the last, the CDF "
      "joined linearly between bucket edges and read on that grid; printed too. The manual's "
      "bar: 2% of the mean access time.\n"
      "sim hits: requests the simulated drive's buffer served (a profile with a cache), to set "
      "beside the trace's Hit/Miss flags.");
  v->add_option("--profile", o->profile,
                "Device model: a profile .json (e.g. from 'disksched model import'), DiskSim files "
                "to import (NAME.parv, .diskspecs or .model) or a built-in "
                "(hp97560, fixed:ms=X, ...)")
      ->required();
  v->add_option("--trace", o->trace, "DiskSim validate trace")->required();
  v->add_option("--format", o->format, "Trace format (only: validate)")->capture_default_str();
  v->add_option("--plot", o->plot, "Write both CDFs to OUT.png (and every request to OUT.csv)");
  v->add_option("--worst", o->worst, "How many of the worst requests to list")
      ->capture_default_str();
  v->add_flag("--json", o->json, "Print JSON");
  v->add_option("--set", o->set,
                "COMPONENT:KEY=VALUE: with --profile NAME.parv (or .diskspecs, .model), DiskSim's "
                "command-line parameter override, as in 'model import --set' (repeatable)")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  v->callback([o] { run(*o); });
}

}  // namespace disksched::cli
