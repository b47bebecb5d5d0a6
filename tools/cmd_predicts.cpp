// `disksched predicts DRIVE`: does a profile measured from the host predict the drive?
// The drive (a built-in or a JSON profile) is played as diskemu plays it (its buffer,
// write cache and command queue) in virtual time; the drive steps (tools/extract/
// drive_steps.hpp) measure its cache, write cache and queue through the host's view of
// it; the geometry is extracted (--extract), given (--profile), or the truth's own
// platter. The profile so made is played the same way, and both answer the same loads:
// random 4 KiB reads at QD1 (the demerit of their access times, as `validate` computes
// it), QD32 over QD1 throughput, sequential MB/s in the outer, middle and inner zone,
// the FLUSH after 8 and 64 scattered writes.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench/validate/demerit.hpp"
#include "predictor/datasheet_profiles.hpp"
#include "predictor/disk_model.hpp"
#include "tools/commands.hpp"
#include "tools/extract/drive_steps.hpp"
#include "tools/extract/emulated_target.hpp"
#include "tools/extract/extractor.hpp"

namespace disksched::cli {
namespace {

using extract::Command;
using extract::EmulatedTarget;
using extract::ProbeResult;

struct Options {
  std::string drive;
  std::string label;    // what the table calls it (default: DRIVE)
  std::string output;   // the predicting profile, written here
  std::string profile;  // the geometry given
  bool extract = false;
  std::string drive_queue = "auto";
  int requests = 2000;
  std::uint64_t seed = 1;
  double budget_s = 300.0;
};

unsigned queue_of(const Options& o) {
  if (o.drive_queue == "auto") return datasheet_builtin(o.drive) ? 32 : 1;
  const int v = std::stoi(o.drive_queue);
  if (v < 1 || v > 256)
    throw std::invalid_argument(fmt::format("--drive-queue {}: expected 'auto' or 1 to 256", o.drive_queue));
  return static_cast<unsigned>(v);
}

void progress(const std::string& drive, const std::string& what) {
  std::fprintf(stderr, "predicts: %s: %s\n", drive.c_str(), what.c_str());
}

DiskProfile profile_of(const DeviceModel& m, const std::string& name) {
  const auto* d = dynamic_cast<const DiskModel*>(&m);
  if (!d) throw std::invalid_argument(fmt::format("{}: not a disk (no geometry to measure)", name));
  return d->profile();
}

EmulatedTarget harness(const DiskProfile& p, DriveQueueOptions q, std::uint64_t seed) {
  extract::HostPath host;
  host.seed = seed;
  return EmulatedTarget(std::make_unique<DiskModel>(p), q, host);
}

DriveQueueOptions queue_options(unsigned depth, bool reorders) {
  DriveQueueOptions q;
  q.depth = reorders ? depth : 1;
  q.policy = reorders ? "satf" : "fcfs";
  return q;
}

// What one drive (truth or prediction) answers.
struct Answers {
  std::vector<Millis> qd1_ms;  // random 4 KiB reads, issue to completion
  double iops1 = 0, iops32 = 0;
  double seq_mb_s[3] = {};     // outer, middle, inner
  Millis flush8 = 0, flush64 = 0;
};

std::vector<Command> random_reads(std::uint64_t sectors, std::uint32_t req, int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Command> v(static_cast<std::size_t>(n));
  for (Command& c : v) {
    const std::uint64_t x = std::uniform_int_distribution<std::uint64_t>(0, sectors - req - 1)(rng);
    c = Command{Op::Read, x - x % req, req};
  }
  return v;
}

double iops_of(const std::vector<ProbeResult>& r) {
  Millis first = r.front().issue_ms, last = 0;
  for (const ProbeResult& p : r) last = std::max(last, p.complete_ms);
  return static_cast<double>(r.size()) / (last - first) * 1000.0;
}

Millis flush_after(EmulatedTarget& t, int n, std::uint64_t seed) {
  const std::uint32_t req = std::max<std::uint32_t>(1, 4096 / t.sector_bytes());
  std::vector<Millis> v;
  std::mt19937_64 rng(seed);
  for (int rep = 0; rep < 5; ++rep) {
    t.flush();
    for (int i = 0; i < n; ++i) {
      const std::uint64_t x = std::uniform_int_distribution<std::uint64_t>(0, t.sectors() - req - 1)(rng);
      t.write_buffered(x - x % req, req);
    }
    const ProbeResult f = t.flush();
    v.push_back(f.complete_ms - f.issue_ms);
  }
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

Answers answer(const DiskProfile& p, DriveQueueOptions q, const Options& o) {
  Answers a;
  EmulatedTarget t = harness(p, q, o.seed);
  const std::uint32_t req = std::max<std::uint32_t>(1, 4096 / t.sector_bytes());
  const auto reads = random_reads(t.sectors(), req, o.requests, o.seed);
  const auto r1 = t.closed_loop(reads, 1);
  for (const ProbeResult& r : r1) a.qd1_ms.push_back(r.complete_ms - r.issue_ms);
  a.iops1 = iops_of(r1);
  a.iops32 = iops_of(t.closed_loop(reads, 32));
  // 32 MiB of 256 KiB reads from the start, the middle and the end of the device.
  const std::uint32_t big = std::max<std::uint32_t>(1, (256u << 10) / t.sector_bytes());
  const std::uint64_t span = (32ull << 20) / t.sector_bytes();
  const std::uint64_t starts[3] = {0, (t.sectors() / 2) / big * big, (t.sectors() - span) / big * big};
  for (int z = 0; z < 3; ++z) {
    std::vector<Command> seq;
    for (std::uint64_t x = starts[z]; x + big <= starts[z] + span; x += big) seq.push_back({Op::Read, x, big});
    t.wait_until(t.now_ms() + 1000.0);
    const auto r = t.closed_loop(seq, 1);
    a.seq_mb_s[z] = static_cast<double>(span * t.sector_bytes()) / 1e6 /
                    ((r.back().complete_ms - r.front().issue_ms) / 1000.0);
  }
  a.flush8 = flush_after(t, 8, o.seed + 8);
  a.flush64 = flush_after(t, 64, o.seed + 64);
  return a;
}

double mean(const std::vector<Millis>& v) { return std::accumulate(v.begin(), v.end(), 0.0) / v.size(); }

// One row: the truth, the prediction, and the geometry without the drive steps' part.
void row(const std::string& what, const std::string& fmt_spec, double t, double p, double bare) {
  const auto f = [&](double v) { return fmt::format(fmt::runtime("{:" + fmt_spec + "}"), v); };
  std::cout << fmt::format("  {:<36} {:>10} {:>10} {:>14}\n", what, f(t), f(p), f(bare));
}

void print(const std::string& drive, const std::string& how, const Answers& t, const Answers& p,
           const Answers& bare) {
  std::cout << fmt::format("{}: {}\n", drive, how);
  std::cout << fmt::format("  {:<36} {:>10} {:>10} {:>14}\n", "quantity", "truth", "predicted", "platter alone");
  row("random 4 KiB read QD1, mean ms", ".3f", mean(t.qd1_ms), mean(p.qd1_ms), mean(bare.qd1_ms));
  const double dm = demerit(t.qd1_ms, p.qd1_ms), db = demerit(t.qd1_ms, bare.qd1_ms);
  std::cout << fmt::format("  {:<36} {:>10} {:>10} {:>14}\n", "  demerit ms (% of the truth's mean)", "",
                           fmt::format("{:.3f} ({:.1f}%)", dm, 100.0 * dm / mean(t.qd1_ms)),
                           fmt::format("{:.3f} ({:.1f}%)", db, 100.0 * db / mean(t.qd1_ms)));
  row("QD32 / QD1 throughput", ".2f", t.iops32 / t.iops1, p.iops32 / p.iops1, bare.iops32 / bare.iops1);
  row("random 4 KiB read QD32, IOPS", ".0f", t.iops32, p.iops32, bare.iops32);
  const char* zone[3] = {"outer", "middle", "inner"};
  for (int z = 0; z < 3; ++z)
    row(fmt::format("sequential read MB/s, {}", zone[z]), ".1f", t.seq_mb_s[z], p.seq_mb_s[z], bare.seq_mb_s[z]);
  row("FLUSH after 8 scattered writes, ms", ".2f", t.flush8, p.flush8, bare.flush8);
  row("FLUSH after 64 scattered writes, ms", ".2f", t.flush64, p.flush64, bare.flush64);
}

// The profile that predicts: geometry (extracted, given or the truth's platter) with the
// cache, write cache and queue the drive steps measured.
struct Prediction {
  DiskProfile profile;
  DriveQueueOptions queue;
  std::string how;
  std::vector<std::string> failures;  // the extraction's checks of its result that failed
};

Prediction predict(const DiskProfile& truth, DriveQueueOptions tq, const Options& o) {
  Prediction p;
  extract::DriveStepOptions so;
  so.seed = o.seed;
  so.budget_ms = o.budget_s * 1000.0;
  if (o.extract) {
    progress(o.drive, "extracting (geometry and drive steps, virtual time)");
    EmulatedTarget t = harness(truth, tq, o.seed + 1);
    extract::ExtractOptions eo;
    eo.budget_ms = o.budget_s * 1000.0;
    eo.writable = std::pair<std::uint64_t, std::uint64_t>{0, t.sectors() - 1};
    eo.seed = o.seed;
    const extract::ExtractResult r = extract::extract_geometry(t, eo);
    p.profile = r.profile;
    p.failures = r.failures;
    p.how = r.failures.empty() ? "profile extracted in virtual time"
                               : "profile extracted in virtual time, PARTIAL (failed its checks)";
  } else {
    p.profile = o.profile.empty() ? truth : load_profile(o.profile);
    p.how = o.profile.empty() ? "geometry: the truth's platter (not extracted)" : "geometry: " + o.profile;
  }
  progress(o.drive, "drive steps: read cache, write cache, queue");
  EmulatedTarget t = harness(truth, tq, o.seed + 2);
  so.writable = std::pair<std::uint64_t, std::uint64_t>{0, t.sectors() - 1};
  const extract::DriveFindings f = extract::probe_drive(t, so);
  p.profile.drive.cache = CacheParams{};
  p.profile.drive.has_cache = false;
  f.apply(p.profile);
  p.profile.source["drive"] = f.to_json();
  p.queue = queue_options(f.queue.depth, f.queue.reorders);
  p.how += fmt::format("; cache, write cache and queue measured by the drive steps (queue {}{})",
                       f.queue.reorders ? "reorders, depth " : "in order, depth ", p.queue.depth);
  return p;
}

void run(const Options& o) {
  const std::unique_ptr<DeviceModel> m = load_model(o.drive);
  const DiskProfile truth = profile_of(*m, o.drive);
  const DriveQueueOptions tq = queue_options(queue_of(o), queue_of(o) > 1);
  const Prediction p = predict(truth, tq, o);
  progress(o.drive, "playing the truth");
  const Answers ta = answer(truth, tq, o);
  progress(o.drive, "playing the prediction");
  const Answers pa = answer(p.profile, p.queue, o);
  // What the same geometry predicts without what the drive steps measured: no buffer, no
  // write cache, no queue of its own.
  progress(o.drive, "playing the geometry alone");
  DiskProfile bare = p.profile;
  bare.drive.cache = CacheParams{};
  bare.drive.has_cache = false;
  const Answers ba = answer(bare, queue_options(1, false), o);
  DiskProfile saved = p.profile;
  if (!p.failures.empty()) saved.source["partial"] = true;
  if (!o.output.empty()) save_profile(saved, o.output);
  print(o.label.empty() ? o.drive : o.label, fmt::format("drive queue {}; {}", tq.depth, p.how), ta, pa, ba);
  // The table shows what a failed extraction predicts; the status says it failed.
  for (const auto& e : p.failures) fmt::print(stderr, "disksched predicts: extraction FAILED: {}\n", e);
  if (!p.failures.empty())
    throw std::runtime_error(fmt::format(
        "predicts: the extracted profile failed {} check(s) of its result (above); its "
        "predictions are shown, but it is not a profile to trust{}",
        p.failures.size(), o.output.empty() ? "" : " (saved marked partial)"));
}

}  // namespace

void add_predicts_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "predicts", "Does a profile measured from the host predict the drive? Plays DRIVE in virtual time as diskemu "
                  "does, measures its cache, write cache and queue from the host (the drive steps), and prints "
                  "beside the truth: the demerit of random 4 KiB read times at QD1, QD32/QD1 throughput, "
                  "sequential MB/s in the outer, middle and inner zone, the FLUSH after 8 and 64 writes");
  cmd->add_option("drive", o->drive, "The drive: a built-in model or a JSON profile (the truth)")->required();
  cmd->add_option("--profile", o->profile, "The geometry to predict with (JSON profile; default: the truth's "
                                           "platter, so the drive steps alone are judged)");
  cmd->add_option("--label", o->label, "What the table calls the drive (default: DRIVE)");
  cmd->add_option("-o,--output", o->output, "Write the predicting profile (its source.drive: what was measured)");
  cmd->add_flag("--extract", o->extract, "Extract the geometry too (virtual time, writes allowed)");
  cmd->add_option("--drive-queue", o->drive_queue, "The drive's own queue depth: auto (32 for a drive of today, "
                                                   "else 1) or 1-256")
      ->default_str("auto");
  cmd->add_option("--requests", o->requests, "Random reads per load")->default_val(2000)->check(CLI::Range(100, 1000000));
  cmd->add_option("--seed", o->seed, "Seed of the places and the host noise")->default_val(1);
  cmd->add_option("--budget", o->budget_s, "Seconds (virtual) each measuring part may take")->default_val(300.0);
  cmd->get_option("--extract")->excludes(cmd->get_option("--profile"));
  cmd->callback([o] { run(*o); });
}

}  // namespace disksched::cli
