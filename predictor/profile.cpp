#include "predictor/profile.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

#include <fmt/format.h>

#include "common/regular_file.hpp"
#include "predictor/seek_forms.hpp"

namespace disksched {
namespace {

using nlohmann::json;

// Reads fields of one JSON object and reports errors as
// "profile 'ORIGIN': field 'PATH': value V: expected WHAT".
class Reader {
 public:
  Reader(const json& obj, std::string origin, std::string path)
      : obj_(obj), origin_(std::move(origin)), path_(std::move(path)) {
    if (!obj_.is_object()) fail("", obj_, "an object");
  }

  [[noreturn]] void fail(const std::string& key, const json& v, const std::string& what) const {
    std::string field = path_.empty() ? key : (key.empty() ? path_ : path_ + "." + key);
    throw ModelError(fmt::format("profile '{}': field '{}': value {}: expected {}", origin_, field,
                                 v.dump(), what));
  }
  [[noreturn]] void missing(const std::string& key, const std::string& what) const {
    std::string field = path_.empty() ? key : path_ + "." + key;
    throw ModelError(fmt::format("profile '{}': field '{}' is missing: expected {}", origin_,
                                 field, what));
  }

  bool has(const std::string& key) const { return obj_.contains(key); }
  const json& at(const std::string& key) const { return obj_.at(key); }
  std::string child(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
  const std::string& origin() const { return origin_; }

  double number(const std::string& key, double lo, double hi, std::optional<double> def = {}) const {
    std::string what = fmt::format("a number in [{}, {}]", lo, hi);
    if (!has(key)) {
      if (def) return *def;
      missing(key, what);
    }
    const json& v = at(key);
    if (!v.is_number()) fail(key, v, what);
    double d = v.get<double>();
    if (!std::isfinite(d) || d < lo || d > hi) fail(key, v, what);
    return d;
  }
  std::int64_t integer(const std::string& key, std::int64_t lo, std::int64_t hi,
                       std::optional<std::int64_t> def = {}) const {
    std::string what = fmt::format("an integer in [{}, {}]", lo, hi);
    if (!has(key)) {
      if (def) return *def;
      missing(key, what);
    }
    const json& v = at(key);
    if (!v.is_number_integer()) fail(key, v, what);
    std::int64_t i = v.get<std::int64_t>();
    if (i < lo || i > hi) fail(key, v, what);
    return i;
  }
  std::string string(const std::string& key, std::optional<std::string> def = {}) const {
    if (!has(key)) {
      if (def) return *def;
      missing(key, "a string");
    }
    const json& v = at(key);
    if (!v.is_string()) fail(key, v, "a string");
    return v.get<std::string>();
  }
  void only(const std::set<std::string>& keys) const {
    for (auto it = obj_.begin(); it != obj_.end(); ++it) {
      if (keys.count(it.key()) == 0) {
        std::string valid;
        for (const auto& k : keys) valid += (valid.empty() ? "" : ", ") + k;
        std::string field = path_.empty() ? it.key() : path_ + "." + it.key();
        throw ModelError(fmt::format("profile '{}': unknown field '{}'; valid: {}", origin_,
                                     field, valid));
      }
    }
  }

 private:
  const json& obj_;
  std::string origin_;
  std::string path_;
};

constexpr double kMaxMs = 1e6;
// The seek curve is tabulated per cylinder (8 bytes each) when a model is built: 2^22
// cylinders is 32 MiB, and 8 times what the largest drives have (about 500,000).
constexpr std::int64_t kMaxCylinders = 1ll << 22;
// An NBD export's size is a signed 64-bit number (nbdkit: INT64_MAX).
constexpr std::uint64_t kMaxCapacityBytes = (1ull << 63) - 1;

PerOp read_per_op(const Reader& r, const std::string& key) {
  PerOp p;
  if (!r.has(key)) return p;
  Reader o(r.at(key), r.origin(), r.child(key));
  o.only({"read", "write", "other"});
  p.read = o.number("read", 0, kMaxMs, 0.0);
  p.write = o.number("write", 0, kMaxMs, 0.0);
  p.other = o.number("other", 0, kMaxMs, 0.0);
  return p;
}

// Arrays and objects inside one another: a profile needs four levels; the free-form
// 'source' may use more. Deeper input is refused while parsing, before anything walks
// it recursively (a copy, dump() in an error message) and runs out of stack.
constexpr int kMaxNesting = 64;

// The field the parser is in, for error messages ("zones[].sectors_per_track").
class ParsePath {
 public:
  void see(int depth, json::parse_event_t event, const json& parsed) {
    using E = json::parse_event_t;
    if (event == E::key) {
      names_.resize(static_cast<std::size_t>(std::max(depth, 1)));
      names_.back() = parsed.get<std::string>();
    } else if (event == E::object_start || event == E::array_start) {
      names_.resize(static_cast<std::size_t>(depth));
      if (event == E::array_start) names_.push_back("[]");
      depth_ = depth + 1;
    } else if (event == E::object_end || event == E::array_end) {
      depth_ = depth;
    }
  }
  int depth() const { return depth_; }
  // The first few levels: enough to find it in the file.
  std::string field() const {
    std::string f;
    for (std::size_t i = 0; i < names_.size() && i < 6; ++i)
      f += (f.empty() || names_[i] == "[]" ? "" : ".") + names_[i];
    if (names_.size() > 6) f += "...";
    return f.empty() ? "(top level)" : f;
  }

