// The zones step: galloping and bisection over cylinders for where the track size
// changes, the spare tracks at each zone's end (counted from the seek into the next
// zone: step_crossing.cpp) and the next zone's first skews. It ends, wherever its
// search has got to, at kZonesEnd of the budget: the steps after it need the rest.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "tools/extract/findings.hpp"
#include "tools/extract/instrument.hpp"
#include "tools/extract/crossing.hpp"
#include "tools/extract/slips.hpp"

namespace disksched::extract {

class ZoneSearch {
 public:
  // `share`: the step's share of the budget (past it, a zone crossing is counted from
  // the seeks first measured, without re-measuring close calls or searching again).
  ZoneSearch(Instrument& in, Findings& f, double share) : in_(in), f_(f), slips_(in, f), share_(share) {}
  void run();

 private:
  // The zones step ends, wherever its search has got to, once this much of the budget
  // is spent (counted from the run's start): the steps after it need the rest.
  static constexpr double kZonesEnd = 0.85;
  static constexpr double kCloseCallsEnd = 0.7;
  // The cylinder a zone's search took for the first past its end shows the zone's own
  // track size after all: one test of it (or one before) was read wrong.
  struct ZoneEndInconsistent {
    std::int64_t cylinders;  // the zone's cylinders as the search had it
    std::string what;
  };

  // Is cylinder first_cylinder + n still in zone z (same track size)? Also confirms
  // (and, with slipped sectors, corrects) where its first track starts.
  bool in_zone(const ZoneLayout& z, std::int64_t n);
  // How many tracks of cylinder c (the zone's last) hold the zone's data.
  int data_tracks(const ZoneLayout& z, std::int64_t c);
  // The size of the track that starts at LBA y (a track start for certain), from the
  // phase half a track on (near_spt: a size close to it), when the track's end and the
  // skew after it confirm it; nothing when they do not (scan instead).
  std::optional<TrackScan> track_from(std::uint64_t y, std::uint32_t near_spt);
  // Cylinders from c (the zone's last with data) to the next zone's first, whose first
  // LBA is `next`: its seek time matched against seeks inside the zone.
  std::int64_t crossing_distance(const ZoneLayout& z, std::int64_t c, std::uint64_t next, std::uint32_t next_spt);
  // The zones step stops in zone zi (out of time, or a structure it could not see): the
  // zone is taken to run to the end of the device, and a note says from where nothing
  // was measured. `confirmed`: cylinders past the zone's first found in it.
  void close_zones(std::size_t zi, const std::string& why, std::int64_t confirmed);
  void stop(std::size_t zi, const std::string& why);
  void not_timed(std::size_t zi, const std::string& what);

  // Stages of one zone's search (search_zone).
  bool search_zone(std::size_t zi, std::int64_t resume);
  std::int64_t zone_cylinders(std::size_t zi, std::int64_t resume);
  void check_last_track(const ZoneLayout& z, std::uint64_t end_pba);
  TrackScan next_zone_scan(std::size_t zi, std::uint64_t start_lba, int k);
  ZoneLayout next_zone(const ZoneLayout& zz, const TrackScan& s, std::optional<std::size_t> at,
                       std::uint64_t start_lba, bool after_spares);

  // Past the step's share of the budget? Not while, from how far it has got
  // (zones_progress_, the share of the device's LBAs searched), the step at its pace so
  // far would end before 60 % of the budget: then the rest of the budget has room for
  // full crossings (real time, BUDGET=900: the zones step measured all 8 zones in 354 s
  // and the run ended after 537 s, with two of the crossings counted from the fewer
  // seeks one off).
  bool zones_over_share() {
    const Millis spent = in_.elapsed() - zones_start_;
    if (spent <= share_ * in_.options.budget_ms) return false;
    if (zones_progress_ > 0.05 && (in_.elapsed() - spent) + spent / zones_progress_ < 0.6 * in_.options.budget_ms)
      return false;
    return true;
  }

  Instrument& in_;
  Findings& f_;
  SlipSearch slips_;
  double share_;
  Millis zones_start_ = 0;
  // The layout and confirmed track starts at the zone's start, or after the last test of
  // a cylinder that returned (what a stop goes back to), and the cylinders of the zone
  // searched past its first, all in it.
  Layout at_zone_start_;
  std::set<std::uint64_t> verified_at_start_;
  std::int64_t confirmed_ = 0;
  double zones_progress_ = 0;
  int crossings_cut_ = 0;
  // Where the zones step's time goes (in its note when it stops early): tests of a
  // cylinder, track scans among them, zone crossings and their time (slip searches:
  // slips_).
  struct ZonesSpent {
    int tests = 0, scans = 0, crossings = 0;
    Millis crossing_ms = 0;
  } spent_;
};

}  // namespace disksched::extract
