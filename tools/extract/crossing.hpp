// The zones step's crossings: how many cylinders lie between a zone's last cylinder
// with data and the next zone's first (its spare cylinders and one), from seeks into the
// next zone set against seeks inside the zone, in named stages: next door or not, a
// first count, a table of the short seeks where the count is small, and pairs read off
// the seek curve.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "tools/extract/findings.hpp"
#include "tools/extract/instrument.hpp"

namespace disksched::extract {

// What the crossing may spend, from the zones step.
struct CrossingBudget {
  std::function<bool()> over_share;  // past the zones step's share of the budget
  int& cut;                          // crossings counted from fewer seeks, so far
  double close_calls_end;            // of the budget: past it, no more rounds for a close call
};

class Crossing {
 public:
  // From cylinder c (zone z's last with data) to the next zone's first track, whose
  // first LBA is `next` and track size next_spt.
  Crossing(Instrument& in, Findings& f, const ZoneLayout& z, std::int64_t c, std::uint64_t next,
           std::uint32_t next_spt, CrossingBudget budget);
  // The cylinders from c to the next zone's first (1: next door).
  std::int64_t count();

 private:
  using LbaAt = std::function<std::optional<std::uint64_t>(std::uint32_t)>;
  // The seek measured at the nearest distance so far, and whether it is within two
  // cylinders of dist.
  struct SeekGuess {
    Millis ms = 0;
    bool near = false;
  };
  // The short seeks' table (short_table): the counts tried, each seek's samples (the
  // seek inside the zone of x cylinders, the crossing from a cylinders in) and each
  // count's misfit, best first.
  struct Table {
    std::int64_t lo = 0, hi = 0;
    std::map<std::int64_t, std::vector<Millis>> in, out;
    std::vector<std::pair<double, std::int64_t>> fits;
    bool steep = false;
  };
  // A crossing with a seek inside the zone about as long, measured together.
  struct Paired {
    std::int64_t a, x;  // the crossing from a cylinders in; the seek inside, x cylinders long
    Millis ms, ms_in;
  };
  // The pairs' rounds (paired_rounds).
  struct Rounds {
    double est = 0, spread = 0;
    std::int64_t d = 0;
    std::vector<std::int64_t> offsets;
    bool sure = false;
    std::vector<Paired> paired;
    std::vector<double> read;  // each pair's count, as the last round read them
    Millis ms_a_cylinder = 0;  // how much longer the seeks inside are one cylinder further on
  };

  // Probes and guesses.
  std::uint32_t sector(std::uint32_t spt) { return static_cast<std::uint32_t>(in_.rand_below(spt / 2)); }
  SeekGuess seek_guess(std::int64_t dist) const;
  Millis guess(std::int64_t dist) const { return std::max(0.0, seek_guess(dist).ms - 0.4); }
  std::optional<std::int32_t> head_at(std::int64_t cyl) const;
  bool has_head0(std::int64_t cyl) const { return head_at(cyl).has_value(); }
  Millis inside(std::int64_t x);
  Millis at(std::int64_t x);
  Millis cross(std::int64_t a);
  double dst_phase(std::uint64_t y, int reps);
  double track_end(std::uint64_t src);
  void clear_of(Instrument::Move& m, double& ph, std::uint32_t spt, std::int64_t dist, double end,
                std::uint32_t s0, const LbaAt& lba_at);
  LbaAt end_track(std::int32_t h);
  LbaAt next_track();
  Millis threshold(const Instrument::Move& m, double ph, std::uint32_t spt, std::int64_t dist);

  // Stages.
  std::int64_t first_count();
  void choose_resolution(std::int64_t d0);
  std::optional<std::int64_t> short_table(std::int64_t d0);
  Millis table_measure(std::uint64_t src, std::uint64_t dst, std::uint32_t src_spt, std::uint32_t dst_spt,
                       std::uint32_t s0, std::int64_t dist, const LbaAt& lba_at);
  void table_cross_at(Table& t, std::int64_t a, std::int64_t d0);
  void table_inside_at(Table& t, std::int64_t x);
  bool table_first_round(Table& t, std::int64_t d0);
  void table_again(Table& t, std::int64_t d0);
  void table_fit(Table& t);
  bool table_sure(const Table& t) const;
  std::int64_t table_count(const Table& t);
  std::int64_t paired_rounds(std::int64_t d0);
  void pair_offsets(Rounds& r, int round, bool short_of_time);
  void measure_pair(Rounds& r, std::int64_t a);
  std::optional<bool> read_pairs(Rounds& r, int round);
  std::int64_t paired_count(Rounds& r);

  Instrument& in_;
  Findings& f_;
  const Layout& L;
  const ZoneLayout& z;
  const std::int64_t c;
  const std::uint64_t next;
  const std::uint32_t next_spt;
  CrossingBudget budget_;
  std::int64_t first_;  // the zone's first cylinder whose first track holds data
  std::int64_t room_;   // cylinders from it to c
  std::vector<std::pair<std::int64_t, Millis>> crossings_;  // (a, seek from c - a into the next zone)
  bool ahead_ = false;  // a drive that reads ahead, behind the cache defeat
  Millis T_ = 0;        // the period when the first count was made
  Millis hs_ = 0;       // a head switch (1 ms before the switch step measures it)
  Millis res_ = 0;      // the reach thresholds' resolution here (choose_resolution)
};

}  // namespace disksched::extract
