// `disksched validate`: replay a trace of measured times on a device model and say how
// far the simulated times are from the measured ones: the demerit, the means, by class,
// the worst requests, CDFs. DiskSim validate traces are replayed closed at depth 1, as
// DiskSim does; traces measured on running systems (srt, msr, blkparse) open, at their
// own issue times, through a drive queue as deep as the trace's (validate_replay.hpp).
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "bench/experiments/trace/trace_reader.hpp"
#include "bench/validate/validate_replay.hpp"
#include "common/spec.hpp"
#include "predictor/disk_model.hpp"
#include "predictor/import/disksim_import.hpp"
#include "tools/commands.hpp"
#include "tools/plot.hpp"
#include "common/regular_file.hpp"

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
  std::optional<std::uint32_t> device;  // the one device of a trace that has several
  OpenReplayOptions open;
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

// The formats whose traces carry measured times; each replayed closed (validate) or open.
const std::vector<std::string> kMeasuredFormats = {"validate", "srt", "msr", "blkparse"};

// What is compared, per format, for the header and --help.
std::string_view measured_what(std::string_view format) {
  if (format == "srt") return "stop - start: sent to the disk -> completed (the driver's queue left out)";
  if (format == "msr") return "ResponseTime: issue -> completion at the host";
  if (format == "blkparse") return "C - D: dispatch to the driver -> completion";
  return "access time: issue -> completion at the drive";
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

// The one device of the trace, or only `device`'s requests; several without --device
// are refused (one model is one drive).
TraceData one_device(TraceData t, const std::optional<std::uint32_t>& device) {
  std::set<std::uint32_t> devices;
  for (const auto& r : t.records) devices.insert(r.device);
  if (!device) {
    if (devices.size() > 1)
      throw std::invalid_argument(fmt::format(
          "{}: the trace has requests for {} devices ({}); choose one with --device N",
          t.path, devices.size(), fmt::join(devices, ", ")));
    return t;
  }
  if (!devices.contains(*device))
    throw std::invalid_argument(fmt::format("--device {}: the trace has no requests for it "
                                            "(devices: {})", *device, fmt::join(devices, ", ")));
  std::erase_if(t.records, [&](const TraceRecord& r) { return r.device != *device; });
  return t;
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
          {"completion_ms", s.cost.completion_ms},
          {"origin", std::string(origin_name(s.origin))},
          {"simulated_wait_ms", s.simulated_wait_ms},
          {"in_flight", s.in_flight}};
}

// Every request, for the plot and for the user: OUT.png writes OUT.csv beside it.
std::string write_samples_csv(const std::string& png, const std::vector<ValidateSample>& samples) {
  const std::string csv = png.substr(0, png.size() - 4) + ".csv";
  std::ostringstream f;
  f << "request,op,flag,block,blocks,issue_ms,measured_ms,simulated_ms,origin,in_flight\n";
  for (const auto& s : samples)
    f << fmt::format("{},{},{},{},{},{:.6f},{:.6f},{:.6f},{},{}\n", s.index, op_name(s.op),
                     buffer_flag_name(s.buffer), s.lba, s.blocks, s.issue_ms, s.measured_ms,
                     s.simulated_ms, origin_name(s.origin), s.in_flight);
  try {
    replace_file(csv, f.str());
  } catch (const FileError& e) {
    throw std::runtime_error(fmt::format("--plot: {}", e.what()));
  }
  return csv;
}