 private:
  std::vector<std::string> names_;
  int depth_ = 0;
};

// nlohmann's what() without its "[json.exception.parse_error.101] " prefix.
std::string plain_message(const json::exception& e) {
  std::string m = e.what();
  const auto close = m.find("] ");
  return close == std::string::npos ? m : m.substr(close + 2);
}

json per_op_json(const PerOp& p) { return {{"read", p.read}, {"write", p.write}, {"other", p.other}}; }

SeekCurveSpec read_seek(const Reader& r, std::int64_t cylinders) {
  SeekCurveSpec s;
  if (!r.has("seek")) r.missing("seek", "an object with \"form\"");
  Reader o(r.at("seek"), r.origin(), "seek");
  std::string form = o.string("form");
  auto piece = [&](const std::string& key, double& a, double& b) {
    if (!o.has(key)) o.missing(key, "an object {\"a\": ms, \"b\": ms}");
    Reader p(o.at(key), r.origin(), o.child(key));
    p.only({"a", "b"});
    a = p.number("a", 0, kMaxMs);
    b = p.number("b", 0, kMaxMs);
  };
  if (form == "two-piece" || form == "three-piece" || form == "first-ten") {
    s.form = form == "two-piece"     ? SeekCurveSpec::Form::TwoPiece
             : form == "three-piece" ? SeekCurveSpec::Form::ThreePiece
                                     : SeekCurveSpec::Form::FirstTenTwoPiece;
    if (form == "two-piece")
      o.only({"form", "short", "boundary", "long"});
    else if (form == "three-piece")
      o.only({"form", "short", "boundary", "long", "single_cylinder_ms"});
    else
      o.only({"form", "short", "boundary", "long", "first_ten"});
    piece("short", s.short_a, s.short_b);
    piece("long", s.long_a, s.long_b);
    s.boundary = o.integer("boundary", 0, std::max<std::int64_t>(cylinders, 1));
    if (form == "three-piece") s.single_cylinder_ms = o.number("single_cylinder_ms", 0, kMaxMs);
    if (form == "first-ten") {
      if (!o.has("first_ten")) o.missing("first_ten", "a list of 10 times in ms (distances 1-10)");
      const json& ft = o.at("first_ten");
      if (!ft.is_array() || ft.size() != 10)
        o.fail("first_ten", ft, "a list of 10 times in ms (distances 1-10)");
      for (std::size_t i = 0; i < ft.size(); ++i) {
        if (!ft[i].is_number() || !(ft[i].get<double>() >= 0 && ft[i].get<double>() <= kMaxMs))
          o.fail(fmt::format("first_ten[{}]", i), ft[i], "a time in ms >= 0");
        s.first_ten.push_back(ft[i].get<double>());
      }
    }
  } else if (form == "curve") {
    o.only({"form", "single_cylinder_ms", "average_ms", "full_stroke_ms"});
    s.form = SeekCurveSpec::Form::Curve;
    s.single_cylinder_ms = o.number("single_cylinder_ms", 0, kMaxMs);
    s.average_ms = o.number("average_ms", 0, kMaxMs);
    s.full_stroke_ms = o.number("full_stroke_ms", 0, kMaxMs);
  } else if (form == "table") {
    o.only({"form", "points", "beyond"});
    s.form = SeekCurveSpec::Form::Table;
    const std::string beyond = o.string("beyond", std::string("flat"));
    if (beyond != "flat" && beyond != "linear") o.fail("beyond", o.at("beyond"), "\"flat\" or \"linear\"");
    s.extrapolate = beyond == "linear";
    if (!o.has("points")) o.missing("points", "a list of [distance, ms] pairs");
    const json& pts = o.at("points");
    if (!pts.is_array() || pts.empty()) o.fail("points", pts, "a non-empty list of [distance, ms] pairs");
    std::int64_t last = 0;
    for (std::size_t i = 0; i < pts.size(); ++i) {
      const json& p = pts[i];
      std::string key = fmt::format("points[{}]", i);
      if (!p.is_array() || p.size() != 2 || !p[0].is_number_integer() || !p[1].is_number())
        o.fail(key, p, "a pair [distance (integer > 0), ms (number >= 0)]");
      std::int64_t d = p[0].get<std::int64_t>();
      double ms = p[1].get<double>();
      if (d <= last) o.fail(key, p, fmt::format("a distance greater than {} (points sorted, > 0)", last));
      if (!(ms >= 0 && ms <= kMaxMs)) o.fail(key, p, "a time in ms >= 0");
      s.points.emplace_back(d, ms);
      last = d;
    }
  } else {
    o.fail("form", o.at("form"),
           "one of \"two-piece\", \"three-piece\", \"table\", \"curve\", \"first-ten\"");
  }
  return s;
}

constexpr std::pair<Sparing, const char*> kSparingNames[] = {
    {Sparing::None, "none"},
    {Sparing::TracksPerZone, "tracks-per-zone"},
    {Sparing::SectorsPerCylinder, "sectors-per-cylinder"},
    {Sparing::SectorsPerTrack, "sectors-per-track"},
    {Sparing::SectorsPerCylinderSlipToEnd, "sectors-per-cylinder-slip-to-end"},
    {Sparing::SectorsAtEnd, "sectors-at-end"},
    {Sparing::SectorsPerRange, "sectors-per-range"},
    {Sparing::SectorsPerZone, "sectors-per-zone"},
    {Sparing::SectorsPerZoneSlipToEnd, "sectors-per-zone-slip-to-end"},
};
constexpr std::pair<Mapping, const char*> kMappingNames[] = {
    {Mapping::Conventional, "conventional"},
    {Mapping::Serpentine, "serpentine"},
    {Mapping::SerpentineGlobal, "serpentine-global"},
};

template <typename E, std::size_t N>
E read_name(const Reader& r, const std::string& key, const std::pair<E, const char*> (&names)[N], E def) {
  if (!r.has(key)) return def;
  const std::string v = r.string(key);
  std::string valid;
  for (const auto& [e, name] : names) {
    if (v == name) return e;
    valid += fmt::format("{}\"{}\"", valid.empty() ? "" : ", ", name);
  }
  r.fail(key, r.at(key), "one of " + valid);
}

LayoutSpec read_layout(const Reader& r) {
  LayoutSpec l;
  if (!r.has("layout")) return l;
  Reader o(r.at("layout"), r.origin(), "layout");
  o.only({"mapping", "sparing", "range_cylinders"});
  l.mapping = read_name(o, "mapping", kMappingNames, Mapping::Conventional);
  l.sparing = read_name(o, "sparing", kSparingNames, Sparing::None);
  l.range_cylinders = o.integer("range_cylinders", 1, kMaxCylinders, 1);
  return l;
}

bool is_index(const json& v) {
  return v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
}

// A list of zone-relative indices (slips) or of [defect, spare] pairs (remaps).
std::vector<std::uint64_t> read_indices(const Reader& z, const std::string& key) {
  std::vector<std::uint64_t> out;
  if (!z.has(key)) return out;
  const json& a = z.at(key);
  if (!a.is_array()) z.fail(key, a, "a list of zone-relative indices (integers >= 0)");
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!is_index(a[i]))
      z.fail(fmt::format("{}[{}]", key, i), a[i], "a zone-relative index (an integer >= 0)");
    out.push_back(a[i].get<std::uint64_t>());
  }
  return out;
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> read_remaps(const Reader& z) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  if (!z.has("remaps")) return out;
  const json& a = z.at("remaps");
  if (!a.is_array()) z.fail("remaps", a, "a list of [defect, spare] pairs");
  for (std::size_t i = 0; i < a.size(); ++i) {
    const json& p = a[i];
    if (!p.is_array() || p.size() != 2 || !is_index(p[0]) || !is_index(p[1]))
      z.fail(fmt::format("remaps[{}]", i), p,
             "a pair [defect, spare] of zone-relative indices (integers >= 0)");
    out.emplace_back(p[0].get<std::uint64_t>(), p[1].get<std::uint64_t>());
  }
  return out;
}

json seek_json(const SeekCurveSpec& s) {
  json j;
  j["form"] = seek_form_name(s.form);
  if (s.form == SeekCurveSpec::Form::Table) {
    json pts = json::array();
    for (const auto& [d, ms] : s.points) pts.push_back({d, ms});
    j["points"] = pts;
    if (s.extrapolate) j["beyond"] = "linear";
  } else if (s.form == SeekCurveSpec::Form::Curve) {
    j["single_cylinder_ms"] = s.single_cylinder_ms;
    j["average_ms"] = s.average_ms;
    j["full_stroke_ms"] = s.full_stroke_ms;
  } else {
    j["short"] = {{"a", s.short_a}, {"b", s.short_b}};
    j["boundary"] = s.boundary;
    j["long"] = {{"a", s.long_a}, {"b", s.long_b}};
    if (s.form == SeekCurveSpec::Form::ThreePiece) j["single_cylinder_ms"] = s.single_cylinder_ms;
    if (s.form == SeekCurveSpec::Form::FirstTenTwoPiece) j["first_ten"] = s.first_ten;
  }
  return j;
}

}  // namespace

