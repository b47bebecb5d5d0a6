// Slipped sectors (reference notes §5: defect holes look like skews). The layout's
// predictions are checked at track starts; a track start whose LBA is off is explained
// by locating the slipped sectors (or the slipped track) before it. Used by the heads
// and zones steps.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "tools/extract/findings.hpp"
#include "tools/extract/instrument.hpp"
#include "tools/extract/layout.hpp"

namespace disksched::extract {

// Sectors slipped just before `lba` (0 at LBA 0).
int gap_before(const Layout& L, std::uint64_t lba);
// Angle from the end of sector p1 to the end of sector p2 (p1 < p2, a cylinder or so
// apart at most), from the skews known so far; nullopt across spare tracks: the next
// zone's angle is its own.
std::optional<double> expected_delta(const Layout& L, std::uint64_t p1, std::uint64_t p2);

// Physical sectors from a sector y to x on y's track; nothing when x is not on it.
using SectorsFrom = std::function<std::optional<double>(std::uint64_t)>;
// The phase of LBA y from `reps` reads (0: the prober's repeats): behind a cache defeat,
// of as many sectors of its track read from the highest down, each less its distance.
double track_phase(Instrument& in, std::uint64_t y, int reps, std::uint32_t spt, const SectorsFrom& from);

// track_phase on y's track as the layout has it.
double layout_phase(Instrument& in, const Layout& L, std::uint64_t y, int reps);

class SlipSearch {
 public:
  SlipSearch(Instrument& in, Findings& f) : in_(in), f_(f) {}

  // Does the track starting at track_pba start where the layout puts it?
  // `phase_out`: the phase of the track's first LBA read on the way (when read).
  bool aligned(std::uint64_t track_pba, double* phase_out = nullptr);
  // Does LBA y lie where the layout puts it against y0 (read at phase0)?
  // `tolerance`: sectors (half a sector tells a slipped sector; a test between layouts a
  // whole skew apart may allow more).
  bool consistent(std::uint64_t y0, double phase0, std::uint64_t y, double tolerance = 0.5);
  // Slipped sectors in one track, added until done() holds.
  void localize_track(std::uint64_t track_pba, const std::function<bool()>& done);
  // Slipped tracks or sectors before the misplaced track start `bad_track_pba`.
  void localize(std::uint64_t bad_track_pba);

  // The phase of LBA y from `reps` reads (track_phase, on its track as the layout has it).
  double phase(std::uint64_t y, int reps);

  // Slip searches (localize) made, and their time.
  int searches = 0;
  Millis search_ms = 0;

 private:
  // A phase error (rotations) past `tolerance` by more than noise makes (after reps reads).
  bool beyond_noise(double err, double tolerance, int reps) const;

  Instrument& in_;
  Findings& f_;
};

}  // namespace disksched::extract
