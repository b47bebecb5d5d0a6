#include "tools/extract/compare.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cmath>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "predictor/disk_model.hpp"
#include "tools/extract/seek_fit.hpp"

namespace disksched::extract {
namespace {

double skew_of(const ZoneSpec& z, double global, bool track) {
  const auto& v = track ? z.track_skew_sectors : z.cylinder_skew_sectors;
  return v.value_or(global);
}

// The note in which an extraction said a crossing out of cylinders [first, last] may be
// counted wrong ("cylinder C: the seeks into the next zone put it ... may be off by one").
std::string flagged_crossing(const DiskProfile& got, std::int64_t first, std::int64_t last) {
  const auto notes = got.source.find("notes");
  if (notes == got.source.end() || !notes->is_array()) return {};
  constexpr std::string_view kHead = "cylinder ";
  for (const auto& n : *notes) {
    if (!n.is_string()) continue;
    const std::string& text = n.get_ref<const std::string&>();
    if (!text.starts_with(kHead) || text.find("may be off by one") == std::string::npos) continue;
    std::int64_t c = 0;
    const char* begin = text.data() + kHead.size();
    const auto [end, ec] = std::from_chars(begin, text.data() + text.size(), c);
    if (ec == std::errc() && c >= first && c <= last) return text;
  }
  return {};
}

// Skews are angles: 71 and -1 sectors on a 72-sector track are the same.
double skew_error(double a, double b, std::uint32_t spt) {
  double d = std::fmod(std::fabs(a - b), static_cast<double>(spt));
  return std::min(d, static_cast<double>(spt) - d);
}

// Zones and where LBAs lie, from LBA 0's cylinder (c.cylinder_shift) on.
void compare_zones(const DiskProfile& got, const DiskProfile& truth, const Tolerances& tol, Comparison& c) {
  // What timing cannot see: cylinders before LBA 0's (the extraction counts from it)
  // and spare space after the last LBA. Cylinders are compared from LBA 0's, and the
  // last zone up to the last LBA's.
  const DiskModel mg(got), mt(truth);
  const Chs g0 = mg.lba_to_chs(0), t0 = mt.lba_to_chs(0);
  c.cylinder_shift = t0.cylinder - g0.cylinder;
  const std::int64_t t_last_data = mt.lba_to_chs(mt.lbas() - 1).cylinder;
  c.hidden_after = truth.zones.back().last_cylinder - t_last_data;
  c.zones_equal = got.zones.size() == truth.zones.size();
  if (!c.zones_equal)
    c.zones_detail = fmt::format("{} zones, truth has {}", got.zones.size(), truth.zones.size());
  for (std::size_t i = 0; c.zones_equal && i < got.zones.size(); ++i) {
    const ZoneSpec &g = got.zones[i], &t = truth.zones[i];
    const bool last = i + 1 == got.zones.size();
    const std::int64_t t_last = last ? t_last_data : t.last_cylinder;
    const std::int64_t t_first = i == 0 ? std::max(t.first_cylinder, t0.cylinder) : t.first_cylinder;
    const double near = tol.zone_cylinders_relative * static_cast<double>(t_last_data + 1);
    auto off = [near](std::int64_t a, std::int64_t b) { return static_cast<double>(std::llabs(a - b)) > near; };
    if (off(g.first_cylinder + c.cylinder_shift, t_first) || off(g.last_cylinder + c.cylinder_shift, t_last) ||
        g.sectors_per_track != t.sectors_per_track) {
      c.zones_equal = false;
      c.zones_detail = fmt::format("zone {}: cylinders {}-{} x {} sectors, truth {}-{} x {}", i,
                                   g.first_cylinder + c.cylinder_shift, g.last_cylinder + c.cylinder_shift,
                                   g.sectors_per_track, t_first, t_last, t.sectors_per_track);
      c.zones_flagged = flagged_crossing(got, g.first_cylinder, g.last_cylinder);
    }
  }
  // Where LBAs lie (the empty front, slipped tracks and sectors, spare tracks at zone
  // ends), at evenly spread LBAs both models hold.
  const std::uint64_t common = std::min(mg.lbas(), mt.lbas());
  for (std::uint64_t k = 0; k <= 1024; ++k) {
    const std::uint64_t lba = k * (common - 1) / 1024;
    Chs g = mg.lba_to_chs(lba);
    g.cylinder += c.cylinder_shift;
    ++c.mapping_samples;
    const Chs t = mt.lba_to_chs(lba);
    c.mapping_differ += tol.zone_cylinders_relative > 0
                            ? static_cast<double>(std::llabs(g.cylinder - t.cylinder)) >
                                  tol.zone_cylinders_relative * static_cast<double>(t_last_data + 1)
                            : !(g == t);
  }
}

// The report's lines, into c.lines; whether every tolerance is met. (cyls: the true
// model's cylinders.)
bool report_lines(const DiskProfile& got, const DiskProfile& truth, Millis period, std::int64_t cyls,
                  const Tolerances& tol, Comparison& c) {
  auto line = [&](const std::string& what, bool ok) {
    c.lines.push_back(fmt::format("{:<58} {}", what, ok ? "ok" : "FAIL"));
    return ok;
  };
  bool pass = true;
  pass &= line(fmt::format("rotation period: {:.5f} ms vs {:.5f} ms ({:+.4f} %, tol {} %)", got.rotation_ms,
                           period, 100 * c.period_error, 100 * tol.period_relative),
               std::fabs(c.period_error) <= tol.period_relative);
  pass &= line(fmt::format("heads: {} vs {}", got.heads, truth.heads), c.heads_equal);
  pass &= line(fmt::format("zones (cylinders, sectors per track): {}",
                           c.zones_equal ? fmt::format("{} zones, {}", got.zones.size(),
                                                       tol.zone_cylinders_relative > 0
                                                           ? fmt::format("within {} % of the cylinders",
                                                                         100 * tol.zone_cylinders_relative)
                                                           : std::string("exact"))
                                         : c.zones_detail),
               c.zones_equal);
  if (!c.zones_flagged.empty())
    c.lines.push_back(fmt::format("  (the extraction said so: \"{}\")", c.zones_flagged));
  pass &= line(fmt::format("{}: {} of {} sampled LBAs differ",
                           tol.zone_cylinders_relative > 0 ? "LBA -> cylinder" : "LBA -> cylinder, head, sector",
                           c.mapping_differ, c.mapping_samples),
               c.mapping_differ == 0);
  if (c.cylinder_shift != 0 || c.hidden_after != 0)
    c.lines.push_back(fmt::format(
        "{:<58} {}",
        fmt::format("not visible: {} cylinder(s) before LBA 0's, {} after the last LBA's", c.cylinder_shift,
                    c.hidden_after),
        "(info)"));
  pass &= line(fmt::format("track skew: max error {:.2f} sectors (tol {})", c.max_track_skew_error,
                           tol.skew_sectors),
               c.max_track_skew_error <= tol.skew_sectors);
  pass &= line(fmt::format("cylinder skew: max error {:.2f} sectors (tol {})", c.max_cylinder_skew_error,
                           tol.skew_sectors),
               c.max_cylinder_skew_error <= tol.skew_sectors);
  pass &= line(fmt::format("head switch: {:.3f} ms vs {:.3f} ms (tol {} ms)", got.head_switch_ms,
                           truth.head_switch_ms, tol.head_switch_ms),
               std::fabs(c.head_switch_error) <= tol.head_switch_ms);
  pass &= line(fmt::format("seek curve: RMS error {:.3f} ms over 1..{} (tol {} ms)", c.seek_rms, cyls - 1,
                           tol.seek_rms_ms),
               c.seek_rms <= tol.seek_rms_ms);
  c.lines.push_back(fmt::format("{:<58} {}",
                                fmt::format("read overhead + completion: {:.3f} ms vs {:.3f} ms",
                                            got.overhead_ms.read + got.completion_ms.read,
                                            truth.overhead_ms.read + truth.completion_ms.read),
                                "(info)"));
  c.lines.push_back(fmt::format("{:<58} {}",
                                fmt::format("slipped sectors: {} found, {} missed, {} spurious", got.defects.size(),
                                            c.defects_missing, c.defects_extra),
                                "(info)"));
  return pass;
}

}  // namespace

Comparison compare_profiles(const DiskProfile& got, const DiskProfile& truth, Millis true_period,
                            const Tolerances& tol) {
  Comparison c;
  const Millis period = true_period > 0 ? true_period : truth.rotation_ms;
  c.period_error = got.rotation_ms / period - 1.0;
  c.heads_equal = got.heads == truth.heads;
  compare_zones(got, truth, tol, c);
  const std::size_t nz = std::min(got.zones.size(), truth.zones.size());
  for (std::size_t i = 0; i < nz; ++i) {
    const std::uint32_t spt = truth.zones[i].sectors_per_track;
    c.max_track_skew_error = std::max(
        c.max_track_skew_error,
        skew_error(skew_of(got.zones[i], got.track_skew_sectors, true),
                   skew_of(truth.zones[i], truth.track_skew_sectors, true), spt));
    c.max_cylinder_skew_error = std::max(
        c.max_cylinder_skew_error,
        skew_error(skew_of(got.zones[i], got.cylinder_skew_sectors, false),
                   skew_of(truth.zones[i], truth.cylinder_skew_sectors, false), spt));
  }
  c.head_switch_error = got.head_switch_ms - truth.head_switch_ms;
  const std::int64_t cyls = truth.zones.back().last_cylinder + 1;
  c.seek_rms = seek_rms_difference(got.seek, truth.seek, cyls - 1);
  c.read_overhead_error = (got.overhead_ms.read + got.completion_ms.read) -
                          (truth.overhead_ms.read + truth.completion_ms.read);

  auto key = [](const Defect& d) { return std::make_tuple(d.cylinder, d.head, d.sector); };
  std::set<std::tuple<std::int64_t, std::int32_t, std::uint32_t>> ours, theirs;
  for (const auto& d : got.defects) ours.insert(key(d));
  for (const auto& d : truth.defects) theirs.insert(key(d));
  for (const auto& k : theirs) c.defects_missing += ours.count(k) == 0;
  for (const auto& k : ours) c.defects_extra += theirs.count(k) == 0;

  c.pass = report_lines(got, truth, period, cyls, tol, c);
  return c;
}

}  // namespace disksched::extract
