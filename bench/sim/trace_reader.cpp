#include "bench/sim/trace_reader.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>

#include <fmt/format.h>

namespace disksched {

double TraceData::rate_per_s() const {
  if (records.size() < 2) return 0.0;
  const Millis span = records.back().time_ms - records.front().time_ms;
  return span > 0 ? static_cast<double>(records.size() - 1) * 1000.0 / span : 0.0;
}

double TraceData::mean_bytes() const {
  if (records.empty()) return 0.0;
  double sum = 0;
  for (const auto& r : records) sum += r.length;
  return sum / static_cast<double>(records.size());
}

const std::vector<std::string>& trace_formats() {
  static const std::vector<std::string> f = {"ascii", "validate", "msr", "spc",
                                             "blkparse", "srt", "csv"};
  return f;
}

namespace {

// Where a field came from, for the message of a malformed line.
struct Where {
  const std::string& file;
  std::size_t line;
};

[[noreturn]] void fail(const Where& w, std::string_view field, std::string_view value,
                       std::string_view expected) {
  throw TraceError(fmt::format("{}:{}: field '{}' = '{}': expected {}", w.file, w.line, field,
                               value, expected));
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split_ws(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    std::size_t j = i;
    while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

std::vector<std::string_view> split_csv(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (true) {
    auto c = s.find(',', pos);
    out.push_back(trim(s.substr(pos, c == std::string_view::npos ? std::string_view::npos : c - pos)));
    if (c == std::string_view::npos) break;
    pos = c + 1;
  }
  return out;
}

template <typename T>
T to_uint(const Where& w, std::string_view field, std::string_view text, int base = 10) {
  T v{};
  std::string_view t = text;
  if (base == 16 && t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) t.remove_prefix(2);
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v, base);
  if (t.empty() || ec != std::errc() || p != t.data() + t.size())
    fail(w, field, text, base == 16 ? "a hexadecimal integer" : "a non-negative integer");
  return v;
}

double to_double(const Where& w, std::string_view field, std::string_view text) {
  double v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || !std::isfinite(v))
    fail(w, field, text, "a number");
  return v;
}

std::uint32_t byte_length(const Where& w, std::string_view field, std::string_view text,
                          std::uint64_t units, std::uint64_t unit_bytes) {
  const std::uint64_t bytes = units * unit_bytes;
  if (units == 0) fail(w, field, text, "a length > 0");
  if (bytes > 0xffffffffull) fail(w, field, text, "a length below 4 GiB");
  return static_cast<std::uint32_t>(bytes);
}

// Reads lines; calls `f(Where, line)` for each that is not blank.
template <typename F>
void for_each_line(std::istream& in, const std::string& name, F&& f) {
  std::string line;
  std::size_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (trim(line).empty()) continue;
    f(Where{name, n}, std::string_view(line));
  }
}

// ---- DiskSim ascii: time_ms dev block size flags_hex [batch]
void read_ascii(std::istream& in, const std::string& name, std::uint32_t sector, TraceData& t) {
  for_each_line(in, name, [&](const Where& w, std::string_view line) {
    auto f = split_ws(line);
    if (f.size() != 5 && f.size() != 6)
      fail(w, "line", line, "5 fields 'time device block size flags' (or 6 with a batch number)");
    TraceRecord r;
    r.time_ms = to_double(w, "time", f[0]);
    if (r.time_ms < 0) fail(w, "time", f[0], "a time >= 0");
    r.device = to_uint<std::uint32_t>(w, "device", f[1]);
    const auto block = to_uint<std::uint64_t>(w, "block", f[2]);
    const auto size = to_uint<std::uint64_t>(w, "size", f[3]);
    const auto flags = to_uint<std::uint32_t>(w, "flags", f[4], 16);
    if (f.size() == 6) to_uint<std::uint64_t>(w, "batch", f[5]);
    r.offset = block * sector;
    r.length = byte_length(w, "size", f[3], size, sector);
    r.op = (flags & 1u) ? Op::Read : Op::Write;
    t.records.push_back(r);
  });
}

// ---- DiskSim validate: R|W buffer-token block size access_us think_us
void read_validate(std::istream& in, const std::string& name, std::uint32_t sector, TraceData& t) {
  Millis clock = 0.0;
  for_each_line(in, name, [&](const Where& w, std::string_view line) {
    auto f = split_ws(line);
    if (f.size() != 6)
      fail(w, "line", line, "6 fields 'R|W Hit|Miss|Doub|Trip block size access_us think_us'");
    TraceRecord r;
    if (f[0] == "R" || f[0] == "r")
      r.op = Op::Read;
    else if (f[0] == "W" || f[0] == "w")
      r.op = Op::Write;
    else
      fail(w, "op", f[0], "R or W");
    if (f[1] != "Hit" && f[1] != "Miss" && f[1] != "Doub" && f[1] != "Trip")
      fail(w, "buffer", f[1], "Hit, Miss, Doub or Trip");
    const auto block = to_uint<std::uint64_t>(w, "block", f[2]);
    const auto size = to_uint<std::uint64_t>(w, "size", f[3]);
    const double access_us = to_double(w, "access_us", f[4]);
    const double think_us = to_double(w, "think_us", f[5]);
    if (access_us < 0) fail(w, "access_us", f[4], "a time >= 0");
    if (think_us < 0) fail(w, "think_us", f[5], "a time >= 0");
    r.offset = block * sector;
    r.length = byte_length(w, "size", f[3], size, sector);
    r.think_ms = think_us / 1000.0;
    // The recorded schedule: issue, access, think, next issue.
    r.time_ms = clock;
    clock += (access_us + think_us) / 1000.0;
    t.records.push_back(r);
  });
}

// ---- MSR Cambridge: Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
void read_msr(std::istream& in, const std::string& name, TraceData& t) {
  std::optional<std::uint64_t> first_tick;  // subtract in integers: FILETIMEs are ~1e17
  for_each_line(in, name, [&](const Where& w, std::string_view line) {
    auto f = split_csv(line);
    if (f.size() != 7)
      fail(w, "line", line, "7 fields 'Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime'");
    TraceRecord r;
    const auto ticks = to_uint<std::uint64_t>(w, "Timestamp", f[0]);
    if (!first_tick) first_tick = ticks;
    // 100-ns ticks; before the first record's time is negative (sorted later).
    r.time_ms = ticks >= *first_tick ? static_cast<double>(ticks - *first_tick) / 1e4
                                     : -static_cast<double>(*first_tick - ticks) / 1e4;
    if (f[1].empty()) fail(w, "Hostname", f[1], "a host name");
    r.device = to_uint<std::uint32_t>(w, "DiskNumber", f[2]);
    std::string type(f[3]);
    for (auto& c : type) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (type == "read")
      r.op = Op::Read;
    else if (type == "write")
      r.op = Op::Write;
    else
      fail(w, "Type", f[3], "Read or Write");
    r.offset = to_uint<std::uint64_t>(w, "Offset", f[4]);
    r.length = byte_length(w, "Size", f[5], to_uint<std::uint64_t>(w, "Size", f[5]), 1);
    to_uint<std::uint64_t>(w, "ResponseTime", f[6]);
    t.records.push_back(r);
  });
}

// ---- SPC / UMass: ASU,LBA,Size,Opcode,Timestamp[,ignored...]
void read_spc(std::istream& in, const std::string& name, std::uint32_t sector, TraceData& t) {
  for_each_line(in, name, [&](const Where& w, std::string_view line) {
    auto f = split_csv(line);
    if (f.size() < 5) fail(w, "line", line, "at least 5 fields 'ASU,LBA,Size,Opcode,Timestamp'");
    TraceRecord r;
    r.device = to_uint<std::uint32_t>(w, "ASU", f[0]);
    r.offset = to_uint<std::uint64_t>(w, "LBA", f[1]) * sector;
    r.length = byte_length(w, "Size", f[2], to_uint<std::uint64_t>(w, "Size", f[2]), 1);
    if (f[3] == "r" || f[3] == "R")
      r.op = Op::Read;
    else if (f[3] == "w" || f[3] == "W")
      r.op = Op::Write;
    else
      fail(w, "Opcode", f[3], "r or w");
    const double s = to_double(w, "Timestamp", f[4]);
    if (s < 0) fail(w, "Timestamp", f[4], "seconds >= 0");
    r.time_ms = s * 1000.0;
    t.records.push_back(r);
  });
}

// ---- blkparse default text: dev cpu seq time pid action rwbs [sector + n] [comm]
// Requests are the Q (queued) events, or the D (issued) events if the trace has no
// Q events. Lines that are not events (blkparse's summary) are skipped; an event
// line with a bad field is an error. Device numbers are (major << 20) | minor.
bool is_dev_field(std::string_view s) {
  auto c = s.find(',');
  if (c == std::string_view::npos || c == 0 || c + 1 == s.size()) return false;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (i != c && !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

void read_blkparse(std::istream& in, const std::string& name, std::uint32_t sector, TraceData& t) {
  std::vector<TraceRecord> queued, issued;
  std::uint64_t skipped_q = 0, skipped_d = 0;
  for_each_line(in, name, [&](const Where& w, std::string_view line) {
    auto f = split_ws(line);
    if (f.empty() || !is_dev_field(f[0])) return;  // summary and other non-event lines
    if (f.size() < 6) fail(w, "line", line, "'dev cpu seq time pid action ...'");
    const std::string_view action = f[5];
    if (action != "Q" && action != "D") return;
    if (f.size() < 7) fail(w, "rwbs", "", "an RWBS field after the action");
    const auto comma = f[0].find(',');
    const auto major = to_uint<std::uint32_t>(w, "dev", f[0].substr(0, comma));
    const auto minor = to_uint<std::uint32_t>(w, "dev", f[0].substr(comma + 1));
    to_uint<std::uint32_t>(w, "cpu", f[1]);
    to_uint<std::uint64_t>(w, "seq", f[2]);
    const double secs = to_double(w, "time", f[3]);
    if (secs < 0) fail(w, "time", f[3], "seconds >= 0");
    to_uint<std::uint64_t>(w, "pid", f[4]);
    const std::string_view rwbs = f[6];
    std::optional<Op> op;
    for (char c : rwbs) {
      if (c == 'R') op = Op::Read;
      else if (c == 'W') op = Op::Write;
      else if (c == 'D') op = Op::Trim;
      else if (std::string_view("NSMFAEU").find(c) == std::string_view::npos)
        fail(w, "rwbs", rwbs, "R, W, D or N with optional S, M, F, A, E");
    }
    auto& sink = action == "Q" ? queued : issued;
    auto& skipped = action == "Q" ? skipped_q : skipped_d;
    // No extent (a flush, or a line whose tail is only "[comm]"): not replayed.
    if (f.size() < 8 || f[7].front() == '[' || !op) {
      ++skipped;
      return;
    }
    if (f.size() < 10 || f[8] != "+") fail(w, "sector", f[7], "'sector + nsectors'");
    TraceRecord r;
    r.op = *op;
    r.device = (major << 20) | minor;
    r.time_ms = secs * 1000.0;
    r.offset = to_uint<std::uint64_t>(w, "sector", f[7]) * sector;
    const auto n = to_uint<std::uint64_t>(w, "nsectors", f[9]);
    if (n == 0) {
      ++skipped;
      return;
    }
    r.length = byte_length(w, "nsectors", f[9], n, sector);
    sink.push_back(r);
  });
  const bool use_q = !queued.empty() || skipped_q > 0;
  t.records = use_q ? std::move(queued) : std::move(issued);
  t.skipped = use_q ? skipped_q : skipped_d;
}

// ---- our CSV: time_ms,op,offset,length[,device]
void read_csv(std::istream& in, const std::string& name, TraceData& t) {
  bool first = true;
  for_each_line(in, name, [&](const Where& w, std::string_view line) {
    const bool header_allowed = first;
    first = false;
    if (trim(line).front() == '#') return;
    auto f = split_csv(line);
    if (header_allowed && !f.empty() && f[0] == "time_ms") return;
    if (f.size() != 4 && f.size() != 5)
      fail(w, "line", line, "4 or 5 fields 'time_ms,op,offset,length[,device]'");
    TraceRecord r;
    r.time_ms = to_double(w, "time_ms", f[0]);
    if (r.time_ms < 0) fail(w, "time_ms", f[0], "a time >= 0");
    std::string op(f[1]);
    for (auto& c : op) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (op == "r" || op == "read")
      r.op = Op::Read;
    else if (op == "w" || op == "write")
      r.op = Op::Write;
    else if (op == "t" || op == "trim")
      r.op = Op::Trim;
    else if (op == "f" || op == "flush")
      r.op = Op::Flush;
    else
      fail(w, "op", f[1], "R, W, T or F (or read, write, trim, flush)");
    r.offset = to_uint<std::uint64_t>(w, "offset", f[2]);
    const auto len = to_uint<std::uint64_t>(w, "length", f[3]);
    if (r.op == Op::Flush) {
      if (len > 0xffffffffull) fail(w, "length", f[3], "a length below 4 GiB");
      r.length = static_cast<std::uint32_t>(len);
    } else {
      r.length = byte_length(w, "length", f[3], len, 1);
    }
    if (f.size() == 5) r.device = to_uint<std::uint32_t>(w, "device", f[4]);
    if (r.op == Op::Flush && r.length == 0) {
      ++t.skipped;
      return;
    }
    t.records.push_back(r);
  });
}

// ---- HP SRT 1.3: text header ended by 0x0C, then big-endian uint32 records.
std::uint32_t be32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         std::uint32_t{p[3]};
}

void read_srt(std::istream& in, const std::string& name, std::uint32_t sector_override,
              TraceData& t) {
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string magic = "$$TR_IOREC";
  if (bytes.compare(0, magic.size(), magic) != 0)
    throw TraceError(fmt::format("{}: not an HP SRT trace: the header does not start with '{}'",
                                 name, magic));
  const auto ff = bytes.find('\x0c');
  if (ff == std::string::npos)
    throw TraceError(fmt::format("{}: SRT header has no end (no form feed byte 0x0C)", name));
  const std::string header = bytes.substr(0, ff);
  std::uint32_t sector = sector_override;
  if (sector == 0) {
    // The first disk's `sectorsize = N;` (256 B for hplajw); 512 if the header has none.
    sector = 512;
    const auto k = header.find("sectorsize");
    if (k != std::string::npos) {
      std::size_t i = k + 10;
      while (i < header.size() && (header[i] == ' ' || header[i] == '=' || header[i] == '\t')) ++i;
      std::size_t j = i;
      while (j < header.size() && std::isdigit(static_cast<unsigned char>(header[j]))) ++j;
      if (j == i)
        throw TraceError(fmt::format("{}: SRT header: field 'sectorsize' has no number", name));
      const std::string_view digits(header.data() + i, j - i);
      const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), sector);
      if (ec != std::errc() || sector == 0)
        throw TraceError(fmt::format(
            "{}: SRT header: field 'sectorsize' = '{}': expected a sector size in bytes from 1 to "
            "{} (or give the trace's sector size with sector=B)", name, digits, UINT32_MAX));
    }
  }
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  std::size_t pos = ff + 1;
  std::size_t index = 0;
  auto bad = [&](std::string_view field, std::uint64_t value, std::string_view expected) {
    throw TraceError(fmt::format("{}: record {} at byte {}: field '{}' = {}: expected {}", name,
                                 index, pos, field, value, expected));
  };
  while (pos < bytes.size()) {
    ++index;
    if (bytes.size() - pos < 16) bad("size", bytes.size() - pos, "a 16-byte record header (file truncated)");
    const std::uint32_t size = be32(data + pos);
    const std::uint32_t id = be32(data + pos + 4);
    const std::uint32_t sec = be32(data + pos + 8);
    const std::uint32_t usec = be32(data + pos + 12);
    if (size < 16) bad("size", size, "at least 16 bytes");
    if (size > bytes.size() - pos) bad("size", size, fmt::format("at most the {} bytes left (file truncated)", bytes.size() - pos));
    const std::uint32_t version = id >> 16;
    const std::uint32_t type = id & 0xffff;
    if (version < 1 || version > 4) bad("id", id, "a record version 1-4 in the high 16 bits");
    if (usec >= 1000000) bad("usec", usec, "microseconds below 1000000");
    if (type == 1 || type == 4) {  // SHORTIO, SUSPECTIO
      if (size < 52) bad("size", size, "at least 52 bytes for an I/O record");
      const unsigned char* b = data + pos + 16;
      const std::uint32_t nbytes = be32(b + 8);
      const std::uint32_t sectno = be32(b + 12);
      const std::uint32_t devno = be32(b + 16);
      const std::uint32_t ioflags = be32(b + 28);
      TraceRecord r;
      r.time_ms = static_cast<double>(sec) * 1000.0 + static_cast<double>(usec) / 1000.0;
      r.op = (ioflags & 1u) ? Op::Read : Op::Write;
      r.offset = std::uint64_t{sectno} * sector;
      r.length = nbytes;
      r.device = (devno >> 8) & 0xffff;
      if (nbytes == 0)
        ++t.skipped;
      else
        t.records.push_back(r);
    } else {
      ++t.skipped;  // LONGIO, TEXTIO, file-system events: skipped by size
    }
    pos += size;
  }
}

}  // namespace

