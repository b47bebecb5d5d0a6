// `disksched extract`: measure a disk's geometry and write the profile the predictor
// loads; `disksched extract check`: compare a profile with the truth.
#include <sched.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "predictor/disk_model.hpp"
#include "predictor/profile.hpp"
#include "tools/commands.hpp"
#include "tools/extract/block_target.hpp"
#include "tools/extract/compare.hpp"
#include "tools/extract/compare_drive.hpp"
#include "tools/extract/device_checks.hpp"
#include "tools/extract/tolerances.hpp"
#include "tools/extract/extractor.hpp"
#include "tools/extract/nbd_target.hpp"
#include "tools/extract/scsi_decode.hpp"
#include "tools/extract/scsi_interrogate.hpp"
#include "tools/extract/virtual_target.hpp"
#include "tools/extract/writable.hpp"
#include "tools/plot.hpp"
#include "common/regular_file.hpp"

namespace disksched::cli {
namespace {

using namespace disksched::extract;

struct ExtractArgs {
  std::string device, nbd, virtual_model, scsi, out, name, seek_form = "auto", allow_writes, plot;
  std::string noise = "none";
  // 570 s: with the cache check and the last probes, a run ends within 10 minutes.
  double budget_s = 570;
  std::string rt_priority = "auto";
  std::uint64_t seed = 1;
  bool force = false, quiet = false, no_cache_defeat = false, partial = false;
  int heads = 0;  // --heads (0: not given)
};

struct CheckArgs {
  std::string profile, against;
  double rpm_error = 0.0;
  std::string tolerances = "auto";
  unsigned drive_queue = 0;  // the emulator's; 0: not checked
};

bool is_block_device(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISBLK(st.st_mode);
}

void warn(const std::string& s) { std::cerr << "disksched extract: warning: " << s << "\n"; }

// Interrogates the drive and warns about caches that would spoil the probes. Fills the
// seeds for the extraction; keeps the device open for Translate Address.
void interrogate(const std::string& sg_path, bool writes, Seeds& seeds, nlohmann::json& record,
                 std::shared_ptr<scsi::ScsiDevice>& dev) {
  try {
    dev = std::make_shared<scsi::ScsiDevice>(sg_path);
  } catch (const std::exception& e) {
    std::cerr << "disksched extract: SCSI interrogation not available: " << e.what() << "\n";
    record["scsi"] = {{"device", sg_path}, {"error", e.what()}};
    return;
  }
  const scsi::Interrogation q = dev->interrogate();
  for (const auto& line : q.log) std::cerr << "disksched extract: SCSI " << line << "\n";
  record["scsi"] = q.to_json();
  if (q.characteristics && q.characteristics->non_rotating)
    throw std::runtime_error(sg_path + " reports a non-rotating medium (VPD B1h): there is no geometry to extract");
  seeds.nominal_rpm = q.nominal_rpm();
  if (q.geometry) seeds.heads = q.geometry->heads;
  if (q.format_device) {
    if (q.format_device->sectors_per_track > 0) seeds.sectors_per_track = q.format_device->sectors_per_track;
    seeds.track_skew = q.format_device->track_skew;
    seeds.cylinder_skew = q.format_device->cylinder_skew;
  }
  if (q.caching) {
    if (!q.caching->read_cache_disabled)
      warn("the read cache is on (MODE page 08h RCD=0): repeated reads may come from the cache; "
           "turn it off with `sdparm --set=RCD " + sg_path + "`");
    if (!q.caching->read_ahead_disabled)
      warn("read look-ahead is on (DRA=0): `sdparm --set=DRA " + sg_path + "`");
    if (q.caching->write_cache && writes)
      warn("the write cache is on (WCE=1): write probes use FUA, but `sdparm --clear=WCE` is safer");
  }
  if (q.defects && q.defects->format == 5) {
    std::vector<std::tuple<std::int64_t, std::int32_t, std::uint32_t>> list;
    for (const auto& d : q.defects->defects)
      if (d.sector != 0xffffffffu)  // whole-track entries are spared, not slipped
        list.emplace_back(static_cast<std::int64_t>(d.cylinder), d.head, d.sector);
    seeds.defect_list = std::move(list);
  }
  if (q.translate_supported) {
    seeds.translate = [dev](std::uint64_t lba) -> std::optional<std::pair<std::int64_t, std::int32_t>> {
      auto a = dev->translate(lba);
      if (!a) return std::nullopt;
      return std::make_pair(static_cast<std::int64_t>(a->cylinder), static_cast<std::int32_t>(a->head));
    };
  }
}

void check_ata(const std::string& path, bool writes, Seeds& seeds, nlohmann::json& record) {
  auto id = ata_identify(path);
  if (!id) return;
  try {
    const scsi::AtaIdentity a = scsi::decode_ata_identify(scsi::Bytes(id->data(), id->size()));
    record["ata"] = {{"write_cache_enabled", a.write_cache_enabled},
                     {"look_ahead_enabled", a.look_ahead_enabled},
                     {"physical_bytes", a.physical_bytes}};
    if (a.rpm) {
      record["ata"]["rpm"] = *a.rpm;
      if (!seeds.nominal_rpm) seeds.nominal_rpm = a.rpm;
    }
    if (a.non_rotating)
      throw std::runtime_error(path + " reports a non-rotating medium (ATA IDENTIFY word 217)");
    if (a.look_ahead_enabled)
      warn("the drive's look-ahead is on (ATA IDENTIFY word 85): `hdparm -A0 " + path + "`");
    if (a.write_cache_enabled && writes)
      warn("the drive's write cache is on: `hdparm -W0 " + path + "` (write probes use O_DSYNC)");
  } catch (const scsi::DecodeError& e) {
    warn(std::string("ATA IDENTIFY data unreadable: ") + e.what());
  }
}

// Scheduling noise on a busy host is the enemy of every probe (reference notes §4.2):
// a real-time thread with locked memory keeps completions seen within microseconds.
// SCHED_RESET_ON_FORK: the captive `nbdkit null` that times the host path runs at
// normal priority.
bool try_realtime(int priority, std::string* why) {
  sched_param sp{};
  sp.sched_priority = priority;
  if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) != 0) {
    *why = std::strerror(errno);
    return false;
  }
  if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0)
    warn(fmt::format("mlockall failed ({}); page faults may disturb probes", std::strerror(errno)));
  return true;
}

