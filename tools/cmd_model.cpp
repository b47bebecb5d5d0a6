// `disksched model list|show|seek|map|zones|import`: inspect a device model; import one.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "predictor/access_map.hpp"
#include "predictor/datasheet_profiles.hpp"
#include "predictor/disk_model.hpp"
#include "predictor/drive_params.hpp"
#include "predictor/fixed_model.hpp"
#include "predictor/import/disksim_import.hpp"
#include "tools/cmd_model_mems.hpp"
#include "tools/commands.hpp"
#include "tools/plot.hpp"
#include "common/regular_file.hpp"

namespace disksched::cli {
namespace {

using nlohmann::json;

// A skew every zone sets for itself is no profile-wide value: say so instead of the unused default.
json skew_or_per_zone(const DiskProfile& p, double value,
                      const std::optional<double> ZoneSpec::*per_zone) {
  bool every_zone = !p.zones.empty();
  for (const ZoneSpec& z : p.zones) every_zone = every_zone && (z.*per_zone).has_value();
  return every_zone ? json("per zone") : json(value);
}

// What the profile holds beyond the geometry: the media's sector, the completion
// overheads, the learnt phases, and the drive's controller, bus and cache blocks.
void add_profile_details(const DiskProfile& p, json& j) {
  j["track_skew_sectors"] = skew_or_per_zone(p, p.track_skew_sectors, &ZoneSpec::track_skew_sectors);
  j["cylinder_skew_sectors"] =
      skew_or_per_zone(p, p.cylinder_skew_sectors, &ZoneSpec::cylinder_skew_sectors);
  j["physical_sector_bytes"] = p.physical_sector_bytes != 0 ? p.physical_sector_bytes : p.sector_bytes;
  j["completion_ms"] = {{"read", p.completion_ms.read}, {"write", p.completion_ms.write},
                        {"other", p.completion_ms.other}};
  j["rotation_phase"] = p.rotation_phase;
  if (!p.track_phase.empty()) j["track_phases"] = p.track_phase.size();
  if (p.capacity_sectors) j["capacity_sectors"] = *p.capacity_sectors;
  json drive = json::object();
  drive_params_to_json(p.drive, drive);
  for (const char* block : {"controller", "bus", "cache"})
    j[block] = drive.contains(block) ? drive[block] : json("none (the platter alone)");
  if (!p.source.empty()) j["source"] = p.source;
}

json describe_disk(const DiskModel& m) {
  const DiskProfile& p = m.profile();
  json zones = json::array();
  for (std::size_t i = 0; i < p.zones.size(); ++i) {
    const ZoneSpec& z = p.zones[i];
    json zj = {{"first_cylinder", z.first_cylinder},
               {"last_cylinder", z.last_cylinder},
               {"sectors_per_track", z.sectors_per_track},
               {"sector_time_ms", m.rotation_ms() / z.sectors_per_track},
               {"first_lba", m.layout().zone_first_lba(i)},
               {"lbas", m.layout().zone_lbas(i)}};
    if (z.spares != 0) zj["spares"] = z.spares;
    if (!z.slips.empty()) zj["slips"] = z.slips.size();
    if (!z.remaps.empty()) zj["remaps"] = z.remaps.size();
    if (z.empty_front != 0) zj["empty_front"] = z.empty_front;
    if (z.track_skew_sectors) zj["track_skew_sectors"] = *z.track_skew_sectors;
    if (z.cylinder_skew_sectors) zj["cylinder_skew_sectors"] = *z.cylinder_skew_sectors;
    if (z.first_block_sectors) zj["first_block_sectors"] = *z.first_block_sectors;
    zones.push_back(zj);
  }
  json j = {{"kind", "disk"},
          {"name", m.name()},
          {"capacity_bytes", m.capacity_bytes()},
          {"sector_bytes", m.sector_bytes()},
          {"cylinders", m.cylinders()},
          {"heads", m.heads()},
          {"rpm", 60000.0 / m.rotation_ms()},
          {"rotation_ms", m.rotation_ms()},
          {"sector_time_ms", m.sector_time_ms()},
          {"zones", zones},
          {"track_skew_sectors", p.track_skew_sectors},
          {"cylinder_skew_sectors", p.cylinder_skew_sectors},
          {"head_switch_ms", p.head_switch_ms},
          {"overhead_ms", {{"read", p.overhead_ms.read}, {"write", p.overhead_ms.write},
                           {"other", p.overhead_ms.other}}},
          {"seek", profile_to_json(p)["seek"]},
          {"write_settle_ms", p.write_settle_ms},
          {"layout", {{"mapping", mapping_name(p.layout.mapping)},
                      {"sparing", sparing_name(p.layout.sparing)}}},
          {"defects", p.defects.size()}};
  add_profile_details(p, j);
  return j;
}

json describe(const DeviceModel& m) {
  if (auto* d = dynamic_cast<const DiskModel*>(&m)) return describe_disk(*d);
  if (m.kind() == "mems") return describe_mems_model(m);
  json j = {{"kind", std::string(m.kind())},
            {"name", m.name()},
            {"capacity_bytes", m.capacity_bytes()},
            {"sector_bytes", m.sector_bytes()}};
  if (m.kind() == "fixed") {
    j["service_ms"] = m.service(m.initial_state(), Op::Read, 0, m.sector_bytes()).service_ms();
  }
  return j;
}

void print_human(const json& j, const std::string& indent = "") {
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it->is_object()) {
      std::cout << indent << it.key() << ":\n";
      print_human(*it, indent + "  ");
    } else if (it->is_array() && !it->empty() && it->front().is_object()) {
      std::cout << indent << it.key() << ":\n";
      for (const auto& e : *it) std::cout << indent << "  - " << e.dump() << "\n";
    } else {
      std::cout << indent << fmt::format("{:<24}", it.key()) << " "
                << (it->is_string() ? it->get<std::string>() : it->dump()) << "\n";
    }
  }
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Parses "C:H:S" (disk) into three integers, or throws naming the text.
std::vector<long long> parse_position(const std::string& text, std::size_t parts) {
  std::vector<long long> v;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    auto colon = text.find(':', pos);
    std::string item = text.substr(pos, colon == std::string::npos ? std::string::npos : colon - pos);
    char* end = nullptr;
    long long x = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || x < 0)
      throw std::invalid_argument(fmt::format("--from '{}': '{}' is not a non-negative integer", text, item));
    v.push_back(x);
    if (colon == std::string::npos) break;
    pos = colon + 1;
  }
  if (v.size() != parts)
    throw std::invalid_argument(fmt::format("--from '{}': expected {} numbers separated by ':'", text, parts));
  return v;
}

