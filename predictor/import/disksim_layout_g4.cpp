#include "predictor/import/disksim_layout_g4.hpp"

#include <cmath>

#include <fmt/format.h>

#include "predictor/disk_layout.hpp"

namespace disksched::disksim {
namespace {

constexpr double kMaxCount = 9.0e15;
constexpr double kTurnEps = 1e-9;  // revolutions: offsets written in decimal, compared

struct Track {
  std::int64_t low = 0, high = 0, spt = 0;
  Where where;
};

struct Entry {
  std::int64_t lbn = 0, cyl = 0, len = 0, cyllen = 0, runlen = 0, cylrunlen = 0;
  double off = 0, alen = 0;
  bool track = false;  // the child is a track pattern (else an index node)
  std::size_t child = 0;
  std::int64_t head = -1;
  Where where;
};
using Node = std::vector<Entry>;

[[noreturn]] void not_modelled(const Where& w, const std::string& what) {
  throw ParamError(fmt::format("{}: dm_layout_g4: {}: not modelled (disksched reads g4 trees of "
                               "one cylinder pattern per zone, heads in order, tracks from sector "
                               "0; docs/disksim-import.md)",
                               w.str(), what));
}

[[noreturn]] void bad(const Where& w, const std::string& what) {
  throw ParamError(fmt::format("{}: dm_layout_g4: {}", w.str(), what));
}

double frac(double turns) { return turns - std::floor(turns); }

std::int64_t whole(const Value& v, const std::string& what, double lo = 0) {
  return static_cast<std::int64_t>(list_number(v, what, lo, kMaxCount, true));
}

std::vector<Track> read_tp(const Value& list) {
  if (list.items.empty() || list.items.size() % 3 != 0)
    Keys::fail(list, "'TP'", "track patterns [low, high, spt, ...] (a multiple of 3 integers)");
  std::vector<Track> out;
  for (std::size_t i = 0; i < list.items.size(); i += 3) {
    Track t;
    t.where = list.items[i].where;
    const std::string what = fmt::format("'TP' pattern {}", i / 3);
    t.low = whole(list.items[i], what + " low");
    t.high = whole(list.items[i + 1], what + " high");
    t.spt = whole(list.items[i + 2], what + " spt", 1);
    if (t.high < t.low || t.high >= t.spt)
      bad(t.where, fmt::format("{}: [{}, {}, {}]: expected low <= high < spt", what, t.low, t.high, t.spt));
    out.push_back(t);
  }
  return out;
}

// One entry from `items` at `k` (moved on past it): 8 numbers, TRACK or IDX, the child,
// and a TRACK's head.
Entry read_entry(const std::vector<Value>& items, std::size_t& k, const std::string& what,
                 std::size_t tps, std::size_t nodes) {
  if (items.size() - k < 10)
    Keys::fail(items[k], what, "10 fields: lbn, cyl, off, len, cyllen, alen, runlen, cylrunlen, "
                               "TRACK or IDX, child (and a TRACK's head)");
  Entry e;
  e.where = items[k].where;
  e.lbn = whole(items[k++], what + " lbn");
  e.cyl = whole(items[k++], what + " cyl");
  e.off = list_number(items[k++], what + " off", -1e6, 1e6, false);
  e.len = whole(items[k++], what + " len", 1);
  e.cyllen = whole(items[k++], what + " cyllen");
  e.alen = list_number(items[k++], what + " alen", -1e6, 1e6, false);
  e.runlen = whole(items[k++], what + " runlen", 1);
  e.cylrunlen = static_cast<std::int64_t>(list_number(items[k++], what + " cylrunlen", -kMaxCount, kMaxCount, true));
  const Value& type = items[k++];
  if (type.kind != Value::Kind::Word || (type.word != "TRACK" && type.word != "IDX"))
    Keys::fail(type, what + " child type", "TRACK or IDX");
  e.track = type.word == "TRACK";
  const std::size_t limit = e.track ? tps : nodes;
  e.child = static_cast<std::size_t>(whole(items[k], what + " child"));
  if (e.child >= limit)
    Keys::fail(items[k], what + " child", fmt::format("an index into {} (below {})", e.track ? "TP" : "IDX", limit));
  ++k;
  if (e.track) {
    if (k >= items.size()) Keys::fail(items[k - 1], what, "a head after a TRACK child");
    e.head = whole(items[k++], what + " head");
  }
  return e;
}

std::vector<Node> read_idx(const Value& list, std::size_t tps) {
  if (list.items.empty()) Keys::fail(list, "'IDX'", "index nodes [ [ entry, ... ], ... ] (the last the root)");
  std::vector<Node> out;
  for (std::size_t n = 0; n < list.items.size(); ++n) {
    const Value& node = list.items[n];
    if (node.kind != Value::Kind::List || node.items.empty())
      Keys::fail(node, fmt::format("'IDX' node {}", n), "a list of index entries");
    Node entries;
    for (std::size_t k = 0; k < node.items.size();)
      entries.push_back(read_entry(node.items, k, fmt::format("'IDX' node {} entry {}", n, entries.size()),
                                   tps, list.items.size()));
    out.push_back(std::move(entries));
  }
  return out;
}

struct Cylinder {
  std::int64_t track_lbns = 0, spt = 0;
  double first_off = 0;  // the first surface's offset, revolutions
  double step = 0;       // each next surface's, revolutions in [0, 1)
};

// The cylinder pattern `node` (one track per surface, in head order).
Cylinder read_cylinder(const Node& node, const std::vector<Track>& tp, std::int32_t heads,
                       const Entry& parent) {
  if (node.size() != static_cast<std::size_t>(heads))
    not_modelled(parent.where, fmt::format("its child holds {} entries on a disk of {} surfaces "
                                           "(a pattern other than one track per surface)",
                                           node.size(), heads));
  Cylinder c;
  std::int64_t next = 0;
  for (std::size_t k = 0; k < node.size(); ++k) {
    const Entry& e = node[k];
    if (!e.track) not_modelled(e.where, "a cylinder pattern holding an index node (nested patterns)");
    if (e.head != static_cast<std::int64_t>(k))
      not_modelled(e.where, fmt::format("track {} of the cylinder on head {} (heads filled in "
                                        "another order than 0, 1, ...)",
                                        k, e.head));
    if (e.lbn != next) bad(e.where, fmt::format("entry lbn {}: expected {} (tracks one after another)", e.lbn, next));
    if (e.cyl != 0 || e.cylrunlen != 1 || e.runlen != e.len)
      not_modelled(e.where, "a track entry repeated over cylinders or LBNs (cyl 0, cylrunlen 1 and "
                            "runlen = len expected)");
    const Track& t = tp[e.child];
    if (t.low != 0)
      not_modelled(t.where, fmt::format("a track pattern from sector {} (LBNs not from the track's "
                                        "first sector)",
                                        t.low));
    if (t.high + 1 != e.len)
      bad(e.where, fmt::format("len {} but its track pattern maps {} LBNs", e.len, t.high + 1));
    if (k == 0) {
      c.track_lbns = e.len;
      c.spt = t.spt;
      c.first_off = e.off;
    } else if (e.len != c.track_lbns || t.spt != c.spt) {
      not_modelled(e.where, "tracks of different lengths in one zone's cylinder");
    }
    if (k == 1) c.step = frac(e.off - c.first_off);
    const double d = frac(e.off - c.first_off - static_cast<double>(k) * c.step + kTurnEps);
    if (d > 2 * kTurnEps)
      not_modelled(e.where, fmt::format("surface offsets in uneven steps (entry {} at {}; a track "
                                        "skew of {} revolutions expected)",
                                        k, e.off, c.step));
    next += e.len;
  }
  return c;
}

// g4 slips as the profile's disk-wide slipped sectors: positions of the tree's LBN space.
std::vector<std::uint64_t> read_slips(const Value& list, std::uint64_t tree_lbns) {
  if (list.items.size() % 2 != 0) Keys::fail(list, "'Slips'", "pairs [lbn, count, ...]");
  std::vector<std::uint64_t> out;
  for (std::size_t i = 0; i < list.items.size(); i += 2) {
    const auto at = static_cast<std::uint64_t>(whole(list.items[i], "'Slips' lbn"));
    const auto n = static_cast<std::int64_t>(
        list_number(list.items[i + 1], "'Slips' count", -kMaxCount, kMaxCount, true));
    if (n < 0)
      not_modelled(list.items[i + 1].where, fmt::format("a negative slip count ({}: spares given back)", n));
    if (!out.empty() && at <= out.back())
      bad(list.items[i].where, fmt::format("slip at {}: expected slips in rising order, after {}", at, out.back()));
    if (at + static_cast<std::uint64_t>(n) > tree_lbns)
      bad(list.items[i].where, fmt::format("slip [{}, {}] beyond the tree's {} LBNs", at, n, tree_lbns));
    for (std::int64_t k = 0; k < n; ++k) out.push_back(at + static_cast<std::uint64_t>(k));
  }
  return out;
}

// g4 remaps (LBNs [lbn, lbn + count) on sectors sector.. of track (cyl, head)) as the
// zones' remapped defects: from where the tree and slips put each LBN to its sector there.
void read_remaps(const Value& list, std::int32_t heads, DiskProfile& p) {
  if (list.items.size() % 6 != 0)
    Keys::fail(list, "'Remaps'", "sextets [lbn, count, cylinder, head, sector, spt, ...]");
  const DiskLayout natural(p);  // where each LBN lies before remaps
  std::vector<std::vector<std::pair<std::uint64_t, std::uint64_t>>> remaps(p.zones.size());
  for (std::size_t i = 0; i < list.items.size(); i += 6) {
    const auto& v = list.items;
    const Where& at = v[i].where;
    const auto lbn = static_cast<std::uint64_t>(whole(v[i], "'Remaps' lbn"));
    const std::int64_t count = whole(v[i + 1], "'Remaps' count", 1);
    const Chs dest{whole(v[i + 2], "'Remaps' cylinder"), static_cast<std::int32_t>(whole(v[i + 3], "'Remaps' head")),
                   static_cast<std::uint32_t>(whole(v[i + 4], "'Remaps' sector"))};
    const std::int64_t spt = whole(v[i + 5], "'Remaps' spt", 1);
    if (lbn + static_cast<std::uint64_t>(count) > natural.lbas())
      bad(at, fmt::format("remap [{}, {}]: beyond the layout's {} LBNs", lbn, count, natural.lbas()));
    if (dest.head >= heads || dest.cylinder >= natural.cylinders() || natural.in_gap(dest.cylinder))
      bad(at, fmt::format("remap to {}:{}:{}: no such track", dest.cylinder, dest.head, dest.sector));
    const std::size_t z = natural.zone_of_cylinder(dest.cylinder);
    const ZoneSpec& zs = p.zones[z];
    if (spt != zs.sectors_per_track || dest.sector + static_cast<std::uint64_t>(count) > zs.sectors_per_track)
      bad(at, fmt::format("remap to {}:{}:{} of {} sectors: expected sectors within the zone's "
                          "tracks of {}",
                          dest.cylinder, dest.head, dest.sector, count, zs.sectors_per_track));
    const auto position = [&](const Chs& c) {
      return (static_cast<std::uint64_t>(c.cylinder - zs.first_cylinder) * static_cast<std::uint64_t>(heads) +
              static_cast<std::uint64_t>(c.head)) * zs.sectors_per_track + c.sector;
    };
    for (std::int64_t k = 0; k < count; ++k) {
      const Chs from = natural.to_chs(lbn + static_cast<std::uint64_t>(k));
      if (natural.zone_of_cylinder(from.cylinder) != z)
        not_modelled(at, fmt::format("a remap of LBN {} (zone {}) to another zone's sector", lbn + k,
                                     natural.zone_of_cylinder(from.cylinder)));
      Chs to = dest;
      to.sector += static_cast<std::uint32_t>(k);
      remaps[z].emplace_back(position(from), position(to));
    }
  }
  for (std::size_t z = 0; z < remaps.size(); ++z) p.zones[z].remaps = remaps[z];
}

}  // namespace

void import_layout_g4(const Block& lb, std::int32_t heads, KeysRead& read, ModelImport& out) {
  Keys l(lb, read);
  const std::vector<Track> tp = read_tp(l.list("TP"));
  const std::vector<Node> idx = read_idx(l.list("IDX"), tp.size());
  const Node& root = idx.back();
  DiskProfile& p = out.profile;
  p.layout.mapping = Mapping::Conventional;
  p.layout.sparing = Sparing::SectorsPerTrack;  // the tracks' sectors past their pattern
  if (root.front().lbn != 0 || root.front().cyl != 0)
    bad(root.front().where, "the root's first entry: expected lbn 0 and cylinder 0");
  // g4_skew starts every track's angle at the root's first entry's off, then adds the
  // path's: the entry's own again for the first zone.
  const double off0 = root.front().off;
  std::int64_t next_lbn = 0, next_cyl = 0;
  std::uint64_t tree_lbns = 0;
  bool cut = false;
  for (std::size_t i = 0; i < root.size(); ++i) {
    const Entry& e = root[i];
    if (e.track) not_modelled(e.where, "a root entry whose child is a track (a zone of one surface)");
    if (e.lbn != next_lbn)
      bad(e.where, fmt::format("root entry {} at lbn {}: expected {} (zones in LBN order)", i, e.lbn, next_lbn));
    if (e.cylrunlen < 1) not_modelled(e.where, fmt::format("cylrunlen {} (cylinders run down)", e.cylrunlen));
    if (e.cyl < next_cyl)
      bad(e.where, fmt::format("root entry {} at cylinder {}: expected {} or more (zones in order)", i, e.cyl, next_cyl));
    if (e.cyllen != 1)
      not_modelled(e.where, fmt::format("cyllen {} (a pattern over several cylinders, e.g. serpentine)", e.cyllen));
    const Cylinder c = read_cylinder(idx[e.child], tp, heads, e);
    if (e.len != heads * c.track_lbns)
      bad(e.where, fmt::format("len {} but its cylinder pattern holds {} LBNs", e.len, heads * c.track_lbns));
    const std::int64_t full = e.cylrunlen * e.len;
    if (e.runlen > full || (e.runlen < full && i + 1 < root.size()))
      not_modelled(e.where, fmt::format("runlen {} of the {} LBNs of its {} cylinders (only the last "
                                        "zone may end early)",
                                        e.runlen, full, e.cylrunlen));
    cut = e.runlen < full;
    ZoneSpec zs;
    zs.first_cylinder = e.cyl;
    zs.last_cylinder = e.cyl + e.cylrunlen - 1;
    zs.sectors_per_track = static_cast<std::uint32_t>(c.spt);
    zs.spares = static_cast<std::uint64_t>(c.spt - c.track_lbns);
    const auto spt = static_cast<double>(c.spt);
    zs.track_skew_sectors = c.step * spt;
    zs.cylinder_skew_sectors = frac(e.alen - static_cast<double>(heads - 1) * c.step) * spt;
    zs.first_block_sectors = frac(off0 + e.off + c.first_off) * spt;
    p.zones.push_back(zs);
    tree_lbns += static_cast<std::uint64_t>(e.runlen);
    next_lbn = e.lbn + e.runlen;
    next_cyl = zs.last_cylinder + 1;
  }
  std::vector<std::uint64_t> slips;
  if (const Param* s = l.find("Slips"); s != nullptr) {
    if (s->value.kind != Value::Kind::List) Keys::fail(*s, "a list [ lbn, count, ... ]");
    slips = read_slips(s->value, tree_lbns);
  }
  if (!slips.empty()) {
    const DiskLayout tree(p);  // the LBN space before slips: where each slipped one lies
    for (std::uint64_t at : slips) {
      const Chs c = tree.to_chs(at);
      p.defects.push_back(Defect{c.cylinder, c.head, c.sector});
    }
  }
  if (cut) p.capacity_sectors = tree_lbns - slips.size();
  if (const Param* r = l.find("Remaps"); r != nullptr) {
    if (r->value.kind != Value::Kind::List) Keys::fail(*r, "a list [ lbn, count, cyl, head, sector, spt, ... ]");
    read_remaps(r->value, heads, p);
  }
}

}  // namespace disksched::disksim
