// `disksched model show|map|zones` for the MEMS device (Hong et al. Fig. 2, sec. 7.2).
#include "tools/cmd_model_mems.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <iostream>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "predictor/mems/mems_describe.hpp"
#include "predictor/mems/mems_map.hpp"
#include "predictor/mems/mems_model.hpp"
#include "predictor/mems/mems_zones.hpp"
#include "tools/plot.hpp"
#include "common/regular_file.hpp"

namespace disksched::cli {
namespace {

const MemsModel& as_mems(const DeviceModel& m) {
  auto* mm = dynamic_cast<const MemsModel*>(&m);
  if (mm == nullptr) throw std::invalid_argument(fmt::format("model '{}' is not a MEMS device", m.name()));
  return *mm;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

nlohmann::json describe_mems_model(const DeviceModel& m) { return describe_mems(m); }

void map_mems(const DeviceModel& dm, const std::string& from, const std::string& out) {
  const MemsModel& m = as_mems(dm);
  auto colon = from.find(':');
  char* end1 = nullptr;
  char* end2 = nullptr;
  const std::string xs = from.substr(0, colon);
  const std::string ys = colon == std::string::npos ? "" : from.substr(colon + 1);
  long long x = std::strtoll(xs.c_str(), &end1, 10);
  double y = std::strtod(ys.c_str(), &end2);
  if (colon == std::string::npos || xs.empty() || ys.empty() || *end1 != '\0' || *end2 != '\0')
    throw std::invalid_argument(fmt::format("--from '{}': expected X:Y in bits (e.g. {}:{})", from,
                                            m.params().bits_x / 2, m.params().bits_y / 2));
  // Decimate to about 240 x 240 points: enough for the picture, fast to compute.
  const std::int64_t step_x = std::max<std::int64_t>(1, m.params().bits_x / 240);
  const std::int64_t step_y = std::max<std::int64_t>(1, m.params().bits_y / 240);
  MemsGrid g = mems_seek_grid(m, x, y, step_x, step_y);
  const std::string csv = ends_with(out, ".png") ? out.substr(0, out.size() - 4) + ".csv" : out;
  {
    std::ostringstream f;
    write_mems_grid_csv(g, f);
    replace_file(csv, f.str());
  }
  std::cout << fmt::format("seek-time map of {} from x={} y={} (every {} columns, {} bits): {}\n",
                           m.name(), x, y, step_x, step_y, csv);
  for (const auto& r : mems_reach(g, mems_band_thresholds(g)))
    std::cout << fmt::format("  reachable within {:.1f} ms: {:5.1f}% of the sled\n", r.threshold_ms,
                             100 * r.fraction);
  auto eq = mems_equivalence_summary(m, x, static_cast<std::int64_t>(y));
  std::cout << fmt::format("  equivalence regions x:y = 1:{:.1f} (geometric mean; Hong: about 1:10)\n",
                           eq.y_per_x);
  if (ends_with(out, ".png")) {
    run_plot("access_map.py",
             {csv, out, fmt::format("{}: seek time from x={} y={} (Hong Fig. 2)", m.name(), x, y)});
    std::cout << "  plot: " << out << "\n";
  }
}

void add_mems_zone_command(CLI::App& model) {
  auto* zones = model.add_subcommand(
      "zones", "Zone size whose seeks stay under a threshold (Hong sec. 7.2), under an explicit rule");
  auto name = std::make_shared<std::string>();
  auto threshold = std::make_shared<double>(0.4);
  auto rule = std::make_shared<std::string>("all-pairs");
  auto spring = std::make_shared<std::string>("on");
  auto placement = std::make_shared<std::string>("everywhere");
  auto divisors = std::make_shared<bool>(false);
  auto as_json = std::make_shared<bool>(false);
  zones->add_option("MODEL", *name, "A MEMS model (mems, mems-table1)")->required();
  zones->add_option("--threshold-ms", *threshold, "Seek-time threshold in ms")->required();
  zones->add_option("--rule", *rule,
                    "all-pairs (Hong's stated rule: every pair, both directions), forward (only "
                    "seeks ahead in the access direction) or reference (from the zone's start)");
  zones->add_option("--spring", *spring, "on (the model's spring factor), off, or a factor in [0, 1)");
  zones->add_option("--placement", *placement,
                    "everywhere (the size must hold at every offset on the sled) or centre");
  zones->add_flag("--divisors", *divisors, "Round sizes down to divisors of the tip region");
  zones->add_flag("--json", *as_json, "Print JSON");
  zones->callback([=] {
    auto dm = load_model(*name);
    const MemsModel& m = as_mems(*dm);
    ZoneOptions o;
    o.threshold_ms = *threshold;
    o.rule = parse_zone_rule(*rule);
    o.spring_factor = parse_spring(*spring, m.params());
    o.placement = parse_zone_placement(*placement);
    o.divisors = *divisors;
    ZoneSize z = mems_zone_size(m, o);
    auto j = to_json(z, m.params());
    if (*as_json) {
      std::cout << j.dump(2) << "\n";
      return;
    }
    std::cout << fmt::format(
        "zone {} x {} bits at {} ms (rule {}, spring {}, placement {}); worst seek x {:.3f} ms, y "
        "{:.3f} ms\n",
        z.zone_x_bits, z.zone_y_bits, z.threshold_ms, zone_rule_name(z.rule), j["spring"].dump(),
        zone_placement_name(z.placement), z.worst_x_ms, z.worst_y_ms);
    std::cout << "Hong et al. sec. 7.2: 60 x 600 bits at 0.3 ms, 120 x 1200 bits at 0.4 ms\n";
  });
}

}  // namespace disksched::cli