void print_human(const std::string& header, const ValidateClass& all,
                 const std::vector<ValidateClass>& classes,
                 const std::vector<ValidateSample>& worst) {
  std::cout << header;
  std::cout << fmt::format("{:<16} {:>8} {:>12} {:>13} {:>11} {:>10} {:>9}\n", "class", "requests",
                           "measured ms", "simulated ms", "demerit ms", "% of mean", "sim hits");
  auto row = [](const ValidateClass& c) {
    std::cout << fmt::format("{:<16} {:>8} {:>12.3f} {:>13.3f} {:>11.3f} {:>9.2f}% {:>9}\n", c.name,
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
  std::cout << fmt::format("{:>8} {:>2} {:<9} {:>10} {:>6} {:>10} {:>12} {:>13} {:>9} {:>4}  {}\n",
                           "request", "op", "flag", "block", "blocks", "cyl:head", "measured ms",
                           "simulated ms", "diff ms", "sim", "simulated = seek + rotation + transfer + rest");
  for (const auto& s : worst)
    std::cout << fmt::format(
        "{:>8} {:>2} {:<9} {:>10} {:>6} {:>10} {:>12.3f} {:>13.3f} {:>+9.3f} {:>4}  {:.3f} + {:.3f} + "
        "{:.3f} + {:.3f}{}\n",
        s.index, s.op == Op::Read ? "R" : "W",
        s.buffer != BufferFlag::None ? buffer_flag_name(s.buffer) : origin_name(s.origin), s.lba, s.blocks,
        fmt::format("{}:{}", s.cylinder, s.head), s.measured_ms, s.simulated_ms,
        s.simulated_ms - s.measured_ms, s.simulated_hit ? "Hit" : "Miss",
        s.cost.seek_ms, s.cost.rotation_ms, s.cost.transfer_ms,
        s.cost.overhead_ms + s.cost.completion_ms,
        s.simulated_wait_ms > 0 ? fmt::format(" + {:.3f} waiting", s.simulated_wait_ms) : "");
}

// The comparison of every measured request, its classes and the replay, one form for both.
struct Compared {
  std::vector<ValidateSample> samples;
  std::vector<ValidateClass> classes;
  std::string header;  // the human form's first lines
  json replay;         // the same for --json
};

Compared compare_closed(const DeviceModel& model, const TraceData& trace) {
  Compared c;
  c.samples = replay_validate(model, trace);
  c.classes = compare_by_class(c.samples);
  c.header = fmt::format("validate: {} ({} requests) on {}, closed at depth 1\n", trace.path,
                         c.samples.size(), model.name());
  c.replay = {{"replay", "closed"}, {"depth", 1}};
  return c;
}

Compared compare_open(const DeviceModel& model, const TraceData& trace, const Options& o) {
  OpenReplay r;
  try {
    r = replay_open(model, trace, o.open);
  } catch (const SpecError& e) {
    throw std::invalid_argument(fmt::format("--firmware '{}': {}", o.open.firmware, e.what()));
  }
  Compared c;
  c.samples = r.samples;
  c.classes = compare_by_op_and_origin(c.samples);
  c.header = fmt::format(
      "validate: {} ({} requests, {} with measured times) on {}, open at the trace's own issue "
      "times, firmware {}, drive queue depth {} (the trace had at most {} in flight at the "
      "device, {:.2f} on average at an issue)\n"
      "compared: measured {} vs simulated issue -> completion of the same request, waiting "
      "behind earlier ones included\n",
      trace.path, trace.records.size(), r.samples.size(), model.name(), o.open.firmware, r.depth,
      r.depth_max, r.depth_mean, measured_what(trace.format));
  c.replay = {{"replay", "open"},         {"depth", r.depth},
              {"depth_max", r.depth_max}, {"depth_mean", r.depth_mean},
              {"firmware", o.open.firmware}, {"unmeasured", r.unmeasured},
              {"measured", std::string(measured_what(trace.format))}};
  return c;
}

void run(const Options& o) {
  if (std::find(kMeasuredFormats.begin(), kMeasuredFormats.end(), o.format) == kMeasuredFormats.end())
    throw std::invalid_argument(fmt::format(
        "--format '{}': the format carries no measured times; validate reads {} (validate: "
        "DiskSim's validate traces, replayed closed at depth 1; the others open at their own "
        "times)", o.format, fmt::join(kMeasuredFormats, ", ")));
  if (o.format == "validate" && (o.open.depth > 0 || o.open.firmware != "fcfs"))
    throw std::invalid_argument(
        "--depth and --firmware are for srt, msr and blkparse traces; DiskSim's validate traces "
        "are replayed closed at depth 1, as DiskSim does");
  if (!o.plot.empty() && (o.plot.size() < 5 || o.plot.substr(o.plot.size() - 4) != ".png"))
    throw std::invalid_argument(fmt::format("--plot '{}': expected a file name ending in .png",
                                            o.plot));
  const auto model = model_of(o);
  const TraceData trace = one_device(read_trace(o.format, o.trace), o.device);
  for (const auto& n : trace.notes) std::cerr << "note: " << n << "\n";
  if (trace.records.empty()) throw std::invalid_argument(o.trace + ": the trace has no requests");
  if (o.format != "validate" && trace.measured_records() == 0)
    throw std::invalid_argument(fmt::format(
        "{}: no request carries measured times{}", o.trace,
        o.format == "blkparse" ? " (no D event has its C event in the trace)" : ""));
  const Compared cmp = o.format == "validate" ? compare_closed(*model, trace)
                                               : compare_open(*model, trace, o);
  const auto& samples = cmp.samples;
  const ValidateClass all = compare("all", samples);
  const auto& classes = cmp.classes;
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
    j["format"] = o.format;
    j.update(cmp.replay);
    j["classes"] = json::array();
    for (const auto& c : classes) j["classes"].push_back(class_json(c));
    j["worst"] = json::array();
    for (const auto& s : worst) j["worst"].push_back(sample_json(s));
    if (!o.plot.empty()) j["plot"] = o.plot;
    std::cout << j.dump(2) << "\n";
    return;
  }
  print_human(cmp.header, all, classes, worst);
  if (!o.plot.empty())
    std::cout << fmt::format("plot: {} (each request: {}.csv)\n", o.plot,
                             o.plot.substr(0, o.plot.size() - 4));
}

}  // namespace

