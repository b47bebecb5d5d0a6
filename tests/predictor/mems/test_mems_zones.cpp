// Zone sizing (Hong sec. 7.2), the access map (Fig. 2) and the equivalence regions.
#include <algorithm>
#include <random>
#include <sstream>

#include <catch2/catch.hpp>

#include "predictor/mems/mems_map.hpp"
#include "predictor/mems/mems_zones.hpp"

using namespace disksched;

namespace {

// A small sled so that brute force over every window and every pair stays cheap; its
// springs are as stiff relative to its size as the G2's.
MemsParams small_sled() { return MemsParams{.name = "mems-small", .bits_x = 160, .bits_y = 180}; }

// The rule's worst seek over every pair of positions of every window of height h (y) by
// brute force, for +y and -y zones.
Millis brute_worst_y(const MemsSled& s, ZoneRule rule, std::int64_t h, bool centre_only) {
  const std::int64_t n = s.bits_y();
  Millis worst = 0;
  for (std::int64_t lo = 0; lo + h <= n; ++lo) {
    if (centre_only && lo != (n - h) / 2) continue;
    const std::int64_t hi = lo + h - 1;
    for (int d : {+1, -1}) {
      for (std::int64_t p = lo; p <= hi; ++p) {
        for (std::int64_t q = lo; q <= hi; ++q) {
          const bool ahead = d > 0 ? q > p : q < p;
          const std::int64_t ref = d > 0 ? lo : hi;
          if (rule == ZoneRule::Forward && !ahead) continue;
          if (rule == ZoneRule::Reference && p != ref) continue;
          worst = std::max(worst, s.y_seek_ms(static_cast<double>(p), d, static_cast<double>(q), d));
        }
      }
    }
  }
  return worst;
}

Millis brute_worst_x(const MemsSled& s, std::int64_t w) {
  const std::int64_t n = s.bits_x();
  Millis worst = 0;
  for (std::int64_t lo = 0; lo + w <= n; ++lo) {
    for (std::int64_t p = lo; p < lo + w; ++p)
      for (std::int64_t q = p + 2; q < lo + w; q += 2) worst = std::max(worst, s.x_seek_ms(p, q));
  }
  return worst;
}

}  // namespace

TEST_CASE("zone search: the per-size worst seek equals brute force over windows and pairs", "[mems]") {
  const MemsParams p = small_sled();
  for (double sf : {0.75, 0.0}) {
    const MemsSled s(p, sf);
    for (ZoneRule rule : {ZoneRule::AllPairs, ZoneRule::Forward, ZoneRule::Reference}) {
      const auto wy = mems_zone_worst_y(s, rule, p.bits_y);
      REQUIRE(wy.size() == static_cast<std::size_t>(p.bits_y));
      for (std::int64_t h : {2, 3, 17, 64, 121, 180}) {
        INFO("rule " << zone_rule_name(rule) << " spring " << sf << " height " << h);
        CHECK(wy[static_cast<std::size_t>(h - 1)] == Approx(brute_worst_y(s, rule, h, false)).epsilon(1e-12));
      }
    }
    const auto wx = mems_zone_worst_x(s, p.bits_x);
    for (std::int64_t w : {1, 2, 3, 4, 9, 40, 97, 160}) {
      INFO("spring " << sf << " width " << w);
      CHECK(wx[static_cast<std::size_t>(w - 1)] == Approx(brute_worst_x(s, w)).epsilon(1e-12));
    }
    // The centred placement: the DP's centre window against brute force on it alone.
    const auto cy = mems_zone_worst_y(s, ZoneRule::AllPairs, p.bits_y, ZonePlacement::Centre);
    for (std::int64_t h : {5, 50, 99}) CHECK(cy[static_cast<std::size_t>(h - 1)] == Approx(brute_worst_y(s, ZoneRule::AllPairs, h, true)).epsilon(1e-12));
  }
}