TraceData read_trace(std::string_view format, std::istream& in, const std::string& name,
                     std::uint32_t sector_bytes) {
  TraceData t;
  t.format = std::string(format);
  t.path = name;
  const std::uint32_t sector = sector_bytes ? sector_bytes : 512;
  if (format == "ascii")
    read_ascii(in, name, sector, t);
  else if (format == "validate")
    read_validate(in, name, sector, t);
  else if (format == "msr")
    read_msr(in, name, t);
  else if (format == "spc")
    read_spc(in, name, sector, t);
  else if (format == "blkparse")
    read_blkparse(in, name, sector, t);
  else if (format == "srt")
    read_srt(in, name, sector_bytes, t);
  else if (format == "csv")
    read_csv(in, name, t);
  else
    throw TraceError(fmt::format("unknown trace format '{}'; valid: {}", format,
                                 fmt::join(trace_formats(), ", ")));
  if (in.bad()) throw TraceError(fmt::format("{}: read error", name));
  if (format != "validate") {
    // Arrival order; real traces (per-CPU merges, SYSTOR-like exports) are not always sorted.
    std::stable_sort(t.records.begin(), t.records.end(),
                     [](const TraceRecord& a, const TraceRecord& b) { return a.time_ms < b.time_ms; });
    if (!t.records.empty()) {
      const Millis t0 = t.records.front().time_ms;
      for (auto& r : t.records) r.time_ms -= t0;
    }
  }
  return t;
}

TraceData read_trace(std::string_view format, const std::string& path, std::uint32_t sector_bytes) {
  const auto& f = trace_formats();
  if (std::find(f.begin(), f.end(), format) == f.end())
    throw TraceError(fmt::format("unknown trace format '{}'; valid: {}", format, fmt::join(f, ", ")));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TraceError(fmt::format("{}: cannot open trace file", path));
  return read_trace(format, in, path, sector_bytes);
}

}  // namespace disksched