void map_disk(const DiskModel& m, const std::string& from, const std::string& out) {
  auto v = parse_position(from, 3);
  if (v[0] >= m.cylinders() || v[1] >= m.heads() || v[2] >= m.sectors_per_track(v[0]))
    throw std::invalid_argument(fmt::format(
        "--from {}: outside the disk ({} cylinders, {} heads, {} sectors on that track)", from,
        m.cylinders(), m.heads(), v[0] < m.cylinders() ? m.sectors_per_track(v[0]) : 0));
  AccessMap map = compute_access_map(m, v[0], static_cast<std::int32_t>(v[1]),
                                     static_cast<std::uint32_t>(v[2]));
  const std::string csv = ends_with(out, ".png") ? out.substr(0, out.size() - 4) + ".csv" : out;
  {
    std::ostringstream f;
    f << "cylinder,sector_offset,access_ms,rotations\n";
    for (std::int64_t c = 0; c < map.cylinders; ++c)
      for (std::uint32_t s = 0; s < map.sectors; ++s) {
        const Millis t = map.at(c, s);
        f << c << ',' << s << ',' << fmt::format("{:.6f}", t) << ','
          << static_cast<int>(std::ceil(t / map.rotation_ms - 1e-9)) << '\n';
      }
    replace_file(csv, f.str());
  }
  std::cout << fmt::format("access-time map of {} from cylinder {} head {} sector {}: {}\n",
                           m.name(), v[0], v[1], v[2], csv);
  auto reach = reachable_within_rotations(map, 3);
  for (std::size_t k = 0; k < reach.size(); ++k)
    std::cout << fmt::format("  reachable within {} rotation{}: {:5.1f}% of the disk\n", k + 1,
                             k == 0 ? "" : "s", 100 * reach[k]);
  if (ends_with(out, ".png")) {
    run_plot("access_map.py", {csv, out,
                               fmt::format("{}: access time from C{}:H{}:S{} (JW Fig. 3)",
                                           m.name(), v[0], v[1], v[2])});
    std::cout << "  plot: " << out << "\n";
  }
}

// `model list`: every built-in model with its kind, capacity and rpm (none for MEMS).
json list_models() {
  const auto datasheet = datasheet_builtin_names();
  json rows = json::array();
  for (const std::string& name : builtin_model_names()) {
    json d = describe(*load_model(name));
    json row = {{"name", name}, {"kind", d["kind"]}, {"capacity_bytes", d["capacity_bytes"]},
                {"rpm", d.contains("rpm") ? d["rpm"] : json(nullptr)}};
    if (std::find(datasheet.begin(), datasheet.end(), name) != datasheet.end())
      row["variants"] = {name + "-512n", name + "-512e", name + "-4kn", name + "-nocache"};
    rows.push_back(row);
  }
  return rows;
}

