#include "bench/costmodel/cost_export.hpp"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace disksched {

namespace {

constexpr std::uint64_t KiB = 1024, MiB = 1024 * 1024;

Load load(bool write, bool sequential, std::uint64_t bytes, std::size_t depth) {
  return Load{write, sequential, bytes, depth};
}

std::string header(const char* tool, const ExportOptions& opt, const std::vector<Basis>& basis,
                   const char* comment) {
  std::string s = fmt::format("{} disksched export {} {} (drive queue {}):\n", comment, tool,
                              opt.model_name, opt.probe.drive_queue);
  for (const auto& b : basis)
    s += fmt::format("{}   {} = {:.0f}  from {}\n", comment, b.key, b.value, b.load.name());
  return s;
}

std::vector<FitRow> fit_of(LoadCache& cache, const LinearCostModel& m) {
  std::vector<FitRow> rows;
  for (const Load& l : fit_loads()) rows.push_back({l, cache.get(l), m.iops(l)});
  return rows;
}

// iocost_coef_gen.py's loads: sequential bandwidth with large requests at depth 1, 4 KiB
// sequential and random IOPS at depth 64. (It reads 128 MiB requests; 1 MiB ones already
// stream at the media rate here, and the simulator costs large requests per sector.)
ExportResult iocost(LoadCache& cache, const ExportOptions& opt) {
  ExportResult r;
  IocostParams p;
  auto measure = [&](const char* key, double& field, const Load& l, bool iops) {
    const LoadResult& x = cache.get(l);
    field = std::round(iops ? x.iops : x.bytes_per_s);
    r.basis.push_back({key, field, l});
  };
  measure("rbps", p.rbps, load(false, true, 1 * MiB, 1), false);
  measure("rseqiops", p.rseqiops, load(false, true, 4 * KiB, 64), true);
  measure("rrandiops", p.rrandiops, load(false, false, 4 * KiB, 64), true);
  measure("wbps", p.wbps, load(true, true, 1 * MiB, 1), false);
  measure("wseqiops", p.wseqiops, load(true, true, 4 * KiB, 64), true);
  measure("wrandiops", p.wrandiops, load(true, false, 4 * KiB, 64), true);
  r.text = header("iocost", opt, r.basis, "#");
  r.text += fmt::format(
      "{} ctrl=user model=linear rbps={:.0f} rseqiops={:.0f} rrandiops={:.0f} wbps={:.0f} "
      "wseqiops={:.0f} wrandiops={:.0f}\n",
      opt.device, p.rbps, p.rseqiops, p.rrandiops, p.wbps, p.wseqiops, p.wrandiops);
  r.fit = fit_of(cache, LinearCostModel::iocost(p));
  return r;
}

// mClock's capacity is 4 KiB random writes (its OSD bench), taken here with the drive's
// queue full; its bandwidth, sequential 1 MiB writes.
ExportResult mclock(LoadCache& cache, const ExportOptions& opt) {
  ExportResult r;
  const Load iops_load = load(true, false, 4 * KiB, 32);
  const Load bw_load = load(true, true, 1 * MiB, 1);
  const double iops = cache.get(iops_load).iops, bw = cache.get(bw_load).bytes_per_s;
  r.basis = {{"osd_mclock_max_capacity_iops_hdd", iops, iops_load},
             {"osd_mclock_max_sequential_bandwidth_hdd", bw, bw_load}};
  r.text = header("mclock", opt, r.basis, "#");
  r.text += fmt::format(
      "[osd]\nosd_mclock_skip_benchmark = true\nosd_mclock_max_capacity_iops_hdd = {:.2f}\n"
      "osd_mclock_max_sequential_bandwidth_hdd = {:.0f}\n",
      iops, bw);
  // mClock charges reads and writes alike.
  r.fit = fit_of(cache, LinearCostModel::iops_bandwidth(iops, bw, iops, bw));
  return r;
}

// iotune's loads: 4 KiB random I/O at high concurrency, sequential bandwidth with large
// requests at a few in flight.
ExportResult seastar(LoadCache& cache, const ExportOptions& opt) {
  ExportResult r;
  const Load ri = load(false, false, 4 * KiB, 64), rb = load(false, true, 1 * MiB, 4);
  const Load wi = load(true, false, 4 * KiB, 64), wb = load(true, true, 1 * MiB, 4);
  const double riops = cache.get(ri).iops, rbw = cache.get(rb).bytes_per_s;
  const double wiops = cache.get(wi).iops, wbw = cache.get(wb).bytes_per_s;
  r.basis = {{"read_iops", riops, ri}, {"read_bandwidth", rbw, rb},
             {"write_iops", wiops, wi}, {"write_bandwidth", wbw, wb}};
  r.text = header("seastar", opt, r.basis, "#");
  r.text += fmt::format(
      "disks:\n  - mountpoint: {}\n    read_iops: {:.0f}\n    read_bandwidth: {:.0f}\n"
      "    write_iops: {:.0f}\n    write_bandwidth: {:.0f}\n",
      opt.mountpoint, riops, rbw, wiops, wbw);
  r.fit = fit_of(cache, LinearCostModel::iops_bandwidth(riops, rbw, wiops, wbw));
  return r;
}

std::string fio_rw(const Load& l) {
  if (l.sequential) return l.write ? "write" : "read";
  return l.write ? "randwrite" : "randread";
}

// A job file for the real drive: the loads the model was asked about, one job each,
// with what the model predicts beside it, so the drive and its profile can be compared.
ExportResult fio(LoadCache& cache, const ExportOptions& opt) {
  ExportResult r;
  const std::vector<Load> jobs = {
      load(false, false, 4 * KiB, 1), load(false, false, 4 * KiB, 32), load(true, false, 4 * KiB, 1),
      load(true, false, 4 * KiB, 32), load(false, true, 1 * MiB, 1),  load(true, true, 1 * MiB, 1)};
  for (const Load& l : jobs) r.basis.push_back({l.name() + " IOPS", cache.get(l).iops, l});
  r.text = fmt::format(
      "# disksched export fio {} (drive queue {}): each job's expected figures are the\n"
      "# model's (simulator, closed loop). DESTRUCTIVE for the write jobs: point filename at a\n"
      "# drive or file you may overwrite.\n[global]\nfilename={}\nioengine=libaio\ndirect=1\n"
      "time_based=1\nruntime=60\nramp_time=10\nnorandommap=1\nrandrepeat=0\nstonewall\n",
      opt.model_name, opt.probe.drive_queue, opt.filename);
  for (const Load& l : jobs) {
    const LoadResult& x = cache.get(l);
    r.text += fmt::format(
        "\n# expected: {:.1f} IOPS, {:.1f} MB/s, mean latency {:.2f} ms, p99 {:.2f} ms\n"
        "[{}-{}k-qd{}]\nrw={}\nbs={}\niodepth={}\n",
        x.iops, x.bytes_per_s / 1e6, x.mean_ms, x.p99_ms, fio_rw(l), l.bytes / KiB, l.depth, fio_rw(l),
        l.bytes, l.depth);
  }
  return r;
}

}  // namespace