const char* sparing_name(Sparing s) {
  for (const auto& [e, name] : kSparingNames)
    if (e == s) return name;
  return "?";
}

const char* mapping_name(Mapping m) {
  for (const auto& [e, name] : kMappingNames)
    if (e == m) return name;
  return "?";
}

namespace {

// schema, version and kind: a profile of a disk, in the version this build reads.
void check_header(const Reader& r) {
  if (r.has("schema") && r.string("schema") != "disksched-geometry")
    r.fail("schema", r.at("schema"), "\"disksched-geometry\"");
  std::int64_t version = r.integer("version", 1, 1000);
  if (version != kProfileVersion)
    r.fail("version", r.at("version"), fmt::format("{} (this disksched reads version {})",
                                                   kProfileVersion, kProfileVersion));
  if (r.has("kind") && r.string("kind") != "disk") r.fail("kind", r.at("kind"), "\"disk\"");
}

// The disk-wide fields: name, sector sizes, heads, rotation, skews, overheads, layout.
void read_disk_fields(const Reader& r, const std::string& origin, DiskProfile& p) {
  p.name = r.string("name", std::string("disk"));
  p.sector_bytes = static_cast<std::uint32_t>(r.integer("sector_bytes", 1, 1 << 20, 512));
  if ((p.sector_bytes & (p.sector_bytes - 1)) != 0)
    r.fail("sector_bytes", r.at("sector_bytes"), "a power of two");
  if (r.has("physical_sector_bytes")) {
    const auto psb = static_cast<std::uint32_t>(
        r.integer("physical_sector_bytes", p.sector_bytes, 1 << 20));
    if ((psb & (psb - 1)) != 0)
      r.fail("physical_sector_bytes", r.at("physical_sector_bytes"),
             fmt::format("a power of two >= sector_bytes ({}), e.g. 4096 for 512e", p.sector_bytes));
    p.physical_sector_bytes = psb == p.sector_bytes ? 0 : psb;
  }
  p.heads = static_cast<std::int32_t>(r.integer("heads", 1, 1024));
  if (r.has("rpm") == r.has("rotation_ms"))
    throw ModelError(fmt::format("profile '{}': give exactly one of 'rpm' and 'rotation_ms'", origin));
  if (r.has("rpm"))
    p.rotation_ms = 60000.0 / r.number("rpm", 1, 1e6);
  else
    p.rotation_ms = r.number("rotation_ms", 1e-3, kMaxMs);
  p.track_skew_sectors = r.number("track_skew_sectors", 0, 1e6, 0.0);
  p.cylinder_skew_sectors = r.number("cylinder_skew_sectors", 0, 1e6, 0.0);
  p.head_switch_ms = r.number("head_switch_ms", 0, kMaxMs, 0.0);
  p.overhead_ms = read_per_op(r, "overhead_ms");
  p.completion_ms = read_per_op(r, "completion_ms");
  p.rotation_phase = r.number("rotation_phase", 0, 1, 0.0);
  p.layout = read_layout(r);
  p.write_settle_ms = r.number("write_settle_ms", -kMaxMs, kMaxMs, 0.0);
  if (r.has("capacity_sectors"))
    p.capacity_sectors = static_cast<std::uint64_t>(r.integer("capacity_sectors", 1, INT64_MAX));
}

// zones[i], which must start at `next_cyl` (or, with a "layout", at or after it).
ZoneSpec read_zone(const Reader& r, const json& zj, std::size_t i, std::int64_t next_cyl,
                   const DiskProfile& p) {
  Reader z(zj, r.origin(), fmt::format("zones[{}]", i));
  z.only({"first_cylinder", "last_cylinder", "sectors_per_track", "track_skew_sectors",
          "cylinder_skew_sectors", "first_block_sectors", "empty_front", "spares", "slips",
          "remaps"});
  ZoneSpec zs;
  zs.first_cylinder = z.integer("first_cylinder", 0, kMaxCylinders - 1);
  if (i == 0 && zs.first_cylinder != 0)
    z.fail("first_cylinder", zj.at("first_cylinder"), "0 (the first zone starts the disk)");
  // Gaps between zones (cylinders without data) are a real drive's layout; without a
  // "layout" a gap is more likely a typo.
  if (r.has("layout") ? zs.first_cylinder < next_cyl : zs.first_cylinder != next_cyl)
    z.fail("first_cylinder", zj.at("first_cylinder"),
           r.has("layout")
               ? fmt::format("{} or more (zones in order, not overlapping)", next_cyl)
               : fmt::format("{} (zones are contiguous, in order, from cylinder 0; gaps need "
                             "a \"layout\" object)",
                             next_cyl));
  zs.last_cylinder = z.integer("last_cylinder", zs.first_cylinder, kMaxCylinders - 1);
  zs.sectors_per_track = static_cast<std::uint32_t>(z.integer("sectors_per_track", 1, 1 << 20));
  if (z.has("track_skew_sectors")) zs.track_skew_sectors = z.number("track_skew_sectors", 0, 1e6);
  if (z.has("cylinder_skew_sectors"))
    zs.cylinder_skew_sectors = z.number("cylinder_skew_sectors", 0, 1e6);
  if (z.has("first_block_sectors")) zs.first_block_sectors = z.number("first_block_sectors", 0, 1e6);
  zs.empty_front = static_cast<std::uint64_t>(z.integer("empty_front", 0, INT64_MAX, 0));
  zs.spares = static_cast<std::uint64_t>(z.integer("spares", 0, INT64_MAX, 0));
  zs.slips = read_indices(z, "slips");
  zs.remaps = read_remaps(z);
  // A physical sector never straddles two tracks.
  const std::uint32_t per_physical = p.physical_sector_bytes == 0 ? 1 : p.physical_sector_bytes / p.sector_bytes;
  if (zs.sectors_per_track % per_physical != 0)
    z.fail("sectors_per_track", zj.at("sectors_per_track"),
           fmt::format("a multiple of {} (physical_sector_bytes {} / sector_bytes {}: whole "
                       "physical sectors per track)",
                       per_physical, p.physical_sector_bytes, p.sector_bytes));
  return zs;
}

// Sectors in all, checked against the largest export (no wrap-around).
std::uint64_t total_sectors(const Reader& r, const DiskProfile& p) {
  std::uint64_t sectors = 0;
  for (const auto& zs : p.zones) {
    const unsigned __int128 zone = static_cast<unsigned __int128>(zs.last_cylinder -
                                                                  zs.first_cylinder + 1) *
                                   static_cast<std::uint64_t>(p.heads) * zs.sectors_per_track;
    if (zone * p.sector_bytes > kMaxCapacityBytes - static_cast<unsigned __int128>(sectors) * p.sector_bytes)
      r.fail("zones", r.at("zones"),
             fmt::format("a capacity of at most {} bytes (2^63 - 1, the largest NBD export): "
                         "cylinders x heads ({}) x sectors_per_track x sector_bytes ({}) is more",
                         kMaxCapacityBytes, p.heads, p.sector_bytes));
    sectors += static_cast<std::uint64_t>(zone);
  }
  return sectors;
}

void read_track_phases(const Reader& r, std::int64_t cylinders, DiskProfile& p) {
  if (!r.has("track_phase")) return;
  const json& tp = r.at("track_phase");
  if (!tp.is_array()) r.fail("track_phase", tp, "a list of {cylinder, head, phase}");
  for (std::size_t i = 0; i < tp.size(); ++i) {
    Reader t(tp[i], r.origin(), fmt::format("track_phase[{}]", i));
    t.only({"cylinder", "head", "phase"});
    TrackPhase ph;
    ph.cylinder = t.integer("cylinder", 0, cylinders - 1);
    ph.head = static_cast<std::int32_t>(t.integer("head", 0, p.heads - 1));
    ph.phase = t.number("phase", 0, 1);
    if (ph.phase >= 1.0) ph.phase = 0.0;
    p.track_phase.push_back(ph);
  }
}

// The older profiles' defects; fewer than the disk's `sectors`.
void read_defects(const Reader& r, std::int64_t cylinders, std::uint64_t sectors, DiskProfile& p) {
  if (!r.has("defects")) return;
  auto find_zone = [&](std::int64_t c) -> const ZoneSpec* {
    for (const auto& z : p.zones)
      if (c >= z.first_cylinder && c <= z.last_cylinder) return &z;
    return nullptr;
  };
  const json& d = r.at("defects");
  if (!d.is_array()) r.fail("defects", d, "a list of {cylinder, head, sector}");
  for (std::size_t i = 0; i < d.size(); ++i) {
    Reader t(d[i], r.origin(), fmt::format("defects[{}]", i));
    t.only({"cylinder", "head", "sector"});
    Defect df;
    df.cylinder = t.integer("cylinder", 0, cylinders - 1);
    df.head = static_cast<std::int32_t>(t.integer("head", 0, p.heads - 1));
    const ZoneSpec* z = find_zone(df.cylinder);
    if (z == nullptr) t.fail("cylinder", d[i].at("cylinder"), "a cylinder inside a zone (not in a gap)");
    df.sector = static_cast<std::uint32_t>(t.integer("sector", 0, z->sectors_per_track - 1));
    p.defects.push_back(df);
  }
  std::set<std::tuple<std::int64_t, std::int32_t, std::uint32_t>> distinct;
  for (const auto& df : p.defects) distinct.insert({df.cylinder, df.head, df.sector});
  if (distinct.size() >= sectors)
    r.fail("defects", d, fmt::format("fewer defects than the disk's {} sectors (every sector "
                                     "is a defect: the capacity would be 0)", sectors));
}

}  // namespace