void print_model_list(const json& rows) {
  std::cout << fmt::format("{:<20} {:<5} {:>14} {:>6}\n", "name", "kind", "capacity", "rpm");
  for (const json& r : rows) {
    const double gb = r["capacity_bytes"].get<double>() / 1e9;
    std::cout << fmt::format("{:<20} {:<5} {:>11.3f} GB {:>6}\n", r["name"].get<std::string>(),
                             r["kind"].get<std::string>(), gb,
                             r["rpm"].is_null() ? "-" : fmt::format("{:.0f}", r["rpm"].get<double>()));
  }
  std::cout << "Drives with variants also take -512n, -512e or -4kn (sector format), then\n"
               "-nocache (the platter without its buffer); any model also as fixed:ms=X or a\n"
               "profile .json (disksched model show NAME).\n";
}

void add_list_command(CLI::App& model) {
  auto* list = model.add_subcommand("list", "The built-in models: name, kind, capacity, rpm");
  auto as_json = std::make_shared<bool>(false);
  list->add_flag("--json", *as_json, "Print JSON (name, kind, capacity_bytes, rpm, variants)");
  list->callback([=] {
    json rows = list_models();
    if (*as_json)
      std::cout << rows.dump(2) << "\n";
    else
      print_model_list(rows);
  });
}

}  // namespace

