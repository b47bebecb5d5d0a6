#include "predictor/datasheet_profiles.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace disksched {
namespace {

using nlohmann::json;

// The seek curve of the header: t1 at one cylinder, t1 + b sqrt(s) up to `boundary`,
// c + d s beyond, value and slope continuous at the boundary, full_stroke at S.
struct SeekFit {
  double b, c, d;
};

SeekFit seek_through(double t1, double full_stroke, double S, double B) {
  const double d = (full_stroke - t1) / (S + B);
  return {2.0 * d * std::sqrt(B), full_stroke - d * S, d};
}

// The datasheets' average seek, sum over n of (S + 1 - n) T(n) / sum of (S + 1 - n),
// as the integral of (S - s) T(s) over [0, S]: closed form, so fitting is instant.
double mean_seek(double t1, double full_stroke, double S, double B) {
  const SeekFit f = seek_through(t1, full_stroke, S, B);
  const auto lin = [&](double s) { return S * s - s * s / 2; };               // (S - s)
  const auto sq = [&](double s) { return S * 2.0 / 3.0 * std::pow(s, 1.5) - 0.4 * std::pow(s, 2.5); };
  const auto sl = [&](double s) { return S * s * s / 2 - s * s * s / 3; };    // (S - s) s
  const double short_part = t1 * lin(B) + f.b * sq(B);
  const double long_part = f.c * (lin(S) - lin(B)) + f.d * (sl(S) - sl(B));
  return (short_part + long_part) / (S * S / 2);
}

SeekCurveSpec fit_seek(const DatasheetSpec& ds, std::int64_t cylinders) {
  const double S = static_cast<double>(cylinders - 1);
  const double t1 = ds.single_track_ms, tf = ds.full_stroke_ms;
  if (!(t1 > 0 && tf > t1 && ds.avg_seek_ms > t1 && ds.avg_seek_ms < tf))
    throw ModelError(fmt::format(
        "datasheet '{}': expected single-track < average < full-stroke seek, got {} / {} / {} ms",
        ds.name, t1, ds.avg_seek_ms, tf));
  // The average grows with the boundary (a longer square-root part lifts mid-length
  // seeks): bisect for the datasheet's.
  double lo = 1, hi = S;
  const double at_lo = mean_seek(t1, tf, S, lo), at_hi = mean_seek(t1, tf, S, hi);
  // The weighted mean of sqrt(s / S) over [0, S]: what the square root alone reaches.
  constexpr double kSqrtMean = 8.0 / 15.0;
  // Past what a square root from t1 reaches: seeks of more than one cylinder pay a
  // settle `a` above the single-track time (a short seek is not a micro-jog), and the
  // square root runs to the full stroke: a + (tf - a) * kSqrtMean = average.
  const double settle = (ds.avg_seek_ms - tf * kSqrtMean) / (1 - kSqrtMean);
  if (ds.avg_seek_ms < at_lo)
    throw ModelError(fmt::format(
        "datasheet '{}': an average seek of {} ms cannot be met between a {} ms single-track "
        "and a {} ms full-stroke seek (a seek curve through them averages at least {:.3f} ms); "
        "give a shorter full-stroke time",
        ds.name, ds.avg_seek_ms, t1, tf, at_lo));
  SeekCurveSpec s;
  s.form = SeekCurveSpec::Form::ThreePiece;
  s.single_cylinder_ms = t1;
  if (ds.avg_seek_ms > at_hi) {
    s.short_a = settle;
    s.short_b = (tf - settle) / std::sqrt(S);
    s.boundary = cylinders - 1;
    s.long_a = tf;
    s.long_b = 0;
    return s;
  }
  for (int i = 0; i < 100 && hi - lo > 0.5; ++i) {
    const double mid = (lo + hi) / 2;
    (mean_seek(t1, tf, S, mid) < ds.avg_seek_ms ? lo : hi) = mid;
  }
  const double B = std::round((lo + hi) / 2);
  const SeekFit f = seek_through(t1, tf, S, B);
  s.short_a = t1;
  s.short_b = f.b;
  s.boundary = static_cast<std::int64_t>(B);
  s.long_a = f.c;
  s.long_b = f.d;
  return s;
}

// Physical sectors per track giving `mb_s` as datasheets define sustained rate: the
// bytes of a cylinder over its revolutions plus its head switches and one cylinder switch.
std::uint32_t spt_for_rate(const DatasheetSpec& ds, double mb_s, double rotation_ms) {
  const double h = ds.heads;
  const double cyl_ms = h * rotation_ms + (h - 1) * ds.head_switch_ms +
                        std::max(ds.single_track_ms, ds.head_switch_ms);
  const double track_bytes = mb_s * 1e3 * cyl_ms / h;  // MB/s = 1e3 bytes per ms
  return static_cast<std::uint32_t>(std::lround(track_bytes / ds.physical_sector_bytes));
}

// A switch of `ms` as a skew in logical sectors: whole physical sectors, rounded up.
double skew_sectors(double ms, double rotation_ms, std::uint32_t spt_physical, std::uint32_t ratio) {
  return ratio * std::ceil(ms / rotation_ms * spt_physical);
}

}  // namespace

