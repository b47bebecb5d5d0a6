// What is learnt about a disk's rotation while it runs: the platter's spin (period and
// phase) and the angles of the tracks whose sector 0 is not where the profile's skews
// put it. The head tracker owns one and replaces it as completions come in; the model
// stays as loaded, so nothing that cached a Location from it is changed behind its back.
// A Location found with `tracks` holds the corrected angle; when a track turns, whoever
// holds Locations on it finds them again (RequestQueue::relocate_track).
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>

#include "predictor/spin.hpp"

namespace disksched {

// Track (cylinder * heads + head) -> angle of its sector 0, rotations [0, 1).
using TrackAngles = std::unordered_map<std::int64_t, double>;

struct RotationState {
  Spin spin;  // not given: the profile's
  // Never changed once shared: a turn makes a new map, so a reader keeps a consistent
  // one. Null: no track learnt.
  std::shared_ptr<const TrackAngles> tracks;

  const TrackAngles* learnt_tracks() const { return tracks.get(); }
};

}  // namespace disksched
