#include "predictor/mems/mems_map.hpp"

#include <algorithm>
#include <cmath>
#include <ostream>

#include <fmt/format.h>

namespace disksched {

namespace {

void check_start(const MemsModel& m, std::int64_t x0, double y0) {
  const MemsParams& p = m.params();
  if (x0 < 0 || x0 >= p.bits_x || !(y0 >= 0) || !(y0 < static_cast<double>(p.bits_y)))
    throw ModelError(fmt::format("{}: start ({}, {}) lies outside the tip region; expected "
                                 "0 <= x < {} and 0 <= y < {}",
                                 m.name(), x0, y0, p.bits_x, p.bits_y));
}

}  // namespace

Millis MemsGrid::max_ms() const {
  return seek_ms.empty() ? 0.0 : *std::max_element(seek_ms.begin(), seek_ms.end());
}

MemsGrid mems_seek_grid(const MemsModel& m, std::int64_t x0, double y0, std::int64_t step_x,
                        std::int64_t step_y) {
  check_start(m, x0, y0);
  if (step_x < 1 || step_y < 1)
    throw ModelError(fmt::format("mems map: steps must be >= 1, got {} x {}", step_x, step_y));
  const MemsParams& p = m.params();
  const MemsSled& sled = m.sled();
  MemsGrid g;
  g.from_x = x0;
  g.from_y = y0;
  g.from_dir = MemsLayout::direction(x0);
  g.step_x = step_x;
  g.step_y = step_y;
  for (std::int64_t x = 0; x < p.bits_x; x += step_x) g.xs.push_back(x);
  for (std::int64_t y = 0; y < p.bits_y; y += step_y) g.ys.push_back(static_cast<double>(y));
  g.seek_ms.resize(g.xs.size() * g.ys.size());
  // seek = max(t_x, t_y): t_x depends on the column only, t_y on y and the column's parity.
  std::vector<Millis> tx(g.xs.size());
  for (std::size_t i = 0; i < g.xs.size(); ++i) tx[i] = sled.x_seek_ms(x0, g.xs[i]);
  for (std::size_t j = 0; j < g.ys.size(); ++j) {
    const Millis ty_up = sled.y_seek_ms(y0, g.from_dir, g.ys[j], +1);
    const Millis ty_dn = sled.y_seek_ms(y0, g.from_dir, g.ys[j], -1);
    Millis* row = &g.seek_ms[j * g.xs.size()];
    for (std::size_t i = 0; i < g.xs.size(); ++i)
      row[i] = std::max(tx[i], MemsLayout::direction(g.xs[i]) > 0 ? ty_up : ty_dn);
  }
  return g;
}

std::vector<MemsReach> mems_reach(const MemsGrid& g, const std::vector<Millis>& thresholds_ms) {
  std::vector<Millis> sorted = g.seek_ms;
  std::sort(sorted.begin(), sorted.end());
  std::vector<MemsReach> out;
  for (Millis t : thresholds_ms) {
    const auto n = std::upper_bound(sorted.begin(), sorted.end(), t) - sorted.begin();
    out.push_back({t, sorted.empty() ? 0.0 : static_cast<double>(n) / static_cast<double>(sorted.size())});
  }
  return out;
}

std::vector<Millis> mems_band_thresholds(const MemsGrid& g, Millis band_ms) {
  if (!(band_ms > 0)) throw ModelError(fmt::format("mems map: band {} ms must be > 0", band_ms));
  std::vector<Millis> out;
  const Millis top = g.max_ms();
  for (int k = 1;; ++k) {
    out.push_back(k * band_ms);
    if (k * band_ms >= top || k > 10000) break;
  }
  return out;
}

void write_mems_grid_csv(const MemsGrid& g, std::ostream& out) {
  out << "x,y,seek_ms\n";
  for (std::size_t j = 0; j < g.ys.size(); ++j)
    for (std::size_t i = 0; i < g.xs.size(); ++i)
      out << fmt::format("{},{},{:.6f}\n", g.xs[i], g.ys[j], g.at(i, j));
}

std::vector<MemsEquivalence> mems_equivalence_regions(const MemsModel& m, std::int64_t x0, double y0,
                                                      const std::vector<Millis>& thresholds_ms) {
  check_start(m, x0, y0);
  const MemsParams& p = m.params();
  const MemsSled& sled = m.sled();
  const int dir = MemsLayout::direction(x0);
  std::vector<MemsEquivalence> out;
  for (Millis t : thresholds_ms) {
    MemsEquivalence e;
    e.threshold_ms = t;
    // t_x grows with distance on either side, so walk out column by column (same parity).
    std::int64_t left = x0, right = x0;
    while (left - 2 >= 0 && sled.x_seek_ms(x0, left - 2) <= t) left -= 2;
    while (right + 2 < p.bits_x && sled.x_seek_ms(x0, right + 2) <= t) right += 2;
    e.x_bits = right - left + 1;
    std::int64_t lo = -1, hi = -1;
    for (std::int64_t y = 0; y < p.bits_y; ++y) {
      if (sled.y_seek_ms(y0, dir, static_cast<double>(y), dir) <= t) {
        if (lo < 0) lo = y;
        hi = y;
      }
    }
    e.y_bits = lo < 0 ? 0 : hi - lo + 1;
    e.y_per_x = static_cast<double>(e.y_bits) / static_cast<double>(e.x_bits);
    out.push_back(e);
  }
  return out;
}

MemsEquivalenceSummary mems_equivalence_summary(const MemsModel& m, std::int64_t x0, double y0,
                                                Millis band_ms) {
  if (!(band_ms > 0)) throw ModelError(fmt::format("mems: band {} ms must be > 0", band_ms));
  const MemsParams& p = m.params();
  MemsEquivalenceSummary out;
  double log_sum = 0;
  for (int k = 1; k < 1000; ++k) {
    const MemsEquivalence e = mems_equivalence_regions(m, x0, y0, {k * band_ms}).front();
    if (e.x_bits >= p.bits_x - 1 || e.y_bits >= p.bits_y) break;
    if (e.x_bits <= 1) continue;
    out.regions.push_back(e);
    log_sum += std::log(e.y_per_x);
  }
  if (!out.regions.empty()) out.y_per_x = std::exp(log_sum / static_cast<double>(out.regions.size()));
  return out;
}

}  // namespace disksched
