// `disksched export FORMAT PROFILE`: the numbers the tools storage people run use to
// describe a drive, derived from the drive's model through the simulator, at the load
// each tool measures them with, and how far the tool's linear model then is from the
// simulator's figures at 1, 8 and 32 requests in flight.
//   iocost   Linux's io.cost.model line (linear: rbps, rseqiops, rrandiops, wbps, ...)
//   mclock   Ceph mClock's osd_mclock_max_capacity_iops_hdd and sequential bandwidth
//   seastar  Seastar's io_properties.yaml (read/write IOPS and bandwidth)
//   fio      a fio job file that measures the same loads on the real drive, with the
//            model's prediction beside each job
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/costmodel/linear_model.hpp"
#include "bench/costmodel/throughput_probe.hpp"

namespace disksched {

enum class ExportFormat { Iocost, Mclock, Seastar, Fio };

// Throws std::invalid_argument naming the choices.
ExportFormat parse_export_format(std::string_view name);
const char* export_format_name(ExportFormat f);

struct ExportOptions {
  std::string model_name;           // as given, for the header comment
  std::string device = "MAJ:MIN";   // iocost: the disk's device number
  std::string filename = "/dev/sdX";  // fio: the drive to measure
  std::string mountpoint = "/var/lib/scylla";  // seastar
  ProbeOptions probe;
};

// One load run both ways: the simulator's figure and the exported linear model's.
struct FitRow {
  Load load;
  LoadResult sim;
  double model_iops = 0.0;
  double error() const { return model_iops / sim.iops - 1.0; }
};

// A figure the export gives and the load it was measured with.
struct Basis {
  std::string key;
  double value = 0.0;
  Load load;
};

struct ExportResult {
  std::string text;            // the file or line the tool reads
  std::vector<Basis> basis;
  std::vector<FitRow> fit;     // empty for fio (no linear model)
  nlohmann::json json() const;
};

// Runs each load at most once, however often the export asks for it.
class LoadCache {
 public:
  explicit LoadCache(const ThroughputProbe& probe) : probe_(probe) {}
  const LoadResult& get(const Load& load);

 private:
  const ThroughputProbe& probe_;
  std::map<std::string, LoadResult> done_;
};

ExportResult export_cost_model(const DeviceModel& model, ExportFormat format,
                               const ExportOptions& opt);

// The loads the error table runs the model on: random and sequential reads and writes
// of 4 KiB, 64 KiB and 1 MiB, at 1, 8 and 32 in flight.
std::vector<Load> fit_loads();

}  // namespace disksched