void add_validate_commands(CLI::App& app) {
  auto o = std::make_shared<Options>();
  auto* v = app.add_subcommand(
      "validate",
      "Replay a trace of measured times (DiskSim validate, srt, msr, blkparse) on a model and "
      "compare, request for request");
  v->footer(
      "Traces and what is compared, per request, measured against simulated:\n"
      "  validate  DiskSim 4.0's valid/*.trace: 'R|W flag block blocks access_us nextinter_us' a "
      "line, 512-byte blocks. Replayed as DiskSim does: closed at depth 1, each request issued "
      "nextinter after the previous one completed, on the emulated device (no jitter). Access "
      "time: issue at the drive -> completion; simulated, at depth 1, the device's service time "
      "(controller overhead + seek + rotational wait + media or bus transfer + completion "
      "overhead). Where reads say both Hit and Miss (whether the drive's buffer served them) "
      "the reads are split by it; Doub/Trip on writes are shown, not interpreted.\n"
      "  srt       HP SRT 1.3: each record's start and stop (us after the enqueue); measured: "
      "stop - start, sent to the disk -> completed. The driver's own queue (start) is left out: "
      "its order was the driver's, not ours to guess.\n"
      "  msr       MSR Cambridge CSV: measured: ResponseTime, issue -> completion at the host "
      "(queueing at the device included when several were in flight). These are RAID volumes, "
      "not single disks.\n"
      "  blkparse  blkparse text: each D (dispatch) event paired with the next C (completion) "
      "of the same device and extent; measured: C - D. D events without their C are replayed, "
      "not compared.\n"
      "srt, msr and blkparse are replayed open: each request reaches the drive at its own "
      "measured issue time (srt: enqueue + start; msr: its timestamp; blkparse: its D), in that "
      "order, through a drive queue as deep as the most requests the trace had in flight at the "
      "device (--depth), served first come first served (--firmware). Simulated: the same "
      "request's issue -> completion there, waiting behind the requests before it included, so "
      "with several in flight measured response is set beside simulated response. Classes: by "
      "op, then by op and origin where the trace says who waits (srt: sync, async, readahead; "
      "blkparse: sync, async, meta, readahead). A trace of several devices needs --device.\n"
      "Demerit: the RMS horizontal distance between the measured and the simulated time "
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
  v->add_option("--trace", o->trace, "Trace of measured times")->required();
  v->add_option("--format", o->format, "Trace format: validate, srt, msr or blkparse")
      ->capture_default_str();
  v->add_option_function<std::uint32_t>(
      "--device", [o](std::uint32_t d) { o->device = d; },
      "The device whose requests to replay, in a trace of several (the trace's "
                "device number: srt's disk, msr's DiskNumber, blkparse's (major << 20) | minor)");
  v->add_option("--depth", o->open.depth,
                "srt, msr, blkparse: the drive queue's depth (default: the most the trace had in "
                "flight at the device)")
      ->check(CLI::PositiveNumber);
  v->add_option("--firmware", o->open.firmware,
                "srt, msr, blkparse: the drive's policy over its queue, a scheduler spec")
      ->capture_default_str();
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
