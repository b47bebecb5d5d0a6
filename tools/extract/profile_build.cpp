// The profile from what the steps found, and its `source` record (steps.hpp).
#include "tools/extract/steps.hpp"

#include <cmath>
#include <ctime>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "predictor/disk_model.hpp"
#include "tools/extract/slips.hpp"
#include "tools/extract/stats.hpp"

namespace disksched::extract {

void build_profile(Instrument& in, Findings& f) {
  const Layout& L = f.result.layout;
  DiskProfile& P = f.result.profile;
  P.name = in.options.name;
  P.sector_bytes = in.target.sector_bytes();
  P.heads = L.heads;
  P.rotation_ms = in.prober.period();
  const ZoneLayout& z0 = L.zones.front();
  P.track_skew_sectors = z0.track_skew.value_or(0.0);
  P.cylinder_skew_sectors = z0.cylinder_skew.value_or(0.0);
  for (const auto& z : L.zones) {
    ZoneSpec s;
    s.first_cylinder = z.first_cylinder;
    s.last_cylinder = z.last_cylinder();
    s.sectors_per_track = z.spt;
    if (z.track_skew && std::fabs(*z.track_skew - P.track_skew_sectors) > 1e-9) s.track_skew_sectors = z.track_skew;
    if (z.cylinder_skew && std::fabs(*z.cylinder_skew - P.cylinder_skew_sectors) > 1e-9)
      s.cylinder_skew_sectors = z.cylinder_skew;
    P.zones.push_back(s);
  }
  P.head_switch_ms = f.head_switch;
  // Slipped sectors as defects; an empty front, slipped tracks and spare tracks in the
  // layout of a drive that spares tracks at each zone's end (DiskSim's scheme 1), where
  // a slipped track uses one of its zone's spares.
  for (const Hole& h : L.holes()) {
    if (h.kind == HoleKind::Sector) {
      for (std::uint64_t p = h.pba; p < h.pba + h.count; ++p) {
        const Chs3 c = L.chs(p);
        P.defects.push_back(Defect{c.cylinder, c.head, c.sector});
      }
      continue;
    }
    P.layout.sparing = Sparing::TracksPerZone;
    const auto zi = static_cast<std::size_t>(&L.zone_of_pba(h.pba) - L.zones.data());
    ZoneSpec& s = P.zones[zi];
    const std::uint64_t track = (h.pba - L.zones[zi].first_pba) / L.zones[zi].spt;
    switch (h.kind) {
      case HoleKind::Front: s.empty_front += h.count; break;
      case HoleKind::Track: s.slips.push_back(track); ++s.spares; break;
      case HoleKind::SpareTracks: s.spares += h.count / L.zones[zi].spt; break;
      case HoleKind::Sector: break;
    }
  }
  const Millis read_overhead = std::max(0.0, f.result.dead_time_ms - f.result.host_floor_ms);
  P.overhead_ms = PerOp{read_overhead, f.write_overhead >= 0 ? f.write_overhead : read_overhead, read_overhead};
  P.completion_ms = PerOp{0.0, f.write_completion, 0.0};
  if (f.result.seek.table.empty()) {
    P.seek.form = SeekCurveSpec::Form::Table;
    P.seek.points = {{1, 0.0}};
  } else {
    P.seek = f.result.seek.spec;
  }
  // A zone after spare tracks is placed on the platter on its own, not by a switch from
  // the zone before (DiskSim's first block offset): its first track's angle is measured,
  // relative to the chained angles and the reference sector.
  {
    const DiskModel chained(P);
    const double ref = chained.end_angle(in.options.reference_lba, 1);
    for (std::size_t zi = 1; zi < L.zones.size(); ++zi) {
      const ZoneLayout& z = L.zones[zi];
      const std::uint64_t y = L.zone_first_lba(z);
      if (gap_before(f.result.layout, y) == 0 || y >= in.target.sectors()) continue;
      const double off = wrap_half(in.prober.phase(y, std::max(5, in.prober.repeats() + 2)) - (chained.end_angle(y, 1) - ref));
      const double first = wrap_unit(chained.track_angle(z.first_cylinder, 0) + off) * z.spt;
      P.zones[zi].first_block_sectors = snap(first) >= z.spt ? 0.0 : snap(first);
    }
  }
  // Platter angle at time 0 of the target's clock: the reference sector's transfer
  // ends when its completion is seen (completion offsets are folded into overheads).
  DiskModel m(P);
  const Millis t0 = in.prober.next_time_at(0.0, in.target.now_ms());
  P.rotation_phase = wrap_unit(m.end_angle(in.options.reference_lba, 1) - t0 / in.prober.period());
  if (P.rotation_phase >= 1.0) P.rotation_phase = 0.0;
  f.drive.apply(P);
}

namespace {

// Per parameter: measured, sampled or assumed, and how.
nlohmann::json parameter_sources(Instrument& in, const Findings& f) {
  const ExtractResult& r = f.result;
  nlohmann::json p;
  p["rotation_ms"] = fmt::format("measured: {} reads of sector {}", r.period.reads, in.options.reference_lba);
  p["heads"] = f.heads_how;
  const std::uint64_t total = in.target.sectors();
  p["zones"] = !f.zones_how.empty() ? f.zones_how
               : f.zones_unsearched >= total
                   ? fmt::format("measured: {} zones, boundaries searched over the whole device", r.layout.zones.size())
                   : fmt::format("measured to LBA {} ({:.0f} %); assumed one zone beyond", f.zones_unsearched,
                                 100.0 * static_cast<double>(f.zones_unsearched) / static_cast<double>(total));
  p["skews"] = "sampled: track and cylinder switches at a few cylinders of each zone measured";
  p["head_switch_ms"] = f.head_switch > 0 ? "sampled: reach thresholds across track switches"
                                          : "assumed 0: not measured";
  p["seek"] = fmt::format("sampled: {} distances measured, {} fit", r.seek.table.size(), r.seek.form);
  p["overhead_ms.read"] = "measured: the dead time before the media, less the host's null round trip";
  p["overhead_ms.write"] = f.write_overhead >= 0 ? "measured: write probes in the --allow-writes range"
                                                 : "assumed as the read overhead (no --allow-writes range)";
  return p;
}

}  // namespace

void record_source(Instrument& in, Findings& f) {
  DiskProfile& P = f.result.profile;
  nlohmann::json src;
  src["tool"] = "disksched extract";
  src["target"] = in.target.describe();
  {
    const std::time_t now = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    src["date"] = buf;
  }
  src["budget_s"] = in.options.budget_ms / 1000.0;
  src["elapsed_s"] = f.result.elapsed_ms / 1000.0;
  // Where the zones step stopped when it did not search the whole device (its note says why).
  if (f.zones_unsearched < in.target.sectors()) src["zones_unmeasured_from_lba"] = f.zones_unsearched;
  src["probes"] = f.result.probes;
  src["period"] = {{"ms", f.result.period.period_ms},
                   {"jitter_ms", f.result.period.jitter_ms},
                   {"reference_reads", f.result.period.reads},
                   {"rejected", f.result.period.rejected},
                   {"baseline_s", f.result.period.baseline_ms / 1000.0}};
  src["host_floor_ms"] = f.result.host_floor_ms;
  src["dead_time_ms"] = f.result.dead_time_ms;
  src["gauge"] =
      "completion_ms.read is 0 by convention: from outside the drive only the sum of command "
      "overhead and completion offset is observable; it is folded into overhead_ms (the host "
      "round trip measured with a null target is subtracted)";
  nlohmann::json seek;
  seek["form"] = f.result.seek.form;
  seek["rms_ms"] = f.result.seek.rms_ms;
  seek["two_piece_rms_ms"] = f.result.seek.two_piece_rms_ms;
  seek["three_piece_rms_ms"] = f.result.seek.three_piece_rms_ms;
  nlohmann::json table = nlohmann::json::array();
  for (const auto& pt : f.result.seek.table) table.push_back({pt.distance, pt.ms});
  seek["table"] = table;
  nlohmann::json rej = nlohmann::json::array();
  for (const auto& pt : f.result.seek.rejected) rej.push_back({pt.distance, pt.ms});
  seek["rejected"] = rej;
  src["seek"] = seek;
  src["validation"] = {{"pairs", f.result.validation.pairs},
                       {"tolerance_ms", f.result.validation.tolerance_ms},
                       {"within_tolerance", f.result.validation.within_tolerance},
                       {"median_abs_error_ms", f.result.validation.median_abs_error_ms},
                       {"p95_abs_error_ms", f.result.validation.p95_abs_error_ms}};
  src["rotation_phase_clock"] = "the extracting host's clock for this target";
  src["cache"] = {{"read_cache", f.result.cache.read_cache},
                  {"read_ahead", f.result.cache.read_ahead},
                  {"read_ahead_sectors_at_least", f.result.cache.read_ahead_sectors},
                  {"evicting_reads", f.result.cache.evicting_reads},
                  {"reread_ms", f.result.cache.reread_ms},
                  {"behind_ms", f.result.cache.behind_ms},
                  {"ahead_ms", f.result.cache.ahead_ms},
                  {"write_behind", f.result.cache.write_behind ? nlohmann::json(*f.result.cache.write_behind)
                                                         : nlohmann::json(nullptr)},
                  {"buffered_write_ms", f.result.cache.buffered_write_ms},
                  {"fua_write_ms", f.result.cache.fua_write_ms},
                  {"defeated", in.defeat != nullptr},
                  {"evictions", f.result.cache_evictions}};
  src["drive"] = f.drive.to_json();
  src["parameters"] = parameter_sources(in, f);
  if (!f.result.failures.empty()) src["failures"] = f.result.failures;
  src["notes"] = f.result.notes;
  P.source = src;
}

}  // namespace disksched::extract
