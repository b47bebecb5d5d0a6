#include "predictor/drive_cache.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "predictor/disk_model.hpp"

namespace disksched {

const DriveParams* drive_params_of(const DeviceModel& model) {
  const auto* disk = dynamic_cast<const DiskModel*>(&model);
  if (disk == nullptr || disk->profile().drive.platter_only()) return nullptr;
  return &disk->profile().drive;
}

DriveCache::DriveCache(const DeviceModel& model, DriveParams params, HeadState initial)
    : model_(model),
      params_(params),
      sector_bytes_(model.sector_bytes()),
      lbas_(model.capacity_bytes() / model.sector_bytes()),
      mech_(initial) {
  const CacheParams& c = params_.cache;
  if (c.enabled()) {
    segments_.resize(c.segments + (c.separate_write_segment ? 1 : 0));
    if (c.separate_write_segment) segments_.back().writes = true;
  }
}

namespace {

// The model's cost of `count` sectors from `r.from`, less the command overhead the
// profile gives (the drive has paid it before the mechanism moves).
Cost platter(const DeviceModel& m, const HeadState& from, Op op, std::uint64_t lba,
             std::uint64_t count, std::uint32_t sb) {
  HeadState f = from;
  f.time_ms -= m.locate(lba, 1, op).overhead_ms;
  return m.service(f, op, lba * sb, static_cast<std::uint32_t>(count * sb));
}

Millis media_end_of(const HeadState& from, const Cost& c) {
  return from.time_ms + c.seek_ms + c.rotation_ms + c.transfer_ms;
}

// The bus: sector i leaves once it is in the buffer (avail[i]) and sector i - 1 has.
Millis bus_end(Millis bus_start, const std::vector<Millis>& avail, Millis bus) {
  Millis t = bus_start;
  for (const Millis a : avail) t = std::max(t, a) + bus;
  return t;
}

}  // namespace

Millis DriveCache::sector_end(const Run& r, std::uint64_t count) const {
  const Op op = Op::Read;
  return media_end_of(r.from, platter(model_, r.from, op, r.base, count, sector_bytes_));
}

Millis DriveCache::media_run(Run& r, Op op, std::vector<Millis>* ends, HeadState* end) const {
  const Cost c = platter(model_, r.from, op, r.base, r.end - r.base, sector_bytes_);
  r.media_end = media_end_of(r.from, c);
  if (end != nullptr) *end = c.end;
  if (ends != nullptr) {
    model_.media_ends(r.from, op, r.base, r.end - r.base, *ends);
    if (ends->empty()) ends->push_back(r.media_end);
    else ends->back() = r.media_end;
  }
  return r.from.time_ms + c.seek_ms + c.rotation_ms;  // the media transfer's start
}

void DriveCache::rebase(Run& r, std::uint64_t base) const {
  if (base <= r.base) return;
  // The run as if it began at `base`, where it is when it gets there: the sectors walked
  // to find a time stay few however long a sequential stream runs.
  const Cost c = platter(model_, r.from, Op::Read, r.base, base - r.base, sector_bytes_);
  const Millis t = media_end_of(r.from, c);
  r.from = c.end;
  r.from.time_ms = t;
  r.base = base;
}

std::uint64_t DriveCache::stream_done(Millis t) const {
  const Run& r = stream_.run;
  std::uint64_t lo = 0, hi = r.end - r.base;  // sector_end(lo) <= t < sector_end(hi + 1)
  if (r.media_end <= t) return hi;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo + 1) / 2;
    if (sector_end(r, mid) <= t)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

void DriveCache::settle(Millis t, bool stop) {
  if (!stream_.on) return;
  const Run& r = stream_.run;
  Segment& seg = segments_[stream_.segment];
  const bool finished = r.media_end <= t;
  std::uint64_t done = stream_done(t);
  if (stop && !finished && r.base + done < stream_.min_end) {
    // The minimum read-ahead is read even when a command waits for it.
    t = sector_end(r, stream_.min_end - r.base);
    done = stream_.min_end - r.base;
  }
  seg.end = r.base + done;
  seg.first = std::max(seg.first, seg.end > params_.cache.segment_sectors
                                      ? seg.end - params_.cache.segment_sectors
                                      : 0);
  if (finished || stop) {
    // The mechanism stops after the last sector it read, on that sector's track.
    if (done > 0) {
      const Cost c = platter(model_, r.from, Op::Read, r.base, done, sector_bytes_);
      mech_ = c.end;
    }
    mech_.time_ms = finished ? r.media_end : t;
    if (!finished && done > 0 && r.base + done < r.end) {
      // As DiskSim's read-ahead does, the arm leaves for the next track once the last
      // sector of this one is read: stopped after that, it is on the next track, free
      // when the move ends (disk_buffer_stopable_access lets a seek finish).
      HeadState at = mech_;
      at.time_ms = sector_end(r, done);
      const Cost next = platter(model_, at, Op::Read, r.base + done, 1, sector_bytes_);
      if (next.end.cylinder != at.cylinder || next.end.head != at.head) {
        mech_ = next.end;
        mech_.time_ms = std::max(t, at.time_ms + next.seek_ms);
      }
    }
    stream_.on = false;
  }
}

std::uint64_t DriveCache::dirty_sectors(Millis t) const {
  std::uint64_t n = 0;
  for (const Run& r : destage_)
    if (r.media_end > t) n += r.end - r.base;
  return n;
}

bool DriveCache::holds(Millis t, std::uint64_t lba, std::uint32_t sectors) const {
  for (std::size_t i = 0; i < segments_.size(); ++i) {
    const Segment& s = segments_[i];
    std::uint64_t first = s.first, end = s.end;
    if (stream_.on && stream_.segment == i) {
      end = stream_.run.base + stream_done(t);
      const std::uint64_t size = params_.cache.segment_sectors;
      first = std::max(first, end > size ? end - size : 0);  // a ring: the newest stay
    }
    if (first <= lba && lba + sectors <= end) return true;
  }
  return false;
}

std::pair<std::uint64_t, std::uint64_t> DriveCache::track_of(std::uint64_t lba) const {
  const Location at = model_.locate(lba, 1, Op::Read);
  auto same = [&](std::uint64_t x) {
    const Location l = model_.locate(x, 1, Op::Read);
    return l.cylinder == at.cylinder && l.head == at.head;
  };
  // A track's sectors are consecutive: search both ways within a zone's longest track.
  const std::uint64_t reach = 1u << 16;
  std::uint64_t lo = lba > reach ? lba - reach : 0, hi = lba;  // the first on the track
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (same(mid))
      hi = mid;
    else
      lo = mid + 1;
  }
  const std::uint64_t first = lo;
  lo = lba;
  hi = std::min(lbas_ - 1, lba + reach);
  while (lo < hi) {  // the last on the track
    const std::uint64_t mid = lo + (hi - lo + 1) / 2;
    if (same(mid))
      lo = mid;
    else
      hi = mid - 1;
  }
  return {first, lo};
}