DiskProfile profile_from_json(const json& j, const std::string& origin) {
  Reader r(j, origin, "");
  r.only({"schema", "version", "kind", "name", "sector_bytes", "physical_sector_bytes", "heads", "rpm", "rotation_ms",
          "zones", "track_skew_sectors", "cylinder_skew_sectors", "head_switch_ms",
          "overhead_ms", "completion_ms", "seek", "rotation_phase", "track_phase", "defects",
          "layout", "write_settle_ms", "capacity_sectors", "source", "controller", "bus", "cache"});
  check_header(r);
  DiskProfile p;
  read_disk_fields(r, origin, p);

  if (!r.has("zones")) r.missing("zones", "a non-empty list of zones");
  const json& zones = r.at("zones");
  if (!zones.is_array() || zones.empty()) r.fail("zones", zones, "a non-empty list of zones");
  std::int64_t next_cyl = 0;
  for (std::size_t i = 0; i < zones.size(); ++i) {
    p.zones.push_back(read_zone(r, zones[i], i, next_cyl, p));
    next_cyl = p.zones.back().last_cylinder + 1;
  }
  const std::uint64_t sectors = total_sectors(r, p);
  p.seek = read_seek(r, next_cyl);
  read_track_phases(r, next_cyl, p);
  read_defects(r, next_cyl, sectors, p);
  p.drive = drive_params_from_json(j, origin);
  if (r.has("source")) p.source = r.at("source");
  return p;
}