DiskProfile datasheet_profile(const DatasheetSpec& ds) {
  const std::uint32_t lsb = ds.logical_sector_bytes, psb = ds.physical_sector_bytes;
  if (lsb == 0 || psb < lsb || psb % lsb != 0)
    throw ModelError(fmt::format("datasheet '{}': physical sector ({} B) must be a multiple of "
                                 "the logical sector ({} B)", ds.name, psb, lsb));
  if (!(ds.rpm > 0) || ds.heads < 1 || ds.zones < 1 || !(ds.capacity_bytes > 0) ||
      !(ds.sustained_outer_mb_s >= ds.sustained_inner_mb_s) || !(ds.sustained_inner_mb_s > 0))
    throw ModelError(fmt::format("datasheet '{}': needs rpm, heads, zones and capacity > 0 and "
                                 "an outer sustained rate >= the inner one > 0", ds.name));
  const std::uint32_t ratio = psb / lsb;
  DiskProfile p;
  p.name = ds.name;
  p.sector_bytes = lsb;
  p.physical_sector_bytes = psb == lsb ? 0 : psb;
  p.heads = ds.heads;
  p.rotation_ms = 60000.0 / ds.rpm;
  p.head_switch_ms = ds.head_switch_ms;
  p.write_settle_ms = ds.write_settle_ms;
  p.overhead_ms = ds.overhead_ms;

  // Zones: equal bands of cylinders, sectors per track falling linearly outer -> inner.
  const std::uint32_t spt_out = spt_for_rate(ds, ds.sustained_outer_mb_s, p.rotation_ms);
  const std::uint32_t spt_in = spt_for_rate(ds, ds.sustained_inner_mb_s, p.rotation_ms);
  std::vector<std::uint32_t> spt(static_cast<std::size_t>(ds.zones));
  double cylinder_bytes = 0;  // one cylinder of every zone
  for (std::int32_t i = 0; i < ds.zones; ++i) {
    const double f = ds.zones == 1 ? 0.0 : static_cast<double>(i) / (ds.zones - 1);
    spt[i] = static_cast<std::uint32_t>(std::lround(spt_out + (static_cast<double>(spt_in) - spt_out) * f));
    cylinder_bytes += static_cast<double>(ds.heads) * spt[i] * psb;
  }
  const auto per_zone = static_cast<std::int64_t>(std::ceil(ds.capacity_bytes / cylinder_bytes));
  // Equal bands overshoot the capacity by less than one cylinder of each zone: the
  // innermost band gives back what it can.
  const double last_cyl_bytes = static_cast<double>(ds.heads) * spt.back() * psb;
  const auto spare = static_cast<std::int64_t>(
      std::floor((per_zone * cylinder_bytes - ds.capacity_bytes) / last_cyl_bytes));
  const std::int64_t last_zone = per_zone - std::min(spare, per_zone - 1);
  std::int64_t first = 0;
  for (std::int32_t i = 0; i < ds.zones; ++i) {
    const std::int64_t n = i + 1 == ds.zones ? last_zone : per_zone;
    ZoneSpec z{first, first + n - 1, spt[i] * ratio, {}, {}};
    z.track_skew_sectors = skew_sectors(ds.head_switch_ms, p.rotation_ms, spt[i], ratio);
    z.cylinder_skew_sectors = skew_sectors(std::max(ds.single_track_ms, ds.head_switch_ms),
                                           p.rotation_ms, spt[i], ratio);
    p.zones.push_back(z);
    first += n;
  }
  p.seek = fit_seek(ds, first);

  if (ds.bus_mb_s > 0) {
    p.drive.has_bus = true;
    p.drive.bus.read_sector = p.drive.bus.write_sector = lsb / (ds.bus_mb_s * 1e3);
  }
  if (ds.buffer_bytes > 0) {
    // A drive of today as shipped: read-ahead, and write-behind (its volatile write cache).
    CacheParams& c = p.drive.cache;
    p.drive.has_cache = true;
    c.segments = static_cast<unsigned>(
        std::clamp<std::uint64_t>(ds.buffer_bytes / ds.read_ahead_bytes, 1, 128));
    c.segment_sectors = static_cast<unsigned>(ds.buffer_bytes / c.segments / lsb);
    c.write_segments = c.segments;
    c.continuous_read = 3;
    c.max_read_ahead = static_cast<unsigned>(ds.read_ahead_bytes / lsb);
    c.read_ahead_over_requested = true;
    c.read_hits_on_write_data = true;
    // The volatile write cache: a buffer by size, destaged by positioning (not a write
    // per segment in arrival order, which gains a scattered writer almost nothing).
    c.fast_write = 0;
    c.write_buffer_bytes = ds.write_buffer_bytes > 0 ? ds.write_buffer_bytes : ds.buffer_bytes / 64;
    c.write_buffer_window = ds.write_buffer_window;
  }

  p.source = ds.source;
  p.source["computed"] = {
      {"cylinders", first},
      {"sectors_per_track_physical", {{"outer", spt_out}, {"inner", spt_in}}},
      {"buffer_bytes", ds.buffer_bytes},
      {"write_buffer_bytes", p.drive.cache.write_buffer_bytes},
      {"how", "zones, skews and seek curve computed by predictor/datasheet_profiles.cpp from "
              "the figures above (predictor/PROFILE.md, 'Datasheet profiles')"}};
  return p;
}