constexpr int kAutoRtPriority = 10;

// --rt-priority auto|0|N. Returns the advice for a run that turns out too noisy to time.
std::string enter_realtime(const std::string& arg) {
  const std::string server_hint =
      "for nbdkit diskemu, also start the server with rt-priority=10; otherwise stop other load on "
      "the machine";
  if (arg == "auto") {
    std::string why;
    if (try_realtime(kAutoRtPriority, &why)) {
      std::cerr << fmt::format("disksched extract: note: probing at real-time priority (SCHED_FIFO {}, memory "
                               "locked) because this process may; --rt-priority 0 turns it off\n",
                               kAutoRtPriority);
      return "the probes already run at SCHED_FIFO, so the delays come from the target's side: " + server_hint;
    }
    std::cerr << fmt::format("disksched extract: note: probing at normal priority: SCHED_FIFO is not "
                             "permitted ({}); on a busy host run as root, or allow real-time priority "
                             "(ulimit -r {} or CAP_SYS_NICE)\n",
                             why, kAutoRtPriority);
    return fmt::format("let disksched extract probe at real-time priority (run it as root, or allow it with "
                       "`ulimit -r {}` or CAP_SYS_NICE; SCHED_FIFO was refused: {}); {}",
                       kAutoRtPriority, why, server_hint);
  }
  int priority = -1;
  try {
    std::size_t used = 0;
    priority = std::stoi(arg, &used);
    if (used != arg.size()) priority = -1;
  } catch (const std::exception&) {
  }
  if (priority < 0 || priority > 99)
    throw std::invalid_argument(
        fmt::format("--rt-priority {}: expected auto (SCHED_FIFO when permitted), 0 (off) or 1 to 99", arg));
  if (priority == 0)
    return fmt::format("probe at real-time priority: drop --rt-priority 0 (the default, auto, uses SCHED_FIFO {} "
                       "where the process may) or give --rt-priority N as root; {}",
                       kAutoRtPriority, server_hint);
  std::string why;
  if (!try_realtime(priority, &why))
    throw std::runtime_error(fmt::format("--rt-priority {}: cannot switch to SCHED_FIFO: {} (needs CAP_SYS_NICE "
                                         "or RLIMIT_RTPRIO; --rt-priority auto falls back to normal priority)",
                                         priority, why));
  return "the probes already run at SCHED_FIFO, so the delays come from the target's side: " + server_hint;
}

