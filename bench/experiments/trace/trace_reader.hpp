// Block I/O trace readers (formats in shared/reference/trace-formats.md).
//
// Every reader turns a file into the same records: arrival time in ms from the
// trace's first request, op, byte offset and length, the device/volume number, and
// (DiskSim validate only) the think time that follows the request, the access time the
// real drive took and the buffer flag; where the trace measured them (srt, msr, blkparse
// D events), when the device got the request and when it completed. A malformed line
// is a TraceError naming the file, the line number and the field.
//
// Our own CSV ("csv"), one request per line, '#' starts a comment, an optional
// header line `time_ms,op,offset,length[,device]` is skipped:
//   time_ms  arrival time in ms, float, non-decreasing
//   op       R|W|T|F (read, write, trim, flush) or read|write|trim|flush
//   offset   bytes, integer
//   length   bytes, integer > 0 (0 allowed for flush)
//   device   optional integer, default 0
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "predictor/device_model.hpp"

namespace disksched {

class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What a trace says about who waits for a request, in the format's own terms (a
// TraceClassMap, trace_classes.hpp, turns it into a request class):
//   ascii     flag bits 0x2 critical, 0x4 limited, 0x80 sync, 0x100 async; none of
//             them noncritical (DiskSim's rule), in a trace where any record has one
//   srt       ASYNC (0x100) clear: sync; set: readahead for a read, async for a write
//   blkparse  M meta, A readahead, S or F (FUA) sync, other reads sync (the kernel
//             counts every read as synchronous), other writes and discards async
// Other formats carry none (Origin::None).
enum class Origin : std::uint8_t { None, Sync, Async, Meta, Readahead, Critical, Limited, Noncritical };

std::string_view origin_name(Origin o);

// A DiskSim validate trace's second field, as measured on the real drive. DiskSim only
// counts them. In the HP C2247A's trace Hit and Miss say whether a read was served from
// the drive's cache (hits take about 4 ms, misses about 19); its writes are all Doub or
// Trip, which nothing documents. The other traces say Hit on every request, which then
// carries no information.
enum class BufferFlag : std::uint8_t { None, Hit, Miss, Doub, Trip };

std::string_view buffer_flag_name(BufferFlag b);

struct TraceRecord {
  Millis time_ms = 0.0;     // arrival, from the trace's first record
  Op op = Op::Read;
  std::uint64_t offset = 0; // bytes
  std::uint32_t length = 0; // bytes
  std::uint32_t device = 0; // device / volume / ASU number as the trace names it
  Millis think_ms = 0.0;    // validate: think time after this request completes
  Millis measured_ms = 0.0; // validate: the access time measured on the real drive
  Origin origin = Origin::None;
  BufferFlag buffer = BufferFlag::None;  // validate: the buffer flag
  // Measured on the traced system, in ms after time_ms (so unchanged when the arrivals
  // are shifted to start at 0); both set or neither:
  //   srt       issued = start (enqueue -> sent to the disk), done = stop (-> completed)
  //   msr       issued = 0, done = ResponseTime (issue -> completion at the host)
  //   blkparse  D events only: issued = 0, done = C - D (driver dispatch -> completion)
  // DiskSim validate traces keep theirs in measured_ms (their times are a closed replay's).
  std::optional<Millis> issued_ms;
  std::optional<Millis> done_ms;

  bool has_measured_times() const { return issued_ms.has_value() && done_ms.has_value(); }
};

struct TraceData {
  std::string format;               // ascii, validate, msr, spc, blkparse, srt, csv
  std::string path;
  std::vector<TraceRecord> records; // in arrival order
  std::uint64_t skipped = 0;        // records of kinds we do not replay (see reader)
  // What the reader chose or noticed that the user should hear (which blkparse events
  // became requests, ...), one sentence each, for stderr.
  std::vector<std::string> notes;
  // Mean arrival rate over the trace, requests per second (0 for validate).
  double rate_per_s() const;
  double mean_bytes() const;
  // Whether any record says who waits for it (an origin other than None).
  bool has_origins() const;
  // How many records carry measured device times (issued_ms and done_ms).
  std::size_t measured_records() const;
};

// The formats read_trace knows, for messages and `--help`.
const std::vector<std::string>& trace_formats();

// Which blkparse events become requests.
enum class BlkEvents : std::uint8_t {
  Issued,  // D: what reached the device, each with the size the kernel's merges gave it
  Queued,  // Q: what was submitted, with the kernel's back (M) and front (F) merges applied
};

struct TraceOptions {
  std::uint32_t sector_bytes = 0;  // the trace's sector (0: the format's own, e.g. 512
                                   // for DiskSim and blkparse, the header's for SRT)
  BlkEvents events = BlkEvents::Issued;
  // ascii and csv: the unit of the time field in ms (1: ms as the formats say; 1e-6:
  // nanoseconds, as MQSim's ASCII traces, DiskSim ascii's columns, are written).
  double ms_per_time_unit = 1.0;
};

// Reads `path` in `format`. Throws TraceError.
TraceData read_trace(std::string_view format, const std::string& path,
                     const TraceOptions& options = {});

// The format other than `except` that reads the first lines of `path` into requests,
// or "" if none does: for messages when a file is read with the wrong format.
std::string guess_trace_format(const std::string& path, std::string_view except);

// The same from a stream; `name` stands for the file in error messages.
TraceData read_trace(std::string_view format, std::istream& in, const std::string& name,
                     const TraceOptions& options = {});

}  // namespace disksched
