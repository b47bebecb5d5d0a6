#include "predictor/import/disksim_model.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "predictor/import/disksim_layout_g4.hpp"

namespace disksched::disksim {
namespace {

constexpr double kMaxMs = 1e6;
constexpr std::int64_t kMaxCount = 1ll << 40;

std::string dir_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// Skews and offsets: whole sectors (DiskSim truncates), or revolutions.
double in_sectors(double v, bool revolutions, std::uint32_t spt) {
  return revolutions ? v * spt : std::trunc(v);
}

bool skew_in_revolutions(const Keys& k, bool def) {
  const Param* p = k.find("Skew units");
  if (p == nullptr) return def;
  if (p->value.kind != Value::Kind::Word || (p->value.word != "sectors" && p->value.word != "revolutions"))
    Keys::fail(*p, "'sectors' or 'revolutions'");
  return p->value.word == "revolutions";
}

std::vector<std::uint64_t> integers(const Value& list, const std::string& what) {
  std::vector<std::uint64_t> out;
  for (const Value& v : list.items)
    out.push_back(static_cast<std::uint64_t>(list_number(v, what, 0, 9.0e15, true)));
  return out;
}

Sparing sparing_of(const Param& p, std::int64_t scheme) {
  switch (scheme) {
    case 0: return Sparing::None;
    case 1: return Sparing::TracksPerZone;
    case 2: return Sparing::SectorsPerCylinder;
    case 3: return Sparing::SectorsPerTrack;
    case 4: return Sparing::SectorsPerCylinderSlipToEnd;
    case 7: return Sparing::SectorsAtEnd;
    case 8: return Sparing::SectorsPerRange;
    case 9: return Sparing::SectorsPerZone;
    case 10: return Sparing::SectorsPerZoneSlipToEnd;
    default: break;
  }
  Keys::fail(p, "a sparing scheme disksched models: 0-4 or 7-10 (5 and 6, spares at each "
                "cylinder's front, are not modelled)");
}

void import_layout(const Keys& disk, const Block& lb, KeysRead& read, ModelImport& out) {
  DiskProfile& p = out.profile;
  Keys l(lb, read);
  p.layout.mapping = static_cast<Mapping>(l.integer("LBN-to-PBN mapping scheme", 0, 2));
  const Param& sp = l.need("Sparing scheme used", "an integer in [0, 10]");
  p.layout.sparing = sparing_of(sp, l.integer("Sparing scheme used", 0, 10));
  p.layout.range_cylinders = l.integer_or("Rangesize for sparing", 1, 1ll << 22, 1);
  const bool revolutions = skew_in_revolutions(l, false);
  const Value& zones = l.list("Zones");
  if (zones.items.empty()) Keys::fail(zones, "'Zones'", "at least one dm_layout_g1_zone block");
  for (std::size_t i = 0; i < zones.items.size(); ++i) {
    const Value& zv = zones.items[i];
    if (zv.kind != Value::Kind::Block || normalize_key(zv.block->type) != "dm_layout_g1_zone")
      Keys::fail(zv, fmt::format("'Zones' item {}", i), "a dm_layout_g1_zone { ... } block");
    Keys z(*zv.block, read);
    ZoneSpec zs;
    zs.first_cylinder = z.integer("First cylinder number", 0, 1ll << 22);
    zs.last_cylinder = z.integer("Last cylinder number", zs.first_cylinder, 1ll << 22);
    zs.sectors_per_track = static_cast<std::uint32_t>(z.integer("Blocks per track", 1, 1 << 20));
    const bool rev = skew_in_revolutions(z, revolutions);
    zs.first_block_sectors = in_sectors(z.number("Offset of first block", 0, 1e6), rev, zs.sectors_per_track);
    zs.empty_front = static_cast<std::uint64_t>(z.integer("Empty space at zone front", 0, kMaxCount));
    zs.track_skew_sectors = in_sectors(z.number_if("Skew for track switch", 0, 1e6).value_or(0), rev,
                                       zs.sectors_per_track);
    zs.cylinder_skew_sectors = in_sectors(z.number_if("Skew for cylinder switch", 0, 1e6).value_or(0),
                                          rev, zs.sectors_per_track);
    zs.spares = static_cast<std::uint64_t>(z.integer("Number of spares", 0, kMaxCount));
    if (const Param* s = z.find("slips")) {
      if (s->value.kind != Value::Kind::List) Keys::fail(*s, "a list [ ... ] of positions");
      zs.slips = integers(s->value, "'slips' item");
    }
    if (const Param* d = z.find("defects")) {
      if (d->value.kind != Value::Kind::List) Keys::fail(*d, "a list [ defect, spare, ... ]");
      const auto v = integers(d->value, "'defects' item");
      if (v.size() % 2 != 0)
        Keys::fail(*d, "pairs: each defect followed by the spare it is remapped to (an even count)");
      for (std::size_t k = 0; k < v.size(); k += 2) {
        if (v[k] == v[k + 1]) {
          // DiskSim's LBN-to-PBN mapping skips a defect whose spare is itself.
          out.notes.push_back(fmt::format("{}: zone {}: remap [{}, {}] remaps a defect to itself: "
                                          "ignored, as DiskSim 4.0 ignores it",
                                          d->value.where.str(), i, v[k], v[k + 1]));
          continue;
        }
        zs.remaps.emplace_back(v[k], v[k + 1]);
      }
    }
    p.zones.push_back(zs);
  }
  for (std::size_t i = 1; i < p.zones.size(); ++i)
    if (p.zones[i].first_cylinder <= p.zones[i - 1].last_cylinder)
      throw ParamError(fmt::format("{}: zone {} starts at cylinder {}: expected zones in order, "
                                   "after cylinder {}",
                                   zones.items[i].where.str(), i, p.zones[i].first_cylinder,
                                   p.zones[i - 1].last_cylinder));
  (void)disk;
}

void import_mech(const Block& mb, KeysRead& read, ModelImport& out) {
  DiskProfile& p = out.profile;
  Keys m(mb, read);
  const std::string access = m.word("Access time type");
  if (access != "trackSwitchPlusRotation")
    out.notes.push_back(fmt::format("Access time type {} is modelled as trackSwitchPlusRotation "
                                    "(seek, rotation, transfer)",
                                    access));
  p.rotation_ms = 60000.0 / static_cast<double>(m.integer("Rotation speed (in rpms)", 1, 1000000));
  p.head_switch_ms = m.number("Head switch time", 0, kMaxMs);
  p.write_settle_ms = m.number("Add. write settling delay", -kMaxMs, kMaxMs);
  if (const double err = m.number("Percent error in rpms", 0, 100); err != 0)
    out.notes.push_back(fmt::format("Percent error in rpms {} is not part of a profile: give "
                                    "diskemu rpm-error={}% to play it",
                                    err, err));

  const Param& type_param = m.need("Seek type", "constant, linear, curve, hpl, hplplus10 or extracted");
  const std::string type = m.word("Seek type");
  SeekCurveSpec& s = p.seek;
  const auto hpl = [&] {
    const Value& v = m.list("HPL seek equation values");
    if (v.items.size() != 6) Keys::fail(v, "'HPL seek equation values'", "six values V1-V6");
    const auto at = [&](std::size_t i, double lo) {
      return list_number(v.items[i], fmt::format("'HPL seek equation values' V{}", i + 1), lo, kMaxMs, false);
    };
    const double v1 = at(0, 1);
    s.boundary = static_cast<std::int64_t>(std::ceil(v1)) - 1;  // sqrt form below V1 cylinders
    s.short_a = at(1, 0);
    s.short_b = at(2, 0);
    s.long_a = at(3, 0);
    s.long_b = at(4, 0);
    return list_number(v.items[5], "'HPL seek equation values' V6", -1, kMaxMs, false);
  };
  if (type == "constant") {
    s.form = SeekCurveSpec::Form::Table;
    s.points = {{1, m.number("Constant seek time", 0, kMaxMs)}};
  } else if (type == "linear" || type == "curve") {
    const double one = m.number("Single cylinder seek time", 0, kMaxMs);
    const double avg = m.number("Average seek time", 0, kMaxMs);
    const double full = m.number("Full strobe seek time", 0, kMaxMs);
    if (type == "curve") {
      s.form = SeekCurveSpec::Form::Curve;
      s.single_cylinder_ms = one;
      s.average_ms = avg;
      s.full_stroke_ms = full;
    } else {
      // Three points joined by lines: (1, single), (C/3, average), (C - 1, full stroke).
      const std::int64_t c = p.zones.back().last_cylinder + 1;
      s.form = SeekCurveSpec::Form::Table;
      s.points = {{1, one}};
      if (c / 3 > 1) s.points.emplace_back(c / 3, avg);
      if (c - 1 > s.points.back().first) s.points.emplace_back(c - 1, full);
      out.notes.push_back("Seek type linear: three points joined by lines (DiskSim 4.0's own "
                          "integer arithmetic gives the full-stroke time for every seek of 2 "
                          "cylinders or more)");
    }
  } else if (type == "hpl") {
    const double v6 = hpl();
    s.form = v6 == -1 ? SeekCurveSpec::Form::TwoPiece : SeekCurveSpec::Form::ThreePiece;
    if (v6 != -1) {
      if (v6 < 0) Keys::fail(m.list("HPL seek equation values").items[5], "V6", "-1 or a time >= 0");
      s.single_cylinder_ms = v6;
    }
  } else if (type == "hplplus10") {
    (void)hpl();
    s.form = SeekCurveSpec::Form::FirstTenTwoPiece;
    const Value& v = m.list("First ten seek times");
    if (v.items.size() != 10) Keys::fail(v, "'First ten seek times'", "ten times (distances 1-10)");
    for (std::size_t i = 0; i < 10; ++i)
      s.first_ten.push_back(list_number(v.items[i], fmt::format("'First ten seek times' item {}", i + 1),
                                        0, kMaxMs, false));
  } else if (type == "extracted") {
    const Param& f = m.need("Full seek curve", "the name of a seek file");
    if (f.value.kind != Value::Kind::Word) Keys::fail(f, "the name of a seek file");
    const std::string path = f.value.word[0] == '/' ? f.value.word : dir_of(f.where.file) + "/" + f.value.word;
    s.form = SeekCurveSpec::Form::Table;
    s.extrapolate = true;  // DiskSim extends the last segment
    s.points = read_seek_file(path);
  } else {
    Keys::fail(type_param, "one of constant, linear, curve, hpl, hplplus10, extracted");
  }
}

}  // namespace

std::vector<std::pair<std::int64_t, double>> read_seek_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ParamError(fmt::format("{}: cannot read the seek file: {}", path, std::strerror(errno)));
  std::string line;
  int lineno = 0;
  long long count = -1;
  std::vector<std::pair<std::int64_t, double>> points;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    if (count < 0) {
      if (std::sscanf(line.c_str(), "Seek distances measured: %lld", &count) != 1 || count < 1)
        throw ParamError(fmt::format("{}:{}: expected 'Seek distances measured: N' (N >= 1), found '{}'",
                                     path, lineno, line));
      continue;
    }
    long long d = 0;
    double t = 0, sd = 0;
    char extra = 0;
    const int n = std::sscanf(line.c_str(), " %lld , %lf , %lf %c", &d, &t, &sd, &extra);
    if (n < 2 || n > 3 || d < 1 || !std::isfinite(t) || t < 0 || t > kMaxMs)
      throw ParamError(fmt::format("{}:{}: expected 'distance, time[, stdev]' (distance >= 1 "
                                   "cylinders, time in ms >= 0), found '{}'",
                                   path, lineno, line));
    if (!points.empty() && d <= points.back().first)
      throw ParamError(fmt::format("{}:{}: distance {}: expected distances in rising order, after {}",
                                   path, lineno, d, points.back().first));
    points.emplace_back(d, t);
  }
  if (count < 0) throw ParamError(fmt::format("{}:{}: expected 'Seek distances measured: N', found the end of the file", path, lineno));
  if (static_cast<long long>(points.size()) != count)
    throw ParamError(fmt::format("{}:{}: the header says {} distances, the file has {}", path,
                                 lineno, count, points.size()));
  return points;
}