std::uint64_t DriveCache::read_ahead_limit(std::uint64_t lba, std::uint64_t end,
                                           std::uint64_t seg_first) const {
  const CacheParams& c = params_.cache;
  if (!c.enabled()) return end;
  std::uint64_t limit = end + c.min_read_ahead;
  // The maximum counts the sectors read ahead after the request (as DiskSim's manual and
  // code have it), whatever read_ahead_over_requested says.
  const std::uint64_t most = end + c.max_read_ahead;
  if (c.continuous_read == 4) {
    // DiskSim's "DEC prefetch scheme": to the end of the track that holds the sector after
    // the request, and one track further when the segment began on an earlier track (a
    // sequential reader); the maximum read-ahead plays no part.
    if (end < lbas_) {
      const auto [first, last] = track_of(end);
      std::uint64_t to = last + 1;
      if (seg_first < first) {
        const auto* disk = dynamic_cast<const DiskModel*>(&model_);
        const Location at = model_.locate(lba, 1, Op::Read);
        to += disk != nullptr ? disk->sectors_per_track(at.cylinder)
                              : track_of(lba).second - track_of(lba).first + 1;
      }
      limit = std::max(limit, to);
    }
  } else if (c.continuous_read == 3) {
    limit = std::max(limit, most);
  } else if (c.continuous_read >= 1) {
    // To the end of the track (1) or cylinder (2) the request ends on.
    const Location last = model_.locate(end - 1, 1, Op::Read);
    auto same = [&](std::uint64_t x) {
      const Location l = model_.locate(x, 1, Op::Read);
      return l.cylinder == last.cylinder && (c.continuous_read == 2 || l.head == last.head);
    };
    std::uint64_t lo = end - 1, hi = std::min(lbas_ - 1, std::max(most, end) );
    while (lo < hi) {  // the last sector on the same track or cylinder, within `most`
      const std::uint64_t mid = lo + (hi - lo + 1) / 2;
      if (same(mid))
        lo = mid;
      else
        hi = mid - 1;
    }
    limit = std::max(limit, std::min(lo + 1, most));
  }
  // The segment is a ring. With read_ahead_over_requested, read-ahead may overwrite what
  // the host has been sent, but never runs more than a segment past the request's end.
  // Without, it may not overwrite this request's own sectors (DiskSim's "Read-ahead over
  // requested = 0"): it stops once they and it fill the segment, the minimum read-ahead
  // still read.
  // DEC prefetch (4) reads to its track's end whatever the segment's size: the ring keeps
  // the newest segment's worth (DiskSim's disk_buffer_get_max_readahead returns before its
  // segment-size rules, and disk_buffer_segment_wrap drops the oldest).
  if (c.continuous_read == 4) return std::min(limit, lbas_);
  limit = std::min(limit, c.read_ahead_over_requested
                              ? end + c.segment_sectors
                              : std::max(end + c.min_read_ahead, lba + c.segment_sectors));
  return std::min(limit, lbas_);
}