void add_model_commands(CLI::App& app) {
  auto* model = app.add_subcommand("model", "Inspect a device model (built-in name or profile .json)");
  model->require_subcommand(1);
  add_list_command(*model);

  {
    auto* show = model->add_subcommand("show", "Geometry and timing parameters of a model");
    auto name = std::make_shared<std::string>();
    auto as_json = std::make_shared<bool>(false);
    show->add_option("MODEL", *name, builtin_models_text() + ", fixed:ms=X or PROFILE.json")
        ->required();
    show->add_flag("--json", *as_json, "Print JSON");
    show->callback([=] {
      auto m = load_model(*name);
      json j = describe(*m);
      if (*as_json)
        std::cout << j.dump(2) << "\n";
      else
        print_human(j);
    });
  }
  {
    auto* seek = model->add_subcommand("seek", "Seek time in ms for each cylinder (MEMS: x column) distance");
    auto name = std::make_shared<std::string>();
    auto dists = std::make_shared<std::vector<std::string>>();
    auto as_json = std::make_shared<bool>(false);
    seek->add_option("MODEL", *name, "Model name or profile")->required();
    seek->add_option("DIST", *dists, "Distances in cylinders")->required();
    seek->add_flag("--json", *as_json, "Print JSON {\"seek_ms\": [...]}");
    seek->callback([=] {
      auto m = load_model(*name);
      std::vector<double> out;
      for (const auto& d : *dists) {
        char* end = nullptr;
        long long x = std::strtoll(d.c_str(), &end, 10);
        if (d.empty() || *end != '\0')
          throw std::invalid_argument(fmt::format("distance '{}' is not an integer", d));
        if (std::llabs(x) >= m->cylinders())
          throw std::invalid_argument(fmt::format("distance {} is beyond the device ({} {})", d,
                                                  m->cylinders(),
                                                  m->kind() == "mems" ? "columns" : "cylinders"));
        out.push_back(m->seek_ms(x));
      }
      if (*as_json) {
        std::cout << json{{"seek_ms", out}}.dump() << "\n";
      } else {
        for (std::size_t i = 0; i < out.size(); ++i)
          std::cout << fmt::format("{:>8}  {:.3f} ms\n", (*dists)[i], out[i]);
      }
    });
  }
  {
    auto* map = model->add_subcommand("map", "Access-time map (JW Fig. 3; MEMS: Hong Fig. 2)");
    auto name = std::make_shared<std::string>();
    auto from = std::make_shared<std::string>();
    auto out = std::make_shared<std::string>();
    map->add_option("MODEL", *name, "Model name or profile")->required();
    map->add_option("--from", *from, "Start: CYL:HEAD:SECTOR (disk) or X:Y (MEMS, bits)")->required();
    map->add_option("-o,--output", *out, "Output .csv or .png (a .png also writes the .csv)")->required();
    map->callback([=] {
      if (!ends_with(*out, ".csv") && !ends_with(*out, ".png"))
        throw std::invalid_argument(fmt::format("-o {}: the output must end in .csv or .png", *out));
      auto m = load_model(*name);
      if (auto* d = dynamic_cast<const DiskModel*>(m.get())) {
        map_disk(*d, *from, *out);
      } else if (m->kind() == "mems") {
        map_mems(*m, *from, *out);
      } else {
        throw std::invalid_argument(fmt::format("model '{}' has no geometry to map", m->name()));
      }
    });
  }
  {
    auto* reach = model->add_subcommand(
        "reach", "What fraction of the disk each reading of JW's \"one rotational latency\" gives");
    auto name = std::make_shared<std::string>("hp97560");
    auto as_json = std::make_shared<bool>(false);
    reach->add_option("MODEL", *name, "Disk model (default hp97560)");
    reach->add_flag("--json", *as_json, "Print JSON");
    reach->callback([=] {
      auto m = load_model(*name);
      auto* d = dynamic_cast<const DiskModel*>(m.get());
      if (d == nullptr) throw std::invalid_argument("model reach needs a disk model");
      auto defs = one_rotation_reach(*d);
      if (*as_json) {
        json j = json::array();
        for (const auto& r : defs)
          j.push_back({{"definition", r.name}, {"description", r.description}, {"fraction", r.fraction}});
        std::cout << json{{"paper_percent", 39.7}, {"definitions", j}}.dump(2) << "\n";
        return;
      }
      std::cout << fmt::format("JW Fig. 3: \"39.7% of the disk is accessible in just one rotational latency\"\n");
      std::cout << fmt::format("{:<18} {:>7}  {}\n", "definition", "ours", "meaning");
      for (const auto& r : defs)
        std::cout << fmt::format("{:<18} {:>6.1f}%  {}\n", r.name, 100 * r.fraction, r.description);
    });
  }
  {
    auto* imp = model->add_subcommand(
        "import", "Write a profile from DiskSim 4.0 files: a .parv, a .diskspecs or a .model");
    auto file = std::make_shared<std::string>();
    auto diskspecs = std::make_shared<std::string>();
    auto model_file = std::make_shared<std::string>();
    auto out = std::make_shared<std::string>();
    imp->add_option("FILE", *file, "NAME.parv (the disk it instantiates), NAME.diskspecs or NAME.model");
    imp->add_option("--diskspecs", *diskspecs, "The disk's .diskspecs (instead of FILE)");
    imp->add_option("--model", *model_file, "The disk's .model (replaces the Model the disk spec names)");
    imp->add_option("-o,--output", *out, "The profile to write (.json)")->required();
    auto sets = std::make_shared<std::vector<std::string>>();
    imp->add_option("--set", *sets,
                    "COMPONENT:KEY=VALUE: DiskSim's command-line parameter override, applied to "
                    "FILE as DiskSim applies it (e.g. 'disk0:Enable caching in buffer=0'; "
                    "repeatable)")
        ->allow_extra_args(false)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    imp->callback([=] {
      if (!file->empty() && !diskspecs->empty())
        throw std::invalid_argument(
            fmt::format("give FILE ({}) or --diskspecs ({}), not both", *file, *diskspecs));
      std::string from = !file->empty() ? *file : *diskspecs;
      std::string model_path = *model_file;
      if (from.empty()) std::swap(from, model_path);
      if (from.empty())
        throw std::invalid_argument("model import: give FILE (.parv, .diskspecs or .model) or --diskspecs/--model");
      const auto t0 = std::chrono::steady_clock::now();
      std::vector<disksim::Override> overrides;
      for (const auto& spec : *sets) overrides.push_back(disksim::parse_override(spec));
      const disksim::DiskSimImport r = disksim::import_disksim(from, model_path, overrides);
      const DiskModel m(r.profile);
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      for (const auto& line : r.ignored) std::cerr << "model import: ignored (not modelled): " << line << "\n";
      for (const auto& note : r.notes) std::cerr << "model import: note: " << note << "\n";
      save_profile(r.profile, *out);
      std::cout << fmt::format(
          "{}: {} blocks (the file states {}), {} zones, {} cylinders, {} heads, {} rpm, sparing "
          "{}, seek {}; {} keys ignored; {:.1f} ms -> {}\n",
          r.profile.name, m.lbas(), r.stated_blocks, r.profile.zones.size(), m.cylinders(), m.heads(),
          std::lround(60000.0 / m.rotation_ms()), sparing_name(r.profile.layout.sparing),
          seek_form_name(r.profile.seek.form), r.ignored.size(), ms, *out);
    });
  }
  add_mems_zone_command(*model);
}

}  // namespace disksched::cli
