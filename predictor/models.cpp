#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "predictor/device_model.hpp"
#include "predictor/datasheet_profiles.hpp"
#include "predictor/disk_model.hpp"
#include "predictor/profile.hpp"
#include "predictor/fixed_model.hpp"
#include "predictor/mems/mems_model.hpp"
#include "predictor/seek_forms.hpp"

namespace disksched {

namespace {

// Ganger & Patt 1993, Table 2 (the traced Maxtor LXT-535SY): 11 data surfaces, 3600 rpm,
// 12.0 ms average seek, 8 zones of 46-71 sectors per track. GP give nothing else, so we
// chose: 1632 cylinders (204 a zone, 537.7 MB, the drive's 535 MB), 71, 67, 64, 60, 57,
// 53, 50, 46 sectors per track from the outside in, and a seek of 3.0 + b sqrt(s) ms with
// b set so the mean over uniformly random start and end cylinders is exactly 12.0 ms
// (single cylinder 3.4 ms, full stroke 19.9 ms); no skew, head switch or overhead. Its
// 64 KB read buffer is the process-flow simulator's (emulator/sim/process_flow/).
DiskProfile gp93_profile() {
  DiskProfile p;
  p.name = "gp93";
  p.sector_bytes = 512;
  p.heads = 11;
  p.rotation_ms = 60000.0 / 3600.0;
  const std::uint32_t spt[] = {71, 67, 64, 60, 57, 53, 50, 46};
  for (std::int64_t z = 0; z < 8; ++z) p.zones.push_back(ZoneSpec{z * 204, z * 204 + 203, spt[z], {}, {}});
  // Boundary 1632: one piece, the long form is never used.
  p.seek = two_piece_seek(3.0, 0.4178088019752634, 1632, 3.0 + 0.4178088019752634 * 40.39801975, 0.0);
  p.source = {{"reference", "Ganger & Patt 1993, Table 2"},
              {"notes", "cylinders, zone boundaries, per-zone sectors and the seek curve's shape "
                        "are our choices; the mean seek over random pairs is GP's 12.0 ms"}};
  return p;
}

template <DiskProfile (*profile)()>
std::unique_ptr<DeviceModel> disk() {
  return std::make_unique<DiskModel>(profile());
}
std::unique_ptr<DeviceModel> mems_g2() { return make_mems_model(); }
std::unique_ptr<DeviceModel> mems_table1() { return make_mems_model(MemsParams::table1()); }

// The built-in models by name, besides the datasheet drives (datasheet_profiles.hpp):
// the one list that load_model and every help text read.
struct Builtin {
  const char* name;
  std::unique_ptr<DeviceModel> (*make)();
};
const Builtin kBuiltins[] = {
    {"hp97560", disk<hp97560_profile>}, {"hp97560-full", disk<hp97560_full_profile>},
    {"gp93", disk<gp93_profile>},       {"mems", mems_g2},
    {"mems-table1", mems_table1},
};

}  // namespace

std::vector<std::string> builtin_model_names() {
  std::vector<std::string> names;
  for (const Builtin& b : kBuiltins) names.emplace_back(b.name);
  for (std::string& n : datasheet_builtin_names()) names.push_back(std::move(n));
  return names;
}

std::string builtin_models_text() {
  return fmt::format("{} (the last {} also -512n, -512e, -4kn, then -nocache)",
                     fmt::join(builtin_model_names(), ", "), datasheet_builtin_names().size());
}

std::unique_ptr<DeviceModel> load_model(std::string_view spec) {
  std::string s(spec);
  for (const Builtin& b : kBuiltins)
    if (s == b.name) return b.make();
  if (auto p = datasheet_builtin(s)) return std::make_unique<DiskModel>(std::move(*p));
  if (s.size() > 5 && s.substr(s.size() - 5) == ".json") return std::make_unique<DiskModel>(load_profile(s));
  // A path is a profile whatever it ends with: "no such file" says more than "unknown model".
  if (s.find('/') != std::string::npos) return std::make_unique<DiskModel>(load_profile(s));
  if (s.rfind("fixed", 0) == 0) {
    // fixed:ms=X[,capacity=BYTES]
    Millis ms = -1;
    std::uint64_t capacity = 1ull << 30;
    auto colon = s.find(':');
    std::string rest = colon == std::string::npos ? "" : s.substr(colon + 1);
    std::size_t pos = 0;
    while (pos < rest.size()) {
      auto comma = rest.find(',', pos);
      std::string item = rest.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
      pos = comma == std::string::npos ? rest.size() : comma + 1;
      auto eq = item.find('=');
      std::string key = item.substr(0, eq);
      std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
      char* end = nullptr;
      if (key == "ms") {
        ms = std::strtod(value.c_str(), &end);
        if (value.empty() || *end != '\0' || !(ms >= 0))
          throw ModelError(fmt::format("model '{}': ms='{}' is not a time in ms >= 0", s, value));
      } else if (key == "capacity") {
        capacity = std::strtoull(value.c_str(), &end, 10);
        // strtoull takes "-1" as 2^64 - 1; an NBD export holds at most 2^63 - 1 bytes.
        if (value.empty() || *end != '\0' || value[0] == '-' || capacity == 0 ||
            capacity > static_cast<std::uint64_t>(INT64_MAX))
          throw ModelError(fmt::format(
              "model '{}': capacity='{}' is not a byte count in [1, 2^63 - 1]", s, value));
      } else {
        throw ModelError(fmt::format("model '{}': unknown key '{}'; valid: ms, capacity", s, key));
      }
    }
    if (ms < 0) throw ModelError(fmt::format("model '{}': needs ms=X (e.g. fixed:ms=10)", s));
    return std::make_unique<FixedModel>(ms, capacity);
  }
  throw ModelError(fmt::format("unknown model '{}'; valid: {}, fixed:ms=X, or a .json profile", s,
                               builtin_models_text()));
}

}  // namespace disksched