TEST_CASE("zone sizes grow with the threshold; all-pairs never exceeds reference", "[mems]") {
  const MemsModel m;
  for (double sf : {0.75, 0.0}) {
    for (ZonePlacement pl : {ZonePlacement::Everywhere, ZonePlacement::Centre}) {
      const MemsSled s(m.params(), sf);
      const auto wx = mems_zone_worst_x(s, s.bits_x(), pl, 0.5);
      std::vector<std::vector<Millis>> wy;
      for (ZoneRule rule : {ZoneRule::AllPairs, ZoneRule::Forward, ZoneRule::Reference})
        wy.push_back(mems_zone_worst_y(s, rule, s.bits_y(), pl, 0.5));
      auto size_below = [](const std::vector<Millis>& w, Millis t) {
        std::int64_t k = 0;
        while (k < static_cast<std::int64_t>(w.size()) && w[static_cast<std::size_t>(k)] < t) ++k;
        return k;
      };
      std::int64_t prev[4] = {0, 0, 0, 0};
      for (Millis t = 0.05; t <= 0.5; t += 0.01) {
        const std::int64_t x = size_below(wx, t);
        const std::int64_t all = size_below(wy[0], t), fwd = size_below(wy[1], t), ref = size_below(wy[2], t);
        CHECK(x >= prev[0]);
        CHECK(all >= prev[1]);
        CHECK(fwd >= prev[2]);
        CHECK(ref >= prev[3]);
        CHECK(all <= ref);
        CHECK(all <= fwd);
        prev[0] = x, prev[1] = all, prev[2] = fwd, prev[3] = ref;
        if (t < m.sled().settle_ms()) CHECK(x == 2);   // one column per parity: no x seek
      }
      CHECK(prev[0] > 2);
    }
  }
  // The same through mems_zone_size, which also reports the worst seeks.
  ZoneSize last{};
  for (Millis t : {0.25, 0.3, 0.35, 0.4, 0.45}) {
    ZoneOptions o;
    o.threshold_ms = t;
    const ZoneSize all = mems_zone_size(m, o);
    o.rule = ZoneRule::Reference;
    const ZoneSize ref = mems_zone_size(m, o);
    CHECK(all.zone_x_bits <= ref.zone_x_bits);
    CHECK(all.zone_y_bits <= ref.zone_y_bits);
    CHECK(all.zone_x_bits >= last.zone_x_bits);
    CHECK(all.zone_y_bits >= last.zone_y_bits);
    CHECK(all.worst_x_ms < t);
    CHECK(all.worst_y_ms < t);
    last = all;
  }
}

TEST_CASE("a zone size is the largest whose worst seek stays under the threshold", "[mems]") {
  const MemsModel m;
  for (ZoneRule rule : {ZoneRule::AllPairs, ZoneRule::Forward, ZoneRule::Reference}) {
    ZoneOptions o;
    o.threshold_ms = 0.4;
    o.rule = rule;
    const ZoneSize z = mems_zone_size(m, o);
    const MemsSled& s = m.sled();
    const auto wx = mems_zone_worst_x(s, z.zone_x_bits + 1);
    const auto wy = mems_zone_worst_y(s, rule, z.zone_y_bits + 1);
    CHECK(wx[static_cast<std::size_t>(z.zone_x_bits - 1)] < 0.4);
    CHECK(wx[static_cast<std::size_t>(z.zone_x_bits)] >= 0.4);
    CHECK(wy[static_cast<std::size_t>(z.zone_y_bits - 1)] < 0.4);
    CHECK(wy[static_cast<std::size_t>(z.zone_y_bits)] >= 0.4);
    // With divisors the zones tile the 2400 x 2400 tip region.
    o.divisors = true;
    const ZoneSize d = mems_zone_size(m, o);
    CHECK(2400 % d.zone_x_bits == 0);
    CHECK(2400 % d.zone_y_bits == 0);
    CHECK(d.zone_x_bits <= z.zone_x_bits);
    CHECK(d.zone_y_bits <= z.zone_y_bits);
  }
}

TEST_CASE("zone options: parsing, JSON, errors", "[mems]") {
  const MemsModel m;
  CHECK(parse_zone_rule("all-pairs") == ZoneRule::AllPairs);
  CHECK(parse_zone_rule("forward") == ZoneRule::Forward);
  CHECK(parse_zone_rule("reference") == ZoneRule::Reference);
  CHECK_THROWS_WITH(parse_zone_rule("pairs"), Catch::Contains("'pairs'") && Catch::Contains("all-pairs"));
  CHECK(parse_zone_placement("centre") == ZonePlacement::Centre);
  CHECK_THROWS_WITH(parse_zone_placement("edge"), Catch::Contains("everywhere"));
  CHECK(parse_spring("on", m.params()) == 0.75);
  CHECK(parse_spring("off", m.params()) == 0.0);
  CHECK(parse_spring("0.375", m.params()) == 0.375);
  CHECK_THROWS_WITH(parse_spring("1.5", m.params()), Catch::Contains("'1.5'"));
  CHECK_THROWS_WITH(parse_spring("yes", m.params()), Catch::Contains("on, off"));
  ZoneOptions o;
  o.threshold_ms = 0;
  CHECK_THROWS_WITH(mems_zone_size(m, o), Catch::Contains("threshold"));
  o.threshold_ms = 0.3;
  o.spring_factor = 0;
  const ZoneSize z = mems_zone_size(m, o);
  const auto j = to_json(z, m.params());
  CHECK(j["zone_x_bits"] == z.zone_x_bits);
  CHECK(j["zone_y_bits"] == z.zone_y_bits);
  CHECK(j["rule"] == "all-pairs");
  CHECK(j["threshold_ms"] == 0.3);
  CHECK(j["spring"] == "off");
  CHECK(j["placement"] == "everywhere");
  // Without springs a seek depends on distance alone: the no-spring x width at T is the
  // widest pair d with 2 sqrt(d / a) + settle < T.
  const double settle = m.sled().settle_ms();
  std::int64_t d = 0;
  while (2000.0 * std::sqrt((d + 1) * 40e-9 / 803.6) + settle < 0.3) ++d;
  CHECK(z.zone_x_bits == ((d % 2) ? d + 1 : d + 2));
}