ExportFormat parse_export_format(std::string_view name) {
  if (name == "iocost") return ExportFormat::Iocost;
  if (name == "mclock") return ExportFormat::Mclock;
  if (name == "seastar") return ExportFormat::Seastar;
  if (name == "fio") return ExportFormat::Fio;
  throw std::invalid_argument(
      fmt::format("unknown export format '{}': expected iocost, mclock, seastar or fio", name));
}

const char* export_format_name(ExportFormat f) {
  switch (f) {
    case ExportFormat::Iocost: return "iocost";
    case ExportFormat::Mclock: return "mclock";
    case ExportFormat::Seastar: return "seastar";
    case ExportFormat::Fio: return "fio";
  }
  return "?";
}

const LoadResult& LoadCache::get(const Load& l) {
  const std::string key = l.name();
  auto it = done_.find(key);
  if (it == done_.end()) it = done_.emplace(key, probe_.run(l)).first;
  return it->second;
}

std::vector<Load> fit_loads() {
  std::vector<Load> out;
  for (bool write : {false, true})
    for (bool seq : {false, true})
      for (std::uint64_t bytes : {4 * KiB, 64 * KiB, 1 * MiB})
        for (std::size_t depth : {1, 8, 32}) out.push_back(load(write, seq, bytes, depth));
  return out;
}

ExportResult export_cost_model(const DeviceModel& model, ExportFormat format,
                               const ExportOptions& opt) {
  ThroughputProbe probe(model, opt.probe);
  LoadCache cache(probe);
  switch (format) {
    case ExportFormat::Iocost: return iocost(cache, opt);
    case ExportFormat::Mclock: return mclock(cache, opt);
    case ExportFormat::Seastar: return seastar(cache, opt);
    case ExportFormat::Fio: return fio(cache, opt);
  }
  throw std::logic_error("export format");
}

nlohmann::json ExportResult::json() const {
  nlohmann::json j;
  j["text"] = text;
  j["basis"] = nlohmann::json::array();
  for (const auto& b : basis)
    j["basis"].push_back({{"key", b.key}, {"value", b.value}, {"load", b.load.name()}});
  j["fit"] = nlohmann::json::array();
  for (const auto& f : fit)
    j["fit"].push_back({{"load", f.load.name()}, {"sim_iops", f.sim.iops},
                        {"model_iops", f.model_iops}, {"error", f.error()},
                        {"sim_mean_ms", f.sim.mean_ms}, {"sim_p99_ms", f.sim.p99_ms}});
  return j;
}

}  // namespace disksched
