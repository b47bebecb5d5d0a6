// DiskSim 4.0's command-line parameter overrides (`disksim F.parv out validate T 0 disk0
// "Enable caching in buffer" 0`), given as `--set 'disk0:Enable caching in buffer=0'`.
//
// As DiskSim applies them (libparam's lp_override_inst): COMPONENT names instantiated
// components (an instance name, `*`, a prefix `disk*`, or a range `disk0 .. disk3`); KEY
// is a key of the component's block, or `Block key:key` one level down into a block
// value (e.g. `Model:Block count`); VALUE replaces a number or a word. Unlike DiskSim,
// which passes over them silently, a component that matches nothing, a key the block
// does not have, and a value of another kind (a fraction for an integer key, a word for
// a number, a list) are errors. Keys match as the importer reads them: case and runs of
// blanks ignored. A file without `instantiate` (a .diskspecs, a .model) is matched by
// its blocks' names.
#pragma once

#include <string>
#include <vector>

#include "predictor/import/disksim_params.hpp"

namespace disksched::disksim {

struct Override {
  std::string spec;       // as given, for messages
  std::string component;  // instance name, `*`, `prefix*` or `a .. b`
  std::string key;        // the key, or `outer` below
  std::string inner;      // with `outer:inner`: the key inside the block value of `key`
  Value value;
};

// "COMPONENT:KEY=VALUE". Throws ParamError saying what was expected.
Override parse_override(const std::string& spec);

// Applies each override in order to the blocks of `file` it names (a block instantiated
// under several names takes the override for all of them). Throws ParamError.
void apply_overrides(ParamFile& file, const std::vector<Override>& overrides);

}  // namespace disksched::disksim