void print_summary(const ExtractResult& r, std::FILE* out) {
  const DiskProfile& p = r.profile;
  fmt::print(out, "rotation     {:.5f} ms ({:.2f} rpm), jitter {:.3f} ms over {} reference reads\n",
             p.rotation_ms, 60000.0 / p.rotation_ms, r.period.jitter_ms, r.period.reads);
  fmt::print(out, "heads        {}\n", p.heads);
  for (std::size_t i = 0; i < p.zones.size(); ++i) {
    const auto& z = p.zones[i];
    fmt::print(out, "zone {:<3}     cylinders {:>6}-{:<6} {:>5} sectors/track, skews {:.2f} / {:.2f}\n", i,
               z.first_cylinder, z.last_cylinder, z.sectors_per_track,
               z.track_skew_sectors.value_or(p.track_skew_sectors),
               z.cylinder_skew_sectors.value_or(p.cylinder_skew_sectors));
  }
  fmt::print(out, "head switch  {:.3f} ms\n", p.head_switch_ms);
  fmt::print(out, "overhead     read {:.3f} ms, write {:.3f} ms (host round trip {:.3f} ms removed)\n",
             p.overhead_ms.read, p.overhead_ms.write, r.host_floor_ms);
  fmt::print(out, "seek         {} fit, RMS {:.3f} ms over {} distances ({} outliers dropped)\n",
             r.seek.form, r.seek.rms_ms, r.seek.table.size(), r.seek.rejected.size());
  fmt::print(out, "validation   {:.1f} % of {} random pairs within {:.3f} ms (median error {:.3f} ms)\n",
             100 * r.validation.within_tolerance, r.validation.pairs, r.validation.tolerance_ms,
             r.validation.median_abs_error_ms);
  fmt::print(out, "took         {:.1f} s, {} probes\n", r.elapsed_ms / 1000.0, r.probes);
}

void plot_seek(const ExtractResult& r, const std::string& png) {
  const std::string csv = png + ".csv";
  {
    std::ostringstream f;
    f << "distance,measured_ms,fitted_ms\n";
    SeekCurve fit(r.profile.seek, 0);
    for (const auto& pt : r.seek_points) f << pt.distance << "," << pt.ms << "," << fit.evaluate(pt.distance) << "\n";
    replace_file(csv, f.str());
  }
  run_plot("seek_plot.py",
           {csv, png, fmt::format("{}: seek curve ({} fit, RMS {:.3f} ms)", r.profile.name, r.seek.form, r.seek.rms_ms)});
  std::remove(csv.c_str());
}