std::size_t DriveCache::victim() {
  std::size_t best = segments_.size();
  for (std::size_t i = 0; i < segments_.size(); ++i) {
    if (segments_[i].writes) continue;
    if (best == segments_.size() || segments_[i].used < segments_[best].used) best = i;
  }
  return best;
}

void DriveCache::power_cut(Millis t) {
  if (stream_.on) {
    settle(t, false);
    stream_.on = false;
  }
  while (!destage_.empty() && destage_.front().media_end <= t) destage_.pop_front();
  for (const Run& r : destage_) forget(r.base, r.end);
  destage_.clear();
  mech_.time_ms = std::min(mech_.time_ms, std::max(t, 0.0));
  last_write_ = false;
}

void DriveCache::forget(std::uint64_t lba, std::uint64_t end) {
  for (Segment& s : segments_)
    if (s.first < end && lba < s.end) s.first = s.end = 0;
}

// One command as serve() takes it, with what it costs whatever the buffer holds.
struct DriveCache::Command {
  Millis start = 0.0;
  Op op = Op::Read;
  std::uint64_t lba = 0, end = 0;  // [lba, end)
  std::uint32_t sectors = 0;
  bool fua = false;
  bool write = false, read = false;
  Millis bus = 0.0;               // a sector's time on the bus, this way
  Millis profile_overhead = 0.0;  // the profile's command overhead for this op
  Millis completion = 0.0;        // the profile's completion and the controller's
};

// A read's sectors on their way to the buffer.
struct DriveCache::ReadPlan {
  std::vector<Millis> avail;  // when each sector is in the buffer
  HeadState end_head;         // where the mechanism is after the request's last sector
  Millis media_start = -1.0;  // when this request's media part began, if it had one
  std::size_t served = 0;     // the segment the request went through (none: segments_.size())
};

// A write's way in: the command, its data over the bus, and its media run.
struct DriveCache::WritePlan {
  bool behind = false;     // taken behind: acknowledged from the buffer
  bool continues = false;  // continues the run being destaged (it may join it)
  bool extra = false;      // DiskSim's extra write disconnect applies
  Millis after_command = 0.0;
  Millis mech_may_move = 0.0;  // when the mechanism may move for it
  std::vector<Millis> arrive;  // when each sector has crossed the bus
  Millis data_in = 0.0;        // when the last has
  Run run;                     // the media run that writes it
  bool joined = false;         // run is the destage run it joined
  Millis media_start = 0.0;
};

DriveResult DriveCache::serve(Millis start, Op op, std::uint64_t lba, std::uint32_t sectors,
                              bool fua, const Spin& spin) {
  spin_ = spin;
  const Command cmd = command_of(start, op, lba, sectors, fua);
  if (cmd.read) return serve_read(cmd);
  if (cmd.write) return serve_write(cmd);
  return serve_other(cmd);
}