namespace {

// The three drives as data: each one's figures, and where each figure came from (the
// datasheet, or our assumption where it is silent) as the profile's `source`.
// Seagate-style names would promise more than a datasheet gives: the built-ins are
// named by class, and `source` says whose figures they are.
struct Builtin {
  DatasheetSpec figures;
  const char* source;  // JSON
};

const std::vector<Builtin>& builtins() {
  static const std::vector<Builtin> drives = {
      {{.name = "sata7200-8tb", .capacity_bytes = 8e12, .rpm = 7200, .heads = 12, .zones = 24,
        .sustained_outer_mb_s = 205, .sustained_inner_mb_s = 205.0 / 2, .avg_seek_ms = 8.0,
        .single_track_ms = 0.8, .full_stroke_ms = 16.0, .head_switch_ms = 0.8,
        .overhead_ms = {0.1, 0.1, 0.05}, .logical_sector_bytes = 512,
        .physical_sector_bytes = 4096, .buffer_bytes = 256ull << 20, .bus_mb_s = 600},
       R"json({"class": "8 TB 7200 rpm enterprise SATA drive (512e; -4kn: 4Kn)",
           "datasheet": {
             "reference": "the datasheet figures of one 8 TB 7200 rpm enterprise SATA drive",
             "capacity": "8 TB (10^12 bytes)",
             "rpm": "7200 (average latency 4.16 ms = half a revolution)",
             "avg_seek_ms": "8.0 (read)",
             "sustained_outer": "205 MB/s",
             "buffer": "256 MB",
             "formats": "512e and 4Kn"},
           "assumptions": {
             "heads": "12 (6 platters)",
             "zones": "24 equal bands of cylinders",
             "sustained_inner": "half the outer: outer tracks carry about twice the sectors of inner ones",
             "single_track_ms": "0.8",
             "head_switch_ms": "0.8 (a settle, like a single-track seek)",
             "full_stroke_ms": "16 (about twice the average)",
             "overhead_ms": "0.1 per read or write, 0.05 other",
             "bus": "SATA 6 Gb/s: 600 MB/s",
             "cache": "the buffer in 128 segments of 2 MiB, read-ahead up to 2 MiB beyond a read; the volatile write cache on, as drives ship: 4 MiB (a 64th of the buffer, as the measured ST2000DM006 gives scattered writes) destaged shortest positioning first"}})json"},
      {{.name = "laptop5400-320gb", .capacity_bytes = 320e9, .rpm = 5400, .heads = 4, .zones = 16,
        .sustained_outer_mb_s = 80, .sustained_inner_mb_s = 40, .avg_seek_ms = 12.0,
        .single_track_ms = 1.0, .full_stroke_ms = 20.0, .head_switch_ms = 1.0,
        .overhead_ms = {0.3, 0.3, 0.1}, .logical_sector_bytes = 512,
        .physical_sector_bytes = 512, .buffer_bytes = 8ull << 20, .bus_mb_s = 300},
       R"json({"class": "320 GB 5400 rpm 2.5-inch SATA drive (512n; -512e, -4kn: those formats)",
           "datasheet": {
             "reference": "Hitachi Travelstar 5K320 SATA OEM Specification rev. 1.5 (2010), sec. 4.4.2 (mechanical positioning)",
             "capacity": "320 GB",
             "rpm": "5400 (average latency 5.5 ms, revolution 11.1 ms)",
             "avg_seek_ms": "12 (read, typical; weighted average of all seek lengths)",
             "single_track_ms": "1.0 (read, typical)",
             "full_stroke_ms": "20.0 (read, typical)",
             "formats": "512-byte sectors"},
           "assumptions": {
             "heads": "4 (two 160 GB disks)",
             "zones": "16 equal bands of cylinders",
             "sustained": "80 MB/s outer, 40 MB/s inner (the specification's figure was not at hand; outer about twice inner)",
             "head_switch_ms": "1.0 (as the single-track seek)",
             "buffer": "8 MB",
             "overhead_ms": "0.3 per read or write, 0.1 other",
             "bus": "SATA 3 Gb/s: 300 MB/s",
             "cache": "the buffer in segments of 2 MiB, read-ahead up to 2 MiB beyond a read; the volatile write cache on: 128 KiB (a 64th of the buffer, as the measured ST2000DM006 gives scattered writes) destaged shortest positioning first"}})json"},
      {{.name = "sas15k-600gb", .capacity_bytes = 600e9, .rpm = 15000, .heads = 8, .zones = 20,
        .sustained_outer_mb_s = 204, .sustained_inner_mb_s = 122, .avg_seek_ms = 3.4,
        .single_track_ms = 0.4, .full_stroke_ms = 7.5, .head_switch_ms = 0.4,
        .overhead_ms = {0.1, 0.1, 0.05}, .logical_sector_bytes = 512,
        .physical_sector_bytes = 512, .buffer_bytes = 16ull << 20, .bus_mb_s = 600},
       R"json({"class": "600 GB 15k rpm 3.5-inch SAS drive (512n; -512e, -4kn: those formats)",
           "datasheet": {
             "reference": "Seagate Cheetah 15K.7 SAS Product Manual 100516226, sec. 4.2.3 (general performance characteristics)",
             "capacity": "600 GB",
             "rpm": "15000 (average rotational latency 2.0 ms)",
             "sustained": "204 MB/s maximum, 122 MB/s minimum (1 MB/s = 10^6 bytes/s)",
             "formats": "512 (520, 528) byte sectors",
             "bus": "SAS 600 MB/s per port"},
           "assumptions": {
             "avg_seek_ms": "3.4 (read), as we recall the same manual's seek table; not re-checked against its text",
             "buffer": "16 MB, as we recall it; not re-checked",
             "heads": "8 (four disks)",
             "zones": "20 equal bands of cylinders",
             "single_track_ms": "0.4",
             "head_switch_ms": "0.4",
             "full_stroke_ms": "7.5",
             "overhead_ms": "0.1 per read or write, 0.05 other",
             "cache": "the buffer in segments of 2 MiB, read-ahead up to 2 MiB beyond a read; the volatile write cache on: 256 KiB (a 64th of the buffer, as the measured ST2000DM006 gives scattered writes) destaged shortest positioning first"}})json"},
      {{.name = "st2000dm006", .capacity_bytes = 2000398934016.0, .rpm = 7200, .heads = 4,
        .zones = 24, .sustained_outer_mb_s = 220, .sustained_inner_mb_s = 110,
        .avg_seek_ms = 8.5, .single_track_ms = 1.0, .full_stroke_ms = 18.0,
        .head_switch_ms = 1.0, .write_settle_ms = 1.0, .overhead_ms = {4.5, 0.5, 20.0},
        .logical_sector_bytes = 512, .physical_sector_bytes = 4096,
        .buffer_bytes = 64ull << 20, .write_buffer_bytes = 1ull << 20, .write_buffer_window = 4, .bus_mb_s = 600},
       R"json({"class": "Seagate BarraCuda ST2000DM006: 2 TB 7200 rpm 3.5-inch desktop SATA drive (512e)",
           "datasheet": {
             "reference": "Seagate BarraCuda 3.5 / Desktop HDD data sheets (ST2000DM006); capacity, format, rpm and interface also as the drive reports them (smartctl: 2,000,398,934,016 bytes, 512 bytes logical / 4096 physical, 7200 rpm, SATA 3.1 6.0 Gb/s)",
             "capacity": "2,000,398,934,016 bytes",
             "rpm": "7200 (average latency 4.16 ms)",
             "avg_seek_ms": "8.5 read; 9.5 write (as write_settle_ms = 1.0: the difference)",
             "sustained_outer": "220 MB/s (OD)",
             "buffer": "64 MB",
             "interface": "SATA 6 Gb/s: 600 MB/s",
             "formats": "512e",
             "checked": "capacity, format, rpm and interface against the drive's own report; cache, seek and rate figures as we recall the data sheet, not re-checked against its text"},
           "fitted": {
             "to": "the measured drive (ublk and fio, as published with ublk-disksim's validation; ../shared/reference/real-drives.md): QD1 random 4 KiB read mean 17.3 ms, median 17.4, p99 28.7; flush after 8 / 64 scattered 4 KiB writes 103 / 656 ms; 1 MiB of cache for random writes. bench/experiments/drives-of-today.sh prints ours beside them",
             "overhead_ms": "read 4.5: the measured mean less the datasheet's seek and latency (the host path through ublk included)",
             "full_stroke_ms": "18: the tail (p99 28.7 ms) less a revolution and the read overhead",
             "write_buffer_bytes": "1 MiB (the measured cache for random writes), destaged shortest positioning first among the oldest 4 (write_buffer_window: as its queue reorders about 4; the flushes' 9.4 ms a write whatever their number says the drive does not exploit a larger pool)",
             "overhead_other_ms": "20: a FLUSH's fixed part (measured about 28 ms + 9.4 ms a write)",
             "queue": "the firmware reorders about 4 commands: DriveQueueOptions.window = 4 (sim --drive-window 4)"},
           "assumptions": {
             "heads": "4 (two 1 TB platters)",
             "zones": "24 equal bands of cylinders",
             "sustained_inner": "half the outer",
             "single_track_ms": "1.0",
             "head_switch_ms": "1.0",
             "overhead_ms": "0.5 per write",
             "cache": "the 64 MB buffer in 32 segments of 2 MiB for reads, read-ahead up to 2 MiB"}})json"},
  };
  return drives;
}

}  // namespace