json profile_to_json(const DiskProfile& p) {
  json j;
  j["schema"] = "disksched-geometry";
  j["version"] = kProfileVersion;
  j["kind"] = "disk";
  j["name"] = p.name;
  j["sector_bytes"] = p.sector_bytes;
  if (p.physical_sector_bytes != 0) j["physical_sector_bytes"] = p.physical_sector_bytes;
  j["heads"] = p.heads;
  j["rotation_ms"] = p.rotation_ms;
  json zones = json::array();
  for (const auto& z : p.zones) {
    json zj = {{"first_cylinder", z.first_cylinder},
               {"last_cylinder", z.last_cylinder},
               {"sectors_per_track", z.sectors_per_track}};
    if (z.track_skew_sectors) zj["track_skew_sectors"] = *z.track_skew_sectors;
    if (z.cylinder_skew_sectors) zj["cylinder_skew_sectors"] = *z.cylinder_skew_sectors;
    if (z.first_block_sectors) zj["first_block_sectors"] = *z.first_block_sectors;
    if (z.empty_front != 0) zj["empty_front"] = z.empty_front;
    if (z.spares != 0) zj["spares"] = z.spares;
    if (!z.slips.empty()) zj["slips"] = z.slips;
    if (!z.remaps.empty()) {
      json rm = json::array();
      for (const auto& [d, sp] : z.remaps) rm.push_back({d, sp});
      zj["remaps"] = rm;
    }
    zones.push_back(zj);
  }
  j["zones"] = zones;
  j["track_skew_sectors"] = p.track_skew_sectors;
  j["cylinder_skew_sectors"] = p.cylinder_skew_sectors;
  j["head_switch_ms"] = p.head_switch_ms;
  j["overhead_ms"] = per_op_json(p.overhead_ms);
  j["completion_ms"] = per_op_json(p.completion_ms);
  j["seek"] = seek_json(p.seek);
  j["rotation_phase"] = p.rotation_phase;
  // Written only when they say something, so older profiles save as they were; zones
  // with gaps between them need it too (the reader takes a gap without it for a typo).
  bool gaps = false;
  for (std::size_t i = 1; i < p.zones.size(); ++i)
    gaps = gaps || p.zones[i].first_cylinder != p.zones[i - 1].last_cylinder + 1;
  if (p.layout.mapping != Mapping::Conventional || p.layout.sparing != Sparing::None ||
      p.layout.range_cylinders != 1 || gaps) {
    j["layout"] = {{"mapping", mapping_name(p.layout.mapping)},
                   {"sparing", sparing_name(p.layout.sparing)}};
    if (p.layout.sparing == Sparing::SectorsPerRange) j["layout"]["range_cylinders"] = p.layout.range_cylinders;
  }
  if (p.write_settle_ms != 0.0) j["write_settle_ms"] = p.write_settle_ms;
  if (p.capacity_sectors) j["capacity_sectors"] = *p.capacity_sectors;
  if (!p.track_phase.empty()) {
    json tp = json::array();
    for (const auto& t : p.track_phase)
      tp.push_back({{"cylinder", t.cylinder}, {"head", t.head}, {"phase", t.phase}});
    j["track_phase"] = tp;
  }
  if (!p.defects.empty()) {
    json d = json::array();
    for (const auto& t : p.defects)
      d.push_back({{"cylinder", t.cylinder}, {"head", t.head}, {"sector", t.sector}});
    j["defects"] = d;
  }
  drive_params_to_json(p.drive, j);
  j["source"] = p.source;
  return j;
}

