// A sweep as independent points, for running it across processes or machines.
//
// `plan` writes the grid to a directory: sweep.json (everything a point needs to
// run) and manifest.tsv (one line per scheduler, x value and replication, with its
// seed). Any process can then run any subset of the points (a shard i/N or points by
// id), each writing its result to points/ID.json atomically (a temporary file, then
// rename), skipping points already done, so a run can be repeated or resumed. A point
// file holds the key of its point's whole definition; one of another plan, or one that
// is not a regular file, is refused, never merged.
// `merge` reads the point files back into the SweepResult a single-process sweep
// would have built, saturation skips included, so the CSV is byte-identical.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/experiments/sweep/sweep.hpp"

namespace disksched {

struct ManifestPoint {
  std::size_t id = 0;  // the line's index in the manifest, from 0
  std::size_t series = 0;  // index into SweepSpec::scheds
  std::size_t xi = 0;      // index into the sweep's x values (sorted rates, or the values)
  std::string sched;       // the spec run
  double x = 0.0, rate = 0.0;
  std::size_t rep = 0;
  std::uint64_t seed = 0;
};

struct SweepPlan {
  SweepSpec spec;
  std::vector<double> xs;  // the x axis, in result order
  std::vector<ManifestPoint> points;  // series, then x, then replication
};

// The plan of a spec (checks it the way Sweep does).
SweepPlan plan_sweep(const SweepSpec& spec);

nlohmann::json spec_to_json(const SweepSpec& spec);
SweepSpec spec_from_json(const nlohmann::json& j);

// Writes DIR/sweep.json and DIR/manifest.tsv. A directory that already holds a
// different plan is an error (its point files would not belong to this one).
void write_plan(const SweepPlan& plan, const std::string& dir);
SweepPlan read_plan(const std::string& dir);

// "i/N", 0 <= i < N: the points whose id % N == i.
struct Shard {
  std::size_t index = 0, count = 1;
};
Shard parse_shard(const std::string& text);
std::vector<std::size_t> shard_ids(const SweepPlan& plan, Shard shard);

std::string point_path(const std::string& dir, std::size_t id);

// A point file: the point's result, keyed by a hash of everything that decides it
// (model, workload, simulator settings, scheduler, rate, x, replication, seed), so a
// result of another plan left in the directory is never taken for this one's.
struct PointFileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
std::string point_key(const SweepSpec& spec, const ManifestPoint& p);
std::string point_text(const SweepSpec& spec, const ManifestPoint& p, const RunSummary& r);
// The result in `text` (read from `path`) if it is point `p`'s with key `key`; throws
// PointFileError naming path:line and what to do (another plan's point, an edited or
// corrupt value).
RunSummary parse_point(std::string_view text, const std::string& path, const std::string& key,
                       const ManifestPoint& p);

// Runs the given points that are neither done nor made unnecessary by a saturated
// lower rate of their scheduler (found among the points already done). Returns how
// many were run.
std::size_t run_points(const SweepPlan& plan, const std::string& dir,
                       const std::vector<std::size_t>& ids, std::size_t threads, bool progress);

// The single-process result from the point files. Throws naming the missing points
// when some still have to run.
SweepResult merge_points(const SweepPlan& plan, const std::string& dir);

}  // namespace disksched