void run_extract(const ExtractArgs& a) {
  const int sources = !a.device.empty() + !a.nbd.empty() + !a.virtual_model.empty();
  if (sources != 1) throw std::invalid_argument("give exactly one of --device PATH, --nbd URI, --virtual MODEL");
  if (a.out.empty()) throw std::invalid_argument("-o PROFILE.json is required");
  if (!(a.budget_s > 0)) throw std::invalid_argument(fmt::format("--budget {}: expected seconds > 0", a.budget_s));
  ExtractOptions o;
  o.budget_ms = a.budget_s * 1000.0;
  o.seed = a.seed;
  o.defeat_cache = !a.no_cache_defeat;
  if (a.heads < 0 || a.heads > 255) throw std::invalid_argument(fmt::format("--heads {}: expected 1 to 255", a.heads));
  if (a.heads > 0) o.heads = a.heads;
  o.progress = a.quiet ? nullptr : stderr;
  if (a.seek_form == "auto") o.seek_form = SeekForm::Auto;
  else if (a.seek_form == "two-piece") o.seek_form = SeekForm::TwoPiece;
  else if (a.seek_form == "three-piece") o.seek_form = SeekForm::ThreePiece;
  else if (a.seek_form == "table") o.seek_form = SeekForm::Table;
  else throw std::invalid_argument(fmt::format("--seek-form '{}': expected auto, two-piece, three-piece or table", a.seek_form));
  std::optional<std::pair<std::uint64_t, std::uint64_t>> writable;
  if (!a.allow_writes.empty()) writable = parse_byte_range(a.allow_writes);

  nlohmann::json interrogation = nlohmann::json::object();
  std::shared_ptr<scsi::ScsiDevice> sg;
  std::unique_ptr<ProbeTarget> target;
  if (!a.device.empty()) {
    if (is_block_device(a.device)) {
      const auto users = device_users(a.device);
      if (!users.empty()) {
        std::string why;
        for (const auto& u : users) why += (why.empty() ? "" : "; ") + u;
        if (!a.force)
          throw std::runtime_error(fmt::format(
              "{} is in use ({}); extraction would disturb it and be disturbed by it; use --force to "
              "probe it anyway (reads only unless --allow-writes)",
              a.device, why));
        warn(fmt::format("{} is in use ({}); going ahead because of --force", a.device, why));
      }
      check_ata(a.device, writable.has_value(), o.seeds, interrogation);
    }
    auto bt = std::make_unique<BlockTarget>(a.device, writable);
    o.writable = bt->writable_sectors();
    target = std::move(bt);
    const std::string sg_path = !a.scsi.empty() ? a.scsi : (is_block_device(a.device) ? a.device : "");
    if (!sg_path.empty()) interrogate(sg_path, writable.has_value(), o.seeds, interrogation, sg);
  } else if (!a.nbd.empty()) {
    auto nt = std::make_unique<NbdTarget>(a.nbd, 0, writable);
    o.writable = nt->writable_sectors();
    target = std::move(nt);
    if (!a.scsi.empty()) interrogate(a.scsi, writable.has_value(), o.seeds, interrogation, sg);
  } else {
    const std::optional<HostNoise> n = noise_preset(a.noise, a.seed);
    if (!n)
      throw std::invalid_argument(
          fmt::format("--noise '{}': expected {}", a.noise, noise_preset_names()));
    auto vt = std::make_unique<VirtualTarget>(load_model(a.virtual_model), *n);
    if (writable) o.writable = to_sectors(*writable, vt->sector_bytes(), vt->sectors());
    target = std::move(vt);
  }
  o.name = !a.name.empty() ? a.name : "extracted";
  // Virtual time needs no real-time priority; the option is still checked.
  if (a.virtual_model.empty()) o.timing_advice = enter_realtime(a.rt_priority);
  else if (a.rt_priority != "auto" && a.rt_priority != "0") enter_realtime(a.rt_priority);

  ExtractResult r = extract_geometry(*target, o);
  if (!interrogation.empty()) r.profile.source["interrogation"] = interrogation;
  print_summary(r, stdout);
  for (const auto& n : r.notes) fmt::print("note         {}\n", n);
  for (const auto& e : r.failures) fmt::print(stderr, "disksched extract: FAILED: {}\n", e);
  if (!r.failures.empty() && !a.partial)
    throw std::runtime_error(fmt::format("no profile written: {} of the result's checks failed (above); --partial "
                                         "writes what was found, marked partial in its source",
                                         r.failures.size()));
  if (!r.failures.empty()) r.profile.source["partial"] = true;
  save_profile(r.profile, a.out);
  fmt::print("wrote        {}{}\n", a.out, r.failures.empty() ? "" : " (partial)");
  if (!a.plot.empty()) {
    plot_seek(r, a.plot);
    fmt::print("plotted      {}\n", a.plot);
  }
  if (!r.failures.empty())
    throw std::runtime_error(fmt::format("{} is partial: {} of the result's checks failed (above)", a.out,
                                         r.failures.size()));
}

void run_check(const CheckArgs& a) {
  const DiskProfile got = load_profile(a.profile);
  std::unique_ptr<DeviceModel> truth = load_model(a.against);
  auto* disk = dynamic_cast<DiskModel*>(truth.get());
  if (!disk) throw std::invalid_argument(fmt::format("--against {}: not a disk model", a.against));
  const Millis period = disk->rotation_ms() / (1.0 + a.rpm_error);
  const std::string set = a.tolerances == "auto" ? auto_tolerances(disk->profile()) : a.tolerances;
  const auto tol = tolerances_named(set);
  if (!tol) throw std::invalid_argument(fmt::format("--tolerances {}: expected auto, hp97560 or today", a.tolerances));
  Comparison c = compare_profiles(got, disk->profile(), period, *tol);
  if (tol->drive) c.pass &= compare_drive(got, disk->profile(), a.drive_queue, *tol, c.lines);
  fmt::print("tolerances: {}\n", set);
  for (const auto& l : c.lines) fmt::print("{}\n", l);
  fmt::print("{}\n", c.pass ? "PASS: within every tolerance" : "FAIL: outside a tolerance");
  if (!c.pass) throw std::runtime_error(fmt::format("{} is outside the tolerances against {}", a.profile, a.against));
}

}  // namespace