ModelImport import_dm_disk(const Block& dm_disk, KeysRead& read) {
  ModelImport out;
  Keys d(dm_disk, read);
  DiskProfile& p = out.profile;
  p.name = dm_disk.name.empty() ? "disksim-disk" : dm_disk.name;
  p.heads = static_cast<std::int32_t>(d.integer("Number of data surfaces", 1, 1024));
  out.stated_cylinders = d.integer("Number of cylinders", 1, 1ll << 22);
  out.stated_blocks = d.integer("Block count", 1, 1ll << 62);
  const Param& layout = d.need("Layout Model", "a dm_layout_g1 { ... } or dm_layout_g4 { ... } block");
  if (layout.value.kind == Value::Kind::Block && normalize_key(layout.value.block->type) == "dm_layout_g4")
    import_layout_g4(*layout.value.block, p.heads, read, out);
  else if (layout.value.kind == Value::Kind::Block && normalize_key(layout.value.block->type) == "dm_layout_g1")
    import_layout(d, *layout.value.block, read, out);
  else
    Keys::fail(layout, "a dm_layout_g1 { ... } or dm_layout_g4 { ... } block");
  if (p.zones.back().last_cylinder >= out.stated_cylinders)
    // DiskSim 4.0 maps LBNs by the zones alone; it reads "Number of cylinders" only for a
    // "curve" seek and a VSCAN queue, so the zones' cylinders are the disk's.
    out.notes.push_back(fmt::format("{}: 'Number of cylinders' is {} but the zones run to cylinder {}: "
                                    "the zones' {} cylinders are used, as DiskSim 4.0 maps them",
                                    d.need("Number of cylinders", "").where.str(),
                                    out.stated_cylinders, p.zones.back().last_cylinder,
                                    p.zones.back().last_cylinder + 1));
  import_mech(d.block("Mechanical Model", "dm_mech_g1"), read, out);
  const std::int64_t zoned = p.zones.back().last_cylinder + 1;
  if (p.seek.form == SeekCurveSpec::Form::Curve && zoned != out.stated_cylinders)
    out.notes.push_back(fmt::format("Seek type curve: fitted over the zones' {} cylinders (DiskSim "
                                    "4.0 fits it over 'Number of cylinders' = {})",
                                    zoned, out.stated_cylinders));
  return out;
}

}  // namespace disksched::disksim