DriveCache::Command DriveCache::command_of(Millis start, Op op, std::uint64_t lba,
                                           std::uint32_t sectors, bool fua) const {
  const ControllerParams& ctl = params_.controller;
  Command cmd;
  cmd.start = start;
  cmd.op = op;
  cmd.lba = lba;
  cmd.end = lba + sectors;
  cmd.sectors = sectors;
  cmd.fua = fua;
  cmd.write = op == Op::Write || op == Op::Zero;
  cmd.read = op == Op::Read || op == Op::Cache;
  cmd.bus = cmd.write ? params_.bus.write_sector : (op == Op::Read ? params_.bus.read_sector : 0.0);
  cmd.profile_overhead = model_.locate(lba < lbas_ ? lba : 0, 1, op).overhead_ms;
  const Millis profile_completion = [&] {
    HeadState h = model_.initial_state();
    return model_.service(h, op, 0, 0).completion_ms;  // the profile's, for this op
  }();
  cmd.completion = profile_completion +
                   (cmd.write ? ctl.write_completion : cmd.read ? ctl.read_completion : 0.0);
  return cmd;
}

Millis DriveCache::command_ms(const Command& cmd, bool miss) const {
  return cmd.profile_overhead + params_.controller.command_ms(cmd.write, miss, last_write_);
}

HeadState DriveCache::mechanism_from(Millis t) const {
  HeadState h = mech_;
  h.time_ms = std::max(t, mech_.time_ms);
  h.spin = spin_;
  return h;
}

DriveResult DriveCache::serve_other(const Command& cmd) {
  // Flush drains the write-behind; trim forgets; neither moves the head.
  DriveResult out;
  Cost& c = out.cost;
  settle(cmd.start, false);
  c.overhead_ms = cmd.profile_overhead;
  Millis done = cmd.start + c.overhead_ms;
  if (cmd.op == Op::Flush && !destage_.empty()) done = std::max(done, destage_.back().media_end);
  if (cmd.op == Op::Trim) forget(cmd.lba, cmd.end);
  c.transfer_ms = done - (cmd.start + c.overhead_ms);
  c.completion_ms = cmd.completion;
  c.end = mech_;
  c.end.time_ms = done + c.completion_ms;
  while (!destage_.empty() && destage_.front().media_end <= cmd.start) destage_.pop_front();
  return out;
}

DriveResult DriveCache::serve_read(const Command& cmd) {
  settle(cmd.start, false);
  DriveResult out;
  ReadPlan plan;
  plan.avail.assign(cmd.sectors, -std::numeric_limits<Millis>::infinity());
  plan.end_head = mech_;
  plan.served = segments_.size();
  bool streaming = stream_.on && segments_[stream_.segment].first <= cmd.lba &&
                   cmd.lba <= stream_.run.end;
  if (streaming && params_.cache.read_ahead_wait < 2) {
    // Only a read whose first sector is in (or, with 1, next into) the buffer waits for
    // the read-ahead; any other is a miss, which stops it (DiskSim's almost read hits).
    const std::uint64_t done_end = stream_.run.base + stream_done(cmd.start);
    streaming = cmd.lba < done_end || (params_.cache.read_ahead_wait == 1 && cmd.lba == done_end);
  }
  if (streaming)
    read_from_stream(cmd, plan, out);
  else
    read_from_buffer_or_media(cmd, plan, out);
  if (params_.cache.forget_sent && plan.served < segments_.size()) {
    // The sectors sent the host leave the segment that served them (DiskSim's
    // "Read-ahead over requested = -1"); the read-ahead past them stays.
    segments_[plan.served].first = std::max(segments_[plan.served].first, cmd.end);
  }
  read_timing(cmd, plan, out);
  last_write_ = false;
  return out;
}

void DriveCache::read_from_stream(const Command& cmd, ReadPlan& plan, DriveResult& out) {
  // The read-ahead is at or coming to these sectors: they come at the media rate,
  // and the run goes on past them.
  out.hit = true;
  Run& r = stream_.run;
  const std::uint64_t done_end = r.base + stream_done(cmd.start);
  out.sectors_from_buffer =
      cmd.lba < done_end
          ? static_cast<std::uint32_t>(std::min<std::uint64_t>(cmd.sectors, done_end - cmd.lba))
          : 0;
  rebase(r, std::min(cmd.lba, done_end));
  r.end = std::max(r.end, read_ahead_limit(cmd.lba, cmd.end, segments_[stream_.segment].first));
  media_run(r, Op::Read, nullptr, nullptr);
  for (std::uint32_t i = 0; i < cmd.sectors; ++i)
    if (cmd.lba + i >= r.base) plan.avail[i] = sector_end(r, cmd.lba + i - r.base + 1);
  plan.end_head =
      cmd.end > r.base
          ? platter(model_, r.from, Op::Read, r.base, cmd.end - r.base, sector_bytes_).end
          : r.from;
  stream_.min_end = std::min(r.end, cmd.end + params_.cache.min_read_ahead);
  segments_[stream_.segment].used = ++clock_;
  plan.served = stream_.segment;
}