void add_extract_commands(CLI::App& app) {
  auto args = std::make_shared<ExtractArgs>();
  auto* cmd = app.add_subcommand(
      "extract", "Measure a disk's geometry (rotation, zones, skews, head switch, seek curve) into a profile");
  cmd->add_option("--device", args->device, "Block device or file to probe (O_DIRECT reads)");
  cmd->add_option("--nbd", args->nbd, "NBD URI to probe (e.g. an nbdkit diskemu export), never the filter");
  cmd->add_option("--virtual", args->virtual_model,
                  "Probe a built-in model or profile in virtual time (testing aid)");
  cmd->add_option("--noise", args->noise, "Host noise for --virtual: none, vm (small jitter), late (a real-time nbdkit diskemu run's late completions) or busy (late, and requests reaching the device late)")->capture_default_str();
  cmd->add_option("--scsi", args->scsi, "SCSI generic node (/dev/sgN) to interrogate");
  cmd->add_option("--budget", args->budget_s, "Time budget in seconds (sampling adapts)")->capture_default_str();
  cmd->add_option("--allow-writes", args->allow_writes,
                  "OFFSET:LENGTH bytes that write probes may rewrite (with their own contents)");
  cmd->add_flag("--force", args->force, "Probe a device that is mounted or held");
  cmd->add_flag("--no-cache-defeat", args->no_cache_defeat,
                "Where the drive's buffer answers reads, stop instead of probing around it");
  cmd->add_option("-o,--output", args->out, "Profile to write (JSON)");
  cmd->add_option("--name", args->name, "Name recorded in the profile");
  cmd->add_option("--seek-form", args->seek_form, "auto, two-piece, three-piece or table")->capture_default_str();
  cmd->add_option("--plot", args->plot, "Also plot the measured seek curve and its fit to this PNG");
  cmd->add_option("--seed", args->seed, "Seed for the sampled positions")->capture_default_str();
  cmd->add_option("--rt-priority", args->rt_priority,
                  "Probe from a SCHED_FIFO thread at this priority (1-99), memory locked; auto = at 10 "
                  "when the process may (a note says which); 0 = off")
      ->capture_default_str();
  cmd->add_flag("-q,--quiet", args->quiet, "No progress bar");
  cmd->add_flag("--partial", args->partial,
                "Write the profile even when a check of the result fails (marked partial in its source; "
                "the exit status is still non-zero)");
  cmd->add_option("--heads", args->heads,
                  "The drive's number of heads, taken where the timing tells none (equal skews and switch times)");

  auto cargs = std::make_shared<CheckArgs>();
  auto* check = cmd->add_subcommand("check", "Compare a profile with the true model, quantity by quantity, against the extraction's "
      "tolerances per parameter: issue 7's for the HP 97560, or a drive of today's (--tolerances; listed below)");
  check->add_option("profile", cargs->profile, "Extracted profile (JSON)")->required();
  check->add_option("--against", cargs->against, "The true model (built-in name or profile)")->required();
  check->add_option("--rpm-error", cargs->rpm_error, "The emulator's rpm error (true speed = (1 + E) x nominal)")
      ->capture_default_str();
  check->add_option("--tolerances", cargs->tolerances, "auto, hp97560 or today (listed below)")->capture_default_str();
  check->add_option("--drive-queue", cargs->drive_queue,
                    "The queue depth the emulator gave the drive, to check the one measured (0: not checked)")
      ->capture_default_str();
  check->footer(tolerances_help());
  check->callback([cargs] { run_check(*cargs); });
  cmd->callback([args, check] {
    if (check->parsed()) return;
    run_extract(*args);
  });
}

}  // namespace disksched::cli
