#include "tools/extract/tolerances.hpp"

#include <fmt/format.h>

namespace disksched::extract {

std::optional<Tolerances> tolerances_named(std::string_view name) {
  if (name == "hp97560") return Tolerances{};
  if (name != "today") return std::nullopt;
  Tolerances t;
  // The period as before: every phase the predictor computes rests on it.
  t.period_relative = 0.001;
  // A 512e drive skews by whole 4 KiB physical sectors: 8 logical ones, 0.2-0.5 % of a
  // track of today (0.02-0.04 ms at 7200 rpm).
  t.skew_sectors = 8.0;
  t.head_switch_ms = 0.1;
  // Sampled by distance over some 470k cylinders: 0.5 ms RMS, 6 % of an 8 ms average seek.
  t.seek_rms_ms = 0.5;
  // Zones found by sampling track length and rate: boundaries within 0.2 % of the
  // cylinders (950 of 474,517 on sata7200-8tb, 5 % of a zone).
  t.zone_cylinders_relative = 0.002;
  t.drive = true;
  t.read_ahead_relative = 0.02;
  t.segments_off = 0;
  t.write_buffer_relative = 0.10;
  t.queue_depth_off = 0;
  return t;
}

// A drive of today ships with a volatile write cache by size; an imported DiskSim drive
// (its cache as DiskSim had it) and the HP 97560 are held to issue 7's set.
std::string auto_tolerances(const DiskProfile& truth) {
  return truth.drive.cache.write_buffer() ? "today" : "hp97560";
}

std::string tolerances_help() {
  std::string out = "Tolerances (--tolerances NAME; auto: today for a truth with a write cache by size\n"
                    "(cache.write_buffer_bytes: a drive of today), else hp97560):\n";
  for (const char* name : {"hp97560", "today"}) {
    const Tolerances t = *tolerances_named(name);
    out += fmt::format("  {}:\n", name);
    out += fmt::format("    rotation period         within {} %\n", 100 * t.period_relative);
    out += "    heads, sectors per track exact\n";
    out += t.zone_cylinders_relative > 0
               ? fmt::format("    zones                   first and last cylinder within {} % of the cylinders\n"
                             "    LBA -> cylinder         within {} % of the cylinders at 1025 spread LBAs\n",
                             100 * t.zone_cylinders_relative, 100 * t.zone_cylinders_relative)
               : "    zones                   exact\n    LBA -> c, h, s          exact at 1025 spread LBAs\n";
    out += fmt::format("    track, cylinder skew    within {} sectors\n", t.skew_sectors);
    out += fmt::format("    head switch             within {} ms\n", t.head_switch_ms);
    out += fmt::format("    seek curve              RMS within {} ms over every distance\n", t.seek_rms_ms);
    if (!t.drive) {
      out += "    cache, write cache, queue not checked\n";
      continue;
    }
    out += fmt::format("    cache segments          within {}\n", t.segments_off);
    out += fmt::format("    read-ahead              within {} %\n", 100 * t.read_ahead_relative);
    out += "    write cache             found when the truth has one, none when not\n";
    out += fmt::format("    write cache size        within {} %\n", 100 * t.write_buffer_relative);
    out += fmt::format("    drive queue depth       within {} (with --drive-queue: the emulator's)\n",
                       t.queue_depth_off);
  }
  return out;
}

}  // namespace disksched::extract