void DriveCache::read_from_buffer_or_media(const Command& cmd, ReadPlan& plan, DriveResult& out) {
  const CacheParams& cp = params_.cache;
  const std::uint64_t lba = cmd.lba, end = cmd.end;
  settle(cmd.start, true);
  // What the buffer holds from lba on.
  std::size_t seg = segments_.size();
  std::uint64_t have = 0;
  for (std::size_t i = 0; i < segments_.size(); ++i) {
    const Segment& s = segments_[i];
    if (s.writes && !cp.read_hits_on_write_data) continue;
    if (s.first <= lba && lba < s.end && s.end - lba > have) {
      have = std::min<std::uint64_t>(cmd.sectors, s.end - lba);
      seg = i;
    }
  }
  out.hit = have > 0;
  out.sectors_from_buffer = static_cast<std::uint32_t>(have);
  const Millis mech_start = cmd.start + command_ms(cmd, !out.hit);
  if (have < cmd.sectors || (out.hit && cp.read_ahead_on_idle_hit && segments_[seg].end < lbas_ &&
                             !segments_[seg].writes)) {
    // The rest (or, after an idle hit, the read-ahead) from the media.
    const std::uint64_t base = out.hit ? segments_[seg].end : lba;
    const std::uint64_t seg_first = out.hit ? segments_[seg].first : lba;
    if (seg == segments_.size() || segments_[seg].writes) {
      seg = victim();
      if (seg < segments_.size()) segments_[seg] = Segment{lba, lba, 0, false};
    }
    Run r;
    r.from = mechanism_from(mech_start);
    r.base = base;
    r.end = std::max<std::uint64_t>(read_ahead_limit(lba, end, seg_first), std::max(base, end));
    if (seg == segments_.size()) r.end = std::max(base, end);  // no cache: no read-ahead
    plan.media_start = media_run(r, Op::Read, nullptr, nullptr);
    for (std::uint32_t i = 0; i < cmd.sectors; ++i)
      if (lba + i >= base) plan.avail[i] = sector_end(r, lba + i - base + 1);
    if (end > base)
      plan.end_head = platter(model_, r.from, Op::Read, base, end - base, sector_bytes_).end;
    if (seg < segments_.size()) {
      stream_.on = true;
      stream_.run = r;
      stream_.segment = seg;
      stream_.min_end = std::min(r.end, std::max(end, base) + cp.min_read_ahead);
      segments_[seg].used = ++clock_;
      plan.served = seg;
    } else {
      mech_ = plan.end_head;
      mech_.time_ms = r.media_end;
    }
  } else if (seg < segments_.size()) {
    segments_[seg].used = ++clock_;
    plan.served = seg;
  }
}

void DriveCache::read_timing(const Command& cmd, const ReadPlan& plan, DriveResult& out) const {
  const ControllerParams& ctl = params_.controller;
  const CacheParams& cp = params_.cache;
  const std::vector<Millis>& avail = plan.avail;
  Cost& c = out.cost;
  c.overhead_ms = command_ms(cmd, !out.hit);
  const Millis after_command = cmd.start + c.overhead_ms;
  const bool waited = !avail.empty() && avail.front() > after_command;
  Millis bus_start = after_command;
  if (waited && cp.high_water > 0.0) {
    // The drive reconnects once that fraction of the request is in the buffer.
    // As DiskSim counts it ("Set watermark by reqsize"): the fraction of the request (at
    // most a segment), truncated to whole sectors, at least one.
    const std::uint64_t of = cp.segment_sectors > 0
                                 ? std::min<std::uint64_t>(cmd.sectors, cp.segment_sectors)
                                 : cmd.sectors;
    const auto k = static_cast<std::size_t>(cp.high_water * static_cast<double>(of));
    bus_start = std::max(bus_start, avail[std::min(avail.size(), std::max<std::size_t>(k, 1)) - 1]);
  }
  bus_start += ctl.data_preparation + (waited ? ctl.reselect : 0.0);
  const Millis last = cmd.op == Op::Read
                          ? bus_end(bus_start, avail, cmd.bus)
                          : std::max(after_command, avail.empty() ? after_command : avail.back());
  if (plan.media_start >= 0.0 && !out.hit) {
    c.seek_ms = 0.0;
    c.rotation_ms = 0.0;
    // The platter's part of a miss: from the end of the command to the media's start.
    const Cost p =
        platter(model_, mechanism_from(after_command), Op::Read, cmd.lba, cmd.sectors, sector_bytes_);
    c.seek_ms = std::min(p.seek_ms, std::max(0.0, last - after_command));
    c.rotation_ms = std::min(std::max(0.0, plan.media_start - after_command - c.seek_ms),
                             std::max(0.0, last - after_command - c.seek_ms));
  }
  c.transfer_ms = std::max(0.0, last - after_command - c.seek_ms - c.rotation_ms);
  c.completion_ms = cmd.completion;
  c.end = plan.end_head;
  c.end.time_ms = last + cmd.completion;
  if (!out.hit && !avail.empty()) out.media_end_ms = avail.back();
}