std::optional<DiskProfile> datasheet_builtin(std::string_view full) {
  // "-nocache": the platter alone, without the buffer and the bus.
  constexpr std::string_view kNoCache = "-nocache";
  const bool nocache = full.size() > kNoCache.size() &&
                       full.substr(full.size() - kNoCache.size()) == kNoCache;
  const std::string_view name = nocache ? full.substr(0, full.size() - kNoCache.size()) : full;
  struct Format {
    std::string_view suffix;
    std::uint32_t logical, physical;
  };
  constexpr Format kFormats[] = {{"-512n", 512, 512}, {"-512e", 512, 4096}, {"-4kn", 4096, 4096}};
  for (const Builtin& b : builtins()) {
    const std::string_view base = b.figures.name;
    if (name.substr(0, base.size()) != base) continue;
    const std::string_view suffix = name.substr(base.size());
    DatasheetSpec d = b.figures;
    d.source = json::parse(b.source);
    d.name = std::string(full);
    if (nocache) {
      d.buffer_bytes = 0;
      d.bus_mb_s = 0;
    }
    if (!suffix.empty()) {
      const Format* f = nullptr;
      for (const Format& x : kFormats)
        if (x.suffix == suffix) f = &x;
      if (f == nullptr) continue;
      d.logical_sector_bytes = f->logical;
      d.physical_sector_bytes = f->physical;
    }
    return datasheet_profile(d);
  }
  return std::nullopt;
}

std::vector<std::string> datasheet_builtin_names() {
  std::vector<std::string> names;
  for (const Builtin& b : builtins()) names.push_back(b.figures.name);
  return names;
}

}  // namespace disksched