DiskProfile load_profile(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw ModelError(fmt::format("profile '{}': cannot open the file: {}", path,
                                 std::strerror(errno)));
  json j;
  ParsePath where;
  const auto track = [&](int depth, json::parse_event_t event, json& parsed) {
    where.see(depth, event, parsed);
    if (where.depth() > kMaxNesting)
      throw ModelError(fmt::format(
          "profile '{}': field '{}': nested deeper than {} levels: expected a profile's "
          "fields (see predictor/PROFILE.md), whose values nest a few levels at most",
          path, where.field(), kMaxNesting));
    return true;
  };
  try {
    j = json::parse(in, track);
  } catch (const json::out_of_range& e) {
    // The only range error while parsing: a number beyond a double (1e400).
    throw ModelError(fmt::format("profile '{}': field '{}': {}: expected a number within "
                                 "+-1.7e308, in the field's range",
                                 path, where.field(), plain_message(e)));
  } catch (const json::exception& e) {
    throw ModelError(fmt::format("profile '{}': not valid JSON (near field '{}'): {}", path,
                                 where.field(), plain_message(e)));
  }
  return profile_from_json(j, path);
}

void save_profile(const DiskProfile& p, const std::string& path) {
  try {
    replace_file(path, profile_to_json(p).dump(2) + "\n");
  } catch (const FileError& e) {
    throw ModelError(fmt::format("profile: {}", e.what()));
  }
}

