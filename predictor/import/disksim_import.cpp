#include "predictor/import/disksim_import.hpp"

#include <functional>

#include <fmt/format.h>

#include "predictor/disk_model.hpp"
#include "predictor/import/disksim_drive.hpp"
#include "predictor/import/disksim_keys.hpp"
#include "predictor/import/disksim_model.hpp"
#include "predictor/import/disksim_params.hpp"

namespace disksched::disksim {
namespace {

bool is_type(const Block& b, const char* type) { return normalize_key(b.type) == type; }

const Block* first_of_type(const ParamFile& f, const char* type) {
  for (const auto& b : f.blocks)
    if (is_type(*b, type)) return b.get();
  return nullptr;
}

// The instance name of the first disk the system instantiates, and its block.
std::pair<std::string, const Block*> instantiated_disk(const ParamFile& f) {
  for (const Instantiation& inst : f.instances) {
    const Block* b = f.find_block(inst.as);
    if (b != nullptr && is_type(*b, "disksim_disk") && !inst.names.empty()) return {inst.names[0], b};
  }
  return {"", nullptr};
}

// The bus block the topology hangs `disk` (an instance name) from, or nullptr.
const Block* bus_of(const ParamFile& f, const std::string& disk) {
  std::string bus;
  std::function<bool(const Topology&)> walk = [&](const Topology& t) {
    for (const Topology& c : t.children) {
      if (c.name == disk) {
        if (normalize_key(t.type) == "disksim_bus") bus = t.name;
        return true;
      }
      if (walk(c)) return true;
    }
    return false;
  };
  for (const Topology& t : f.topologies)
    if (walk(t)) break;
  if (bus.empty()) return nullptr;
  for (const Instantiation& inst : f.instances)
    for (const std::string& n : inst.names)
      if (n == bus) return f.find_block(inst.as);
  return nullptr;
}

std::string label(const Block& b) { return b.name.empty() ? b.type : b.type + " " + b.name; }

}  // namespace

DiskSimImport import_disksim(const std::string& file, const std::string& model_file,
                             const std::vector<Override>& overrides) {
  DiskSimImport out;
  ParamFile f = parse_file(file);
  apply_overrides(f, overrides);
  out.files = f.files;
  KeysRead read;

  auto [instance, disk] = instantiated_disk(f);
  if (disk == nullptr) disk = first_of_type(f, "disksim_disk");
  const Block* dm_disk = nullptr;
  if (disk != nullptr) {
    const Param* m = disk->find("Model");
    if (m != nullptr && m->value.kind == Value::Kind::Block && is_type(*m->value.block, "dm_disk")) {
      read.mark(m);
      dm_disk = m->value.block.get();
    }
  } else {
    dm_disk = first_of_type(f, "dm_disk");
  }
  ParamFile model;
  if (!model_file.empty()) {
    model = parse_file(model_file);
    out.files.insert(out.files.end(), model.files.begin(), model.files.end());
    dm_disk = first_of_type(model, "dm_disk");
    if (dm_disk == nullptr)
      throw ParamError(fmt::format("{}: expected a dm_disk Name {{ ... }} block (a DiskSim .model), found none",
                                   model_file));
  }
  if (dm_disk == nullptr)
    throw ParamError(fmt::format(
        "{}: expected a disk: a disksim_disk block with 'Model = dm_disk ... {{ }}' (or 'Model = "
        "source NAME.model'), a dm_disk block, or --model NAME.model; found {}",
        file, disk != nullptr ? "a disksim_disk without a dm_disk Model" : "neither"));

  ModelImport mi = import_dm_disk(*dm_disk, read);
  out.profile = std::move(mi.profile);
  out.notes = std::move(mi.notes);
  out.stated_blocks = mi.stated_blocks;
  if (disk != nullptr) out.profile.name = disk->name;

  // The drive beyond the platter: the disk's cache and controller overheads and the
  // buses' per-block times (disksim_drive.hpp); what it does not read is listed below.
  const Block* bus = instance.empty() ? nullptr : bus_of(f, instance);
  if (disk != nullptr) {
    const DriveImport drive = import_drive(f, *disk);
    out.profile.drive = drive.drive;
    for (const Param* p : drive.used) read.mark(p);
  }

  const DiskModel built(out.profile);  // checks the layout and counts its blocks
  if (static_cast<std::int64_t>(built.lbas()) > out.stated_blocks) {
    // DiskSim itself would use the layout's count; the drive exports what the file states.
    out.profile.capacity_sectors = static_cast<std::uint64_t>(out.stated_blocks);
    out.notes.push_back(fmt::format("the layout holds {} blocks, the file states Block count = {}: "
                                    "the profile exports {} (capacity_sectors; DiskSim 4.0 "
                                    "would use all {})",
                                    built.lbas(), out.stated_blocks, out.stated_blocks, built.lbas()));
  } else if (static_cast<std::int64_t>(built.lbas()) < out.stated_blocks) {
    out.notes.push_back(fmt::format("the layout holds {} blocks, fewer than the file's Block count "
                                    "= {}: the profile exports {} (as DiskSim 4.0 does)",
                                    built.lbas(), out.stated_blocks, built.lbas()));
  }
  if (mi.stated_cylinders > built.cylinders())
    out.notes.push_back(fmt::format("cylinders {} to {} lie beyond the last zone and hold no data",
                                    built.cylinders(), mi.stated_cylinders - 1));

  out.profile.source = {{"tool", "disksched model import"},
                        {"format", "DiskSim 4.0"},
                        {"files", out.files},
                        {"dm_disk", dm_disk->name},
                        {"block_count", out.stated_blocks}};
  if (!overrides.empty()) {
    std::vector<std::string> specs;
    for (const Override& o : overrides) specs.push_back(o.spec);
    out.profile.source["overrides"] = specs;
  }
  // A disk's Model, read, is walked from the disk; one given apart is walked alone.
  if (disk != nullptr) read.unread(*disk, label(*disk), out.ignored);
  if (disk == nullptr || !model_file.empty()) read.unread(*dm_disk, label(*dm_disk), out.ignored);
  if (bus != nullptr) read.unread(*bus, label(*bus) + " (the disk's bus)", out.ignored);
  return out;
}

}  // namespace disksched::disksim
