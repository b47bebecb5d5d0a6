// DiskSim 4.0's newer layout, diskmodel's dm_layout_g4 (DIXtrac writes it), as zones.
//
// g4 describes the LBN space as a tree (diskmodel's layout_g4.c): TP holds track
// patterns [low, high, spt] (LBNs 0..high-low of a track on its sectors low..high of spt);
// IDX holds index nodes, each a list of entries [lbn, cyl, off, len, cyllen, alen,
// runlen, cylrunlen, TRACK|IDX, child(, head)] whose child repeats every len LBNs and
// cyllen cylinders over runlen LBNs and cylrunlen cylinders, turned off + k * alen
// revolutions; the last node is the root. Slips [lbn, count] skip count positions of the
// tree's LBN space at lbn, shifting every LBN after (across zones); Remaps [lbn, count,
// cyl, head, sector, spt] place LBNs elsewhere.
//
// Read here: a root entry per zone whose child is one cylinder (cyllen 1) of one track
// per surface, heads in order, each track a pattern [0, n - 1, spt] (n <= spt: the rest
// of the track is spare); the surfaces' offsets in equal steps (a track skew), the root
// entry's alen the turn from one cylinder to the next (track skews plus a cylinder
// skew), its off (plus the root's first entry's off, as g4_skew adds it) the zone's
// first block angle; slips as the profile's disk-wide defects; remaps as the zones'
// remapped defects (onto a spare sector of the same zone). Anything else the tree can
// say (serpentine or other head orders, patterns over several cylinders or not starting
// at sector 0, uneven head offsets, descending cylinder runs, negative slip counts,
// remaps to another zone) is refused by name as not modelled: it is never approximated.
#pragma once

#include "predictor/import/disksim_keys.hpp"
#include "predictor/import/disksim_model.hpp"

namespace disksched::disksim {

// Fills out.profile's zones, layout and defects from the dm_layout_g4 block `lb` of a
// disk with `heads` surfaces. Throws ParamError naming the entry and what was expected.
void import_layout_g4(const Block& lb, std::int32_t heads, KeysRead& read, ModelImport& out);

}  // namespace disksched::disksim