DiskProfile hp97560_profile() {
  DiskProfile p;
  p.name = "hp97560";
  p.sector_bytes = 512;
  p.heads = 19;
  p.rotation_ms = 60000.0 / 4002.0;
  p.zones = {ZoneSpec{0, 1963, 72, {}, {}}};
  p.seek = two_piece_seek(3.24, 0.400, 383, 8.20, 0.0075);
  p.source = {{"reference", "Jacobson & Wilkes, HPL-CSP-91-7rev1, sec. 3"},
              {"notes", "JW's simulated model: seek + rotation + transfer, no skew, "
                        "no head switch, no controller overhead"}};
  return p;
}

DiskProfile hp97560_full_profile() {
  DiskProfile p = hp97560_profile();
  p.name = "hp97560-full";
  p.track_skew_sectors = 8;
  p.cylinder_skew_sectors = 18;
  p.head_switch_ms = 1.6;
  p.overhead_ms = PerOp{2.2, 2.2, 2.2};
  p.source = {{"reference",
               "JW sec. 3 geometry and seek curve; skews, head switch and controller "
               "overhead from Ruemmler & Wilkes 1994 and Kotz et al. 1994"},
              {"notes", "head switch 1.6 ms is R&W's simulator value (JW quotes ~2.5 ms); "
                        "no read-ahead cache is modelled"}};
  return p;
}

}  // namespace disksched
