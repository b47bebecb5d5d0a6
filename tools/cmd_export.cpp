// `disksched export FORMAT PROFILE`: the drive's cost model for the tools that describe a
// drive by a few figures (iocost, mClock, Seastar, fio). The file or line the tool reads
// goes to stdout; how each figure was measured and the linear model's error against the
// simulator at 1, 8 and 32 in flight go to stderr (or all of it with --json).
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "bench/costmodel/cost_export.hpp"
#include "predictor/datasheet_profiles.hpp"
#include "tools/commands.hpp"

namespace disksched::cli {
namespace {

struct Options {
  std::string format;
  std::string model;
  std::string drive_queue = "auto";
  ExportOptions out;
  bool json = false;
  bool quiet = false;
};

// A drive of today holds 32 commands and orders them itself (NCQ); a profile of an older
// drive, or a JSON profile, serves in order unless told.
unsigned drive_queue_of(const Options& o) {
  if (o.drive_queue == "auto") return datasheet_builtin(o.model) ? 32 : 1;
  try {
    std::size_t used = 0;
    const unsigned long v = std::stoul(o.drive_queue, &used);
    if (used == o.drive_queue.size() && v >= 1 && v <= 256) return static_cast<unsigned>(v);
  } catch (const std::exception&) {
  }
  throw std::invalid_argument(fmt::format(
      "--drive-queue {}: expected 'auto' or a number of commands from 1 to 256", o.drive_queue));
}

void print_fit(const ExportResult& r) {
  if (r.fit.empty()) return;
  std::cerr << "the exported linear model against the simulator (IOPS; error = model / sim - 1):\n";
  std::cerr << fmt::format("  {:<16} {:>24} {:>24} {:>24}\n", "load", "QD1 sim / model / err",
                           "QD8 sim / model / err", "QD32 sim / model / err");
  std::map<std::size_t, std::pair<double, int>> by_depth;  // sum of |error|, count
  std::string line;
  for (std::size_t i = 0; i < r.fit.size(); ++i) {
    const FitRow& f = r.fit[i];
    if (f.load.depth == 1) {
      Load base = f.load;
      const std::string name = base.name();
      line = fmt::format("  {:<16}", name.substr(0, name.rfind(' ')));
    }
    line += fmt::format(" {:>8.1f} {:>7.1f} {:>+6.0f}%", f.sim.iops, f.model_iops, 100.0 * f.error());
    auto& d = by_depth[f.load.depth];
    d.first += std::fabs(f.error());
    d.second += 1;
    if (i + 1 == r.fit.size() || r.fit[i + 1].load.depth == 1) std::cerr << line << "\n";
  }
  std::cerr << "  mean |error|:";
  for (const auto& [depth, d] : by_depth)
    std::cerr << fmt::format("  QD{} {:.0f}%", depth, 100.0 * d.first / d.second);
  std::cerr << "\n";
}

void run(Options& o) {
  const ExportFormat format = parse_export_format(o.format);
  auto model = load_model(o.model);
  o.out.model_name = o.model;
  o.out.probe.drive_queue = drive_queue_of(o);
  if (o.out.probe.requests < 100)
    throw std::invalid_argument(fmt::format("--requests {}: expected at least 100", o.out.probe.requests));
  const ExportResult r = export_cost_model(*model, format, o.out);
  if (o.json) {
    auto j = r.json();
    j["format"] = export_format_name(format);
    j["model"] = o.model;
    j["drive_queue"] = o.out.probe.drive_queue;
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::cout << r.text << std::flush;
  if (!o.quiet) print_fit(r);
}

}  // namespace

void add_export_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  auto* c = app.add_subcommand(
      "export",
      "The drive's cost model for iocost (io.cost.model), Ceph mClock, Seastar "
      "(io_properties.yaml) or a fio job file, from the simulator on the model");
  c->add_option("FORMAT", o->format, "iocost, mclock, seastar or fio")->required();
  c->add_option("MODEL", o->model, "device model: " + builtin_models_text() + ", or a .json profile")
      ->required();
  c->add_option("--drive-queue", o->drive_queue,
                "commands the drive holds and orders itself (auto: 32 for a drive of today's "
                "built-in profile, else 1)")
      ->capture_default_str();
  c->add_option("--dev", o->out.device, "iocost: the disk's MAJ:MIN (lsblk -no MAJ:MIN /dev/sdX)")
      ->capture_default_str();
  c->add_option("--filename", o->out.filename, "fio: the drive the job file measures")
      ->capture_default_str();
  c->add_option("--mountpoint", o->out.mountpoint, "seastar: the file system's mount point")
      ->capture_default_str();
  c->add_option("--requests", o->out.probe.requests, "measured requests per load")
      ->capture_default_str();
  c->add_option("--seed", o->out.probe.seed, "random seed")->capture_default_str();
  c->add_flag("--json", o->json, "everything as JSON on stdout");
  c->add_flag("-q,--quiet", o->quiet, "no error table on stderr");
  c->callback([o] { run(*o); });
}

}  // namespace disksched::cli