TEST_CASE("access map (Hong Fig. 2): grid, reach fractions, CSV", "[mems]") {
  const MemsModel m;
  const MemsSled& s = m.sled();
  const MemsGrid g = mems_seek_grid(m, 1200, 1200, 10, 10);
  CHECK(g.xs.size() == 240);
  CHECK(g.ys.size() == 240);
  CHECK(g.at(120, 120) == 0.0);  // the start itself
  std::mt19937_64 rng(4);
  std::uniform_int_distribution<std::size_t> pick(0, 239);
  for (int i = 0; i < 2000; ++i) {
    const std::size_t ix = pick(rng), iy = pick(rng);
    const std::int64_t x = g.xs[ix];
    REQUIRE(g.at(ix, iy) == s.seek_ms(1200, 1200, 1, x, g.ys[iy], MemsLayout::direction(x)));
  }
  const auto bands = mems_band_thresholds(g);
  const auto reach = mems_reach(g, bands);
  REQUIRE(reach.size() == bands.size());
  for (std::size_t i = 1; i < reach.size(); ++i) CHECK(reach[i].fraction >= reach[i - 1].fraction);
  CHECK(reach.back().fraction == 1.0);
  CHECK(reach.front().fraction < 0.01);
  // The grid's odd columns from an even start pay a turnaround the even ones do not.
  CHECK(s.seek_ms(1200, 1200, 1, 1200, 1300, 1) < s.seek_ms(1200, 1200, 1, 1201, 1300, -1));
  std::ostringstream csv;
  write_mems_grid_csv(mems_seek_grid(m, 0, 0, 600, 600), csv);
  const std::string text = csv.str();
  CHECK(text.rfind("x,y,seek_ms\n0,0,0.000000\n600,0,", 0) == 0);
  CHECK(std::count(text.begin(), text.end(), '\n') == 17);
  CHECK_THROWS_WITH(mems_seek_grid(m, 2400, 0), Catch::Contains("outside the tip region"));
  CHECK_THROWS_WITH(mems_seek_grid(m, 0, 0, 0, 1), Catch::Contains("steps"));
}

TEST_CASE("equivalence regions are rectangles that grow with the threshold", "[mems]") {
  const MemsModel m;
  const MemsSled& s = m.sled();
  const auto regions = mems_equivalence_regions(m, 1200, 1200, {0.1, 0.2, 0.3, 0.4, 0.5});
  CHECK(regions[0].x_bits == 1);  // below the settle time x cannot move
  for (std::size_t i = 1; i < regions.size(); ++i) {
    CHECK(regions[i].x_bits >= regions[i - 1].x_bits);
    CHECK(regions[i].y_bits >= regions[i - 1].y_bits);
  }
  // Its x edge: the last same-parity column within T, the next one beyond it.
  const auto& r = regions[3];
  const std::int64_t half = (r.x_bits - 1) / 2;
  CHECK(s.x_seek_ms(1200, 1200 + half) <= 0.4);
  CHECK(s.x_seek_ms(1200, 1200 + half + 2) > 0.4);
  CHECK(r.y_per_x == Approx(static_cast<double>(r.y_bits) / r.x_bits));
  CHECK(r.y_bits > r.x_bits);  // y is the cheap direction (Hong: x:y about 1:10)
  const auto sum = mems_equivalence_summary(m, 1200, 1200);
  CHECK(sum.y_per_x > 1);
  CHECK(!sum.regions.empty());
}