DriveResult DriveCache::serve_write(const Command& cmd) {
  // The command stops the read-ahead; the data crosses the bus after it.
  settle(cmd.start, true);
  while (!destage_.empty() && destage_.front().media_end <= cmd.start) destage_.pop_front();
  DriveResult out;
  WritePlan w = write_command(cmd, out);
  write_media_run(cmd, w);
  HeadState end_head =
      platter(model_, w.run.from, Op::Write, w.run.base, w.run.end - w.run.base, sector_bytes_).end;
  end_head.spin = spin_;
  mech_ = end_head;
  mech_.time_ms = w.run.media_end;
  keep_written(cmd.lba, cmd.end);
  write_timing(cmd, w, end_head, out);
  last_write_ = true;
  last_write_end_ = cmd.end;
  return out;
}

DriveCache::WritePlan DriveCache::write_command(const Command& cmd, DriveResult& out) const {
  const ControllerParams& ctl = params_.controller;
  const CacheParams& cp = params_.cache;
  const Millis start = cmd.start;
  WritePlan w;
  w.behind = cp.write_behind() && !cmd.fua &&
             cmd.sectors <=
                 static_cast<std::uint64_t>(std::max(1u, cp.write_segments)) * cp.segment_sectors;
  // Continuing the run being destaged: it may join it, with no need of a segment of its own.
  w.continues = w.behind && cp.combine_sequential_writes && !destage_.empty() &&
                destage_.back().end == cmd.lba && destage_.back().media_end > start;
  Millis accept = start;
  if (w.behind && !w.continues && destage_.size() >= std::max(1u, cp.write_segments))
    accept = destage_[destage_.size() - std::max(1u, cp.write_segments)].media_end;  // room
  out.hit = w.behind && accept == start;
  // A write that does not continue the previous write: DiskSim's extra write disconnect
  // applies to it.
  const bool fresh = !(last_write_ && cmd.lba == last_write_end_);
  w.extra = ctl.extra_write_disconnect && last_write_ && fresh;
  // The command: it disconnects at once and reconnects for the data (extra), or takes
  // the data at once.
  out.cost.overhead_ms = (w.extra ? ctl.extra_command + ctl.extra_disconnect +
                                        ctl.extra_inter_disconnect + ctl.write_reselect
                                  : command_ms(cmd, !out.hit)) +
                         (accept - start);
  w.after_command = start + out.cost.overhead_ms;
  w.mech_may_move = w.extra ? accept + ctl.extra_command + ctl.extra_seek_delta : w.after_command;
  const Millis bus_start = w.after_command + ctl.data_preparation;
  w.arrive.resize(cmd.sectors);
  for (std::uint32_t i = 0; i < cmd.sectors; ++i) w.arrive[i] = bus_start + (i + 1) * cmd.bus;
  w.data_in = cmd.sectors > 0 ? w.arrive.back() : bus_start;
  return w;
}

