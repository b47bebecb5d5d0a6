// Hong et al. Fig. 2: the seek time from one sled position to every position of the tip
// region, the fraction reachable within given times, and the equivalence regions.
//
// Positions are (x bit column, y bit) with x in [0, bits_x) and y in [0, bits_y), counted
// from the tip region's lower-left corner; Hong's figure counts from the centre, so his
// sector (0, 0) is (bits_x / 2, bits_y / 2) here and his top-right (1250, 1250) is the
// corner. Every position is entered moving in its column's access direction (even columns
// +y, odd -y); the start moves in the direction of its own column.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <vector>

#include "predictor/device_model.hpp"
#include "predictor/mems/mems_model.hpp"

namespace disksched {

struct MemsGrid {
  std::int64_t from_x = 0;
  double from_y = 0;
  int from_dir = +1;
  std::int64_t step_x = 1, step_y = 1;
  std::vector<std::int64_t> xs;   // target columns, ascending
  std::vector<double> ys;         // target y, ascending
  std::vector<Millis> seek_ms;    // row-major: seek_ms[iy * xs.size() + ix]

  Millis at(std::size_t ix, std::size_t iy) const { return seek_ms[iy * xs.size() + ix]; }
  Millis max_ms() const;
};

// Seek times from (x0, y0) to every step_x-th column and step_y-th y of the tip region.
// Throws ModelError for a start outside the tip region or a step < 1.
MemsGrid mems_seek_grid(const MemsModel& m, std::int64_t x0, double y0, std::int64_t step_x = 1,
                        std::int64_t step_y = 1);

struct MemsReach {
  Millis threshold_ms = 0;
  double fraction = 0;   // of the grid's positions with seek <= threshold
};
std::vector<MemsReach> mems_reach(const MemsGrid& g, const std::vector<Millis>& thresholds_ms);
// Hong's bands: 0.1 ms, 0.2 ms, ... up to the first threshold that covers the whole grid.
std::vector<Millis> mems_band_thresholds(const MemsGrid& g, Millis band_ms = 0.1);

// CSV with a header: x,y,seek_ms (one line per grid position).
void write_mems_grid_csv(const MemsGrid& g, std::ostream& out);

// Equivalence region of a start position for a threshold T: the positions in columns of
// the start's parity (its access direction) reachable within T. Since seek = max(t_x, t_y)
// and t_x depends on x alone, it is a rectangle: x_bits is the span of columns with
// t_x <= T (1 when T is below the settle time), y_bits the span of y with t_y <= T,
// counting seeks ahead and behind (with turnarounds). Hong reports x:y of about 1:10.
struct MemsEquivalence {
  Millis threshold_ms = 0;
  std::int64_t x_bits = 0;
  std::int64_t y_bits = 0;
  double y_per_x = 0;   // y_bits / x_bits
};
std::vector<MemsEquivalence> mems_equivalence_regions(const MemsModel& m, std::int64_t x0, double y0,
                                                      const std::vector<Millis>& thresholds_ms);

// Hong's "about 1:10 on average", made definite: the regions at his 0.1 ms band edges
// (T = band, 2 band, ...) that are proper rectangles (more than one column, not filling
// the tip region in x or y), and the geometric mean of their y:x ratios.
struct MemsEquivalenceSummary {
  std::vector<MemsEquivalence> regions;
  double y_per_x = 0;
};
MemsEquivalenceSummary mems_equivalence_summary(const MemsModel& m, std::int64_t x0, double y0,
                                                Millis band_ms = 0.1);

}  // namespace disksched