void DriveCache::write_media_run(const Command& cmd, WritePlan& w) const {
  const ControllerParams& ctl = params_.controller;
  const std::uint64_t lba = cmd.lba;
  const std::uint32_t sectors = cmd.sectors;
  const std::vector<Millis>& arrive = w.arrive;
  // The media run: joined to the run being destaged when it continues it in time.
  std::vector<Millis> ends;
  Run& r = w.run;
  if (w.continues) {
    Run j = destage_.back();
    j.end = cmd.end;
    media_run(j, Op::Write, &ends, nullptr);
    const std::uint64_t off = lba - j.base;
    w.joined = true;
    for (std::uint32_t i = 0; i < sectors && w.joined; ++i)
      w.joined = arrive[i] <= ends[off + i] - (i + off > 0 ? ends[off + i] - ends[off + i - 1] : 0.0);
    if (w.joined) r = j;
  }
  if (w.joined) return;
  const Millis mech_free = destage_.empty() ? 0.0 : destage_.back().media_end;
  r.from = mechanism_from(std::max(w.mech_may_move, mech_free));
  r.base = lba;
  r.end = cmd.end;
  const Millis seek = platter(model_, r.from, Op::Write, lba, sectors, sector_bytes_).seek_ms;
  // DiskSim's minimum seek delay: waived only for a write joined to a media run still
  // going (above), not for one that merely continues a finished write's LBAs.
  if (seek < ctl.min_write_seek) r.from.time_ms += ctl.min_write_seek - seek;
  w.media_start = media_run(r, Op::Write, cmd.bus > 0 ? &ends : nullptr, nullptr);
  if (cmd.bus > 0 && sectors > 0) {
    // A sector is written only once it has arrived; with DiskSim's extra write
    // disconnect, and only once min(sectors, 10) (15 from 45 sectors on) have.
    std::size_t first_batch = 1;
    if (ctl.extra_write_disconnect)
      first_batch = sectors < 45 ? std::min<std::size_t>(sectors, 10) : std::min<std::size_t>(sectors, 15);
    // Start later, on the angle, if not.
    Millis late = 0.0, prev = w.media_start;
    for (std::uint32_t i = 0; i < sectors; ++i) {
      const Millis ready = std::max(arrive[i], arrive[first_batch - 1]);
      const Millis sector_start = ends[i] - std::min(ends[i] - prev, ends[0] - w.media_start);
      late = std::max(late, ready - sector_start);
      prev = ends[i];
    }
    if (late > 0) {
      // The arm waits where it arrived; the wait is for the angle after `late`.
      r.from.time_ms = w.media_start + late - seek;
      w.media_start = media_run(r, Op::Write, nullptr, nullptr);
    }
  }
}

void DriveCache::keep_written(std::uint64_t lba, std::uint64_t end) {
  // The written data stays in the buffer; stale copies elsewhere go.
  forget(lba, end);
  if (!params_.cache.enabled()) return;
  std::size_t seg = segments_.size();
  for (std::size_t i = 0; i < segments_.size(); ++i)
    if (segments_[i].writes) seg = i;
  if (seg == segments_.size()) seg = victim();
  if (seg < segments_.size()) segments_[seg] = Segment{lba, end, ++clock_, segments_[seg].writes};
}

void DriveCache::write_timing(const Command& cmd, const WritePlan& w, const HeadState& end_head,
                              DriveResult& out) {
  const ControllerParams& ctl = params_.controller;
  const Run& r = w.run;
  Cost& c = out.cost;
  Millis last;
  if (w.behind) {
    if (w.joined)
      destage_.back() = r;
    else
      destage_.push_back(r);
    last = w.data_in;
    out.destage_end_ms = r.media_end;  // the run ends with this write's last sector
  } else {
    last = std::max(w.data_in, r.media_end);
    if (r.media_end > w.data_in) {
      // Its data in, it disconnects and reconnects when the media is done.
      const Millis disconnect = w.extra ? ctl.extra_disconnect2 : ctl.write_disconnect;
      last = std::max(w.data_in + disconnect, r.media_end) +
             (w.extra ? ctl.extra_reselect : ctl.write_reselect);
    }
    out.media_end_ms = r.media_end;
    c.seek_ms = std::max(0.0, std::min(w.media_start, last) - w.after_command);
    const Cost p =
        platter(model_, mechanism_from(w.after_command), Op::Write, cmd.lba, cmd.sectors, sector_bytes_);
    c.rotation_ms = std::max(0.0, c.seek_ms - p.seek_ms);
    c.seek_ms -= c.rotation_ms;
  }
  c.transfer_ms = std::max(0.0, last - w.after_command - c.seek_ms - c.rotation_ms);
  c.completion_ms = cmd.completion;
  c.end = end_head;
  c.end.time_ms = last + cmd.completion;
}

}  // namespace disksched
