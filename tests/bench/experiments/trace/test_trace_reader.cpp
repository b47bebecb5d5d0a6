// Every trace reader on small files written here, good and malformed.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>

#include "bench/experiments/trace/trace_classes.hpp"
#include "bench/experiments/trace/trace_reader.hpp"
#include "bench/experiments/workload/workload.hpp"
#include "tests/scratch_dir.hpp"

using namespace disksched;
using Catch::Matchers::Contains;

namespace {

// The message names the file, the line and the field.
void check_error(const std::string& format, const std::string& path, int line,
                 const std::string& field) {
  CHECK_THROWS_WITH(read_trace(format, path),
                    Contains(path + ":" + std::to_string(line) + ":") &&
                        Contains("field '" + field + "'"));
}

}  // namespace

TEST_CASE("DiskSim ascii", "[sim][trace]") {
  const testing::ScratchDir d;
  auto p = d.write("a.trace",
                   "0.000 0 1000 16 1\n"
                   "  5.5   0   2000  8   0\n"
                   "\n"
                   "7.25 1 3000 8 0x80 4\n");
  auto t = read_trace("ascii", p);
  REQUIRE(t.records.size() == 3);
  CHECK(t.records[0].op == Op::Read);
  CHECK(t.records[0].offset == 1000 * 512);
  CHECK(t.records[0].length == 16 * 512);
  CHECK(t.records[1].op == Op::Write);
  CHECK(t.records[1].time_ms == 5.5);
  CHECK(t.records[2].device == 1);
  CHECK(t.rate_per_s() == Approx(2 * 1000 / 7.25));
  check_error("ascii", d.write("b", "0 0 1000 16 1\n1.0 0 abc 16 1\n"), 2, "block");
  check_error("ascii", d.write("c", "0 0 1000 16 1\n\n1.0 0 5 0 1\n"), 3, "size");
  check_error("ascii", d.write("e", "0 0 1000 16 zz\n"), 1, "flags");
  check_error("ascii", d.write("f", "0 0 1000\n"), 1, "line");
}

TEST_CASE("DiskSim validate: think times, closed loop", "[sim][trace]") {
  const testing::ScratchDir d;
  auto p = d.write("v.trace",
                   "R Hit 100 8 12000.5 3000\n"
                   "W Miss 200 16 9000 0\n"
                   "R Doub 300 8 1000 500.25\n");
  auto t = read_trace("validate", p);
  REQUIRE(t.records.size() == 3);
  CHECK(t.records[0].think_ms == Approx(3.0));
  CHECK(t.records[1].op == Op::Write);
  CHECK(t.records[1].length == 16 * 512);
  CHECK(t.records[2].think_ms == Approx(0.50025));
  // The measured access time and the buffer flag are kept (disksched validate).
  CHECK(t.records[0].measured_ms == Approx(12.0005));
  CHECK(t.records[0].buffer == BufferFlag::Hit);
  CHECK(t.records[1].buffer == BufferFlag::Miss);
  CHECK(t.records[2].buffer == BufferFlag::Doub);
  CHECK(t.records[2].measured_ms == Approx(1.0));
  auto w = Workload::parse("trace:validate:" + p);
  CHECK(w.is_closed());
  auto c = w.closed_stream({1ull << 30, 512}, 1);
  CHECK(c->population() == 1);
  CHECK(c->next(0)->think_ms == 0.0);
  CHECK(c->next(0)->think_ms == Approx(3.0));  // the first request's think time
  CHECK(c->next(0)->think_ms == Approx(0.0));
  CHECK_FALSE(c->next(0).has_value());
  check_error("validate", d.write("b", "R Hit 100 8 12000 3000\nX Hit 100 8 1 1\n"), 2, "op");
  check_error("validate", d.write("c", "R Hot 100 8 1 1\n"), 1, "buffer");
  check_error("validate", d.write("e", "R Hit 100 8 1 -5\n"), 1, "think_us");
  check_error("validate", d.write("g", "R Trip 100 8 1 1\nW Hit 100 8 soon 1\n"), 2, "access_us");
  check_error("validate", d.write("h", "R Hit 100 8 1 1\nR Hit 100 8 1\n"), 2, "line");
}

TEST_CASE("MSR Cambridge CSV", "[sim][trace]") {
  const testing::ScratchDir d;
  auto p = d.write("hm_0.csv",
                   "128166372003061629,hm,0,Read,383496192,32768,7123\n"
                   "128166372003161629,hm,0,Write,1024,4096,100\n");
  auto t = read_trace("msr", p);
  REQUIRE(t.records.size() == 2);
  CHECK(t.records[0].offset == 383496192);
  CHECK(t.records[0].length == 32768);
  CHECK(t.records[1].op == Op::Write);
  CHECK(t.records[1].time_ms == Approx(10.0));  // 100000 ticks of 100 ns
  // ResponseTime, issue -> completion in the same ticks, kept as the measured time.
  REQUIRE(t.records[0].has_measured_times());
  CHECK(*t.records[0].issued_ms == 0.0);
  CHECK(*t.records[0].done_ms == Approx(0.7123));
  CHECK(*t.records[1].done_ms == Approx(0.01));
  CHECK(t.measured_records() == 2);
  check_error("msr", d.write("r", "1,hm,0,Read,0,4096,99999999999999\n"), 1, "ResponseTime");
  check_error("msr", d.write("b", "1,hm,0,Read,0,4096,1\n2,hm,0,Erase,0,4096,1\n"), 2, "Type");
  check_error("msr", d.write("c", "1,hm,0,Read,-5,4096,1\n"), 1, "Offset");
  check_error("msr", d.write("e", "1,hm,0,Read,0,4096\n"), 1, "line");
}

TEST_CASE("SPC / UMass CSV", "[sim][trace]") {
  const testing::ScratchDir d;
  auto p = d.write("Financial1.spc",
                   "0,303567,3584,w,0.000000\n"
                   "1, 55590, 3072, R, 0.010000, extra, fields\n"
                   "0,303574,512,W,0.026214\n");
  auto t = read_trace("spc", p);
  REQUIRE(t.records.size() == 3);
  CHECK(t.records[0].offset == 303567ull * 512);
  CHECK(t.records[0].op == Op::Write);
  CHECK(t.records[1].device == 1);
  CHECK(t.records[1].op == Op::Read);
  CHECK(t.records[2].time_ms == Approx(26.214));
  check_error("spc", d.write("b", "0,1,512,w,0.0\n0,2,512,x,0.1\n"), 2, "Opcode");
  check_error("spc", d.write("c", "0,1,512,w,soon\n"), 1, "Timestamp");
  check_error("spc", d.write("e", "0,1,512\n"), 1, "line");
}

TEST_CASE("blkparse text: Q events become requests with events=Q", "[sim][trace]") {
  const testing::ScratchDir d;
  auto p = d.write("sda.txt",
                   "  8,0    3        1     0.000000000  4162  Q  WS 3417048 + 8 [jbd2/sda3-8]\n"
                   "  8,0    3        2     0.000001000  4162  G  WS 3417048 + 8 [jbd2/sda3-8]\n"
                   "  8,0    3        3     0.000010000  4162  D  WS 3417048 + 8 [jbd2/sda3-8]\n"
                   "  8,0    1        1     0.000500000  4100  Q   R 100 + 16 [cat]\n"
                   "  8,0    1        2     0.000600000  4100  Q FWS [kworker]\n"
                   "  8,0    0        0     0.000700000     0  m   N cfq4162 insert\n"
                   "  8,0    3        4     0.001000000     0  C  WS 3417048 + 8 [0]\n"
                   "CPU0 (sda):\n"
                   " Reads Queued:           1,        8KiB\n");
  auto t = read_trace("blkparse", p, TraceOptions{.events = BlkEvents::Queued});
  REQUIRE(t.records.size() == 2);
  CHECK(t.records[0].op == Op::Write);
  CHECK(t.records[0].offset == 3417048ull * 512);
  CHECK(t.records[0].length == 8 * 512);
  CHECK(t.records[1].op == Op::Read);
  CHECK(t.records[1].time_ms == Approx(0.5));
  CHECK(t.records[1].device == ((8u << 20) | 0u));
  CHECK(t.skipped == 1);  // the flush
  // By default the D events, what reached the device.
  auto issued = read_trace("blkparse", p);
  REQUIRE(issued.records.size() == 1);
  CHECK(issued.records[0].time_ms == Approx(0.0));
  CHECK_THAT(issued.notes.at(0), Contains("D (issued)") && Contains("events=Q"));
  check_error("blkparse", d.write("b", "  8,0 3 1 0.0 4162 Q WS 3417048 + 8 [x]\n  8,0 3 2 0.1 4162 Q WS 5 + x [x]\n"),
              2, "nsectors");
  check_error("blkparse", d.write("c", "  8,0 3 1 zero 4162 Q WS 3417048 + 8 [x]\n"), 1, "time");
  check_error("blkparse", d.write("e", "  8,0 3 1 0.0 4162 Q WZ 3417048 + 8 [x]\n"), 1, "rwbs");
}

TEST_CASE("HP SRT 1.3 binary", "[sim][trace]") {
  const testing::ScratchDir d;
  auto be = [](std::string& s, std::uint32_t v) {
    for (int i = 3; i >= 0; --i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  };
  std::string f = "$$TR_IOREC-1.3 (IOAdaptor Upgrade Version)\ntracedate = 0;\n"
                  "disks = { disk0 = { nspt = 72; sectorsize = 256; }; };\n";
  f.push_back('\x0c');
  auto shortio = [&](std::uint32_t version, std::uint32_t sec, std::uint32_t usec,
                     std::uint32_t bytes, std::uint32_t sectno, std::uint32_t flags) {
    std::string r;
    const std::uint32_t size = version == 4 ? 56 : 52;
    be(r, size);
    be(r, (version << 16) | 1);
    be(r, sec);
    be(r, usec);
    be(r, 100);                     // start
    be(r, 9000);                    // stop
    be(r, bytes);
    be(r, sectno);
    be(r, (7u << 24) | (2u << 8));  // devno: disk 2
    be(r, 0);                       // drivertype
    be(r, 12);                      // cylno
    be(r, flags);
    be(r, 0);                       // info
    if (version == 4) be(r, 3);     // queuelen
    return r;
  };
  f += shortio(4, 10, 500000, 8192, 1000, 0x1);
  std::string text;  // a TEXTIO record, skipped by size
  be(text, 20);
  be(text, (4u << 16) | 3);
  be(text, 10);
  be(text, 600000);
  be(text, 0);
  f += text;
  f += shortio(3, 11, 0, 1024, 2000, 0x100);
  auto p = d.write("ajw.srt", f);
  auto t = read_trace("srt", p);
  REQUIRE(t.records.size() == 2);
  CHECK(t.skipped == 1);
  CHECK(t.records[0].op == Op::Read);
  CHECK(t.records[0].offset == 1000u * 256);  // the header's sector size
  CHECK(t.records[0].length == 8192);
  CHECK(t.records[0].device == 2);
  CHECK(t.records[1].op == Op::Write);
  CHECK(t.records[1].time_ms == Approx(500.0));
  // start and stop, us after the enqueue: sent to the disk at 0.1 ms, completed at 9 ms.
  REQUIRE(t.records[0].has_measured_times());
  CHECK(*t.records[0].issued_ms == Approx(0.1));
  CHECK(*t.records[0].done_ms == Approx(9.0));
  CHECK(t.measured_records() == 2);
  // A record that completes before it was sent carries no measured times, and is said.
  {
    std::string inv = f + shortio(4, 12, 0, 1024, 3000, 0x1);
    const auto stop_at = inv.size() - 56 + 20;  // the last record's stop field
    inv.replace(stop_at, 4, std::string("\0\0\0\x01", 4));
    const auto ti = read_trace("srt", d.write("inv.srt", inv));
    REQUIRE(ti.records.size() == 3);
    CHECK_FALSE(ti.records[2].has_measured_times());
    REQUIRE(ti.notes.size() == 1);
    CHECK_THAT(ti.notes[0], Contains("1 I/O records say they completed before"));
  }
  // Truncated: the last record claims more bytes than the file holds.
  auto bad = d.write("bad.srt", f.substr(0, f.size() - 10));
  CHECK_THROWS_WITH(read_trace("srt", bad),
                    Contains(bad) && Contains("record 3") && Contains("field 'size'"));
  CHECK_THROWS_WITH(read_trace("srt", d.write("nohdr.srt", "hello")), Contains("not an HP SRT"));
  // Issue 15, item 10: a sector size no disk has is a clear message, not a bare stoul.
  std::string huge = f;
  huge.replace(huge.find("sectorsize = 256"), 16, "sectorsize = 99999999999999999999");
  CHECK_THROWS_WITH(read_trace("srt", d.write("huge.srt", huge)),
                    Contains("huge.srt") &&
                        Contains("field 'sectorsize' = '99999999999999999999'") &&
                        Contains("sector=B"));
  // Byte counts that are not whole 256-byte sectors cannot be meant.
  CHECK_THROWS_WITH(read_trace("srt", d.write("odd.srt", f + shortio(4, 12, 0, 1000, 3000, 0x1))),
                    Contains("record 4") && Contains("field 'bytes' = 1000"));
}

TEST_CASE("our CSV", "[sim][trace]") {
  const testing::ScratchDir d;
  auto p = d.write("ours.csv",
                   "time_ms,op,offset,length,device\n"
                   "# a comment\n"
                   "0,read,0,4096\n"
                   "1.5,W,4096,8192,3\n"
                   "2,F,0,0\n"
                   "3,trim,0,512\n");
  auto t = read_trace("csv", p);
  REQUIRE(t.records.size() == 3);
  CHECK(t.records[1].device == 3);
  CHECK(t.records[2].op == Op::Trim);
  CHECK(t.skipped == 1);
  check_error("csv", d.write("b", "0,R,0,4096\n1,R,0,0\n"), 2, "length");
  check_error("csv", d.write("c", "0,Q,0,4096\n"), 1, "op");
  check_error("csv", d.write("e", "x,R,0,4096\n"), 1, "time_ms");
}

TEST_CASE("unknown format and missing file", "[sim][trace]") {
  CHECK_THROWS_WITH(read_trace("bogus", std::string("/nonexistent")), Contains("unknown trace format"));
  CHECK_THROWS_WITH(read_trace("csv", std::string("/nonexistent/x.csv")), Contains("cannot open"));
}

// Issue 15, item 10: an offset near 2^64 overflows offset + length; a block number
// times the sector size overflows the byte offset. Both name the file and the line.
TEST_CASE("offsets whose end passes 2^64 are refused with the file and line", "[sim][trace]") {
  const testing::ScratchDir d;
  check_error("csv", d.write("o.csv", "0,R,0,4096\n4,R,18446744073709551615,4096\n"), 2, "offset");
  check_error("msr", d.write("o.msr", "1,hm,0,Read,18446744073709551615,4096,1\n"), 1, "Offset");
  // Block 2^55 of 512 bytes is byte 2^64: it must not wrap to byte 0.
  check_error("ascii", d.write("o.ascii", "0 0 36028797018963968 8 1\n"), 1, "block");
  check_error("spc", d.write("o.spc", "0,36028797018963968,512,r,0.0\n"), 1, "LBA");
  check_error("blkparse", d.write("o.blk", "  8,0 3 1 0.0 4162 D R 36028797018963968 + 8 [x]\n"),
              1, "sector");
  check_error("validate", d.write("o.val", "R Hit 36028797018963967 8 1 1\n"), 1, "block");
}

TEST_CASE("values that cannot be meant are refused with the field named", "[sim][trace]") {
  const testing::ScratchDir d;
  check_error("validate", d.write("t.val", "R Hit 100 8 12000 1e308\n"), 1, "think_us");
  check_error("validate", d.write("a.val", "R Hit 100 8 1e300 1\n"), 1, "access_us");
  check_error("ascii", d.write("t.ascii", "1e300 0 1000 16 1\n"), 1, "time");
  check_error("csv", d.write("t.csv", "1e300,R,0,4096\n"), 1, "time_ms");
}

TEST_CASE("MSR Cambridge: a header line is skipped", "[sim][trace]") {
  const testing::ScratchDir d;
  auto t = read_trace("msr", d.write("hm_0.csv",
                                     "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n"
                                     "128166372003061629,hm,0,Read,383496192,32768,7123\n"));
  REQUIRE(t.records.size() == 1);
  CHECK(t.records[0].length == 32768);
  // Only as the first line: elsewhere it is a malformed line.
  check_error("msr", d.write("late.csv", "1,hm,0,Read,0,4096,1\nTimestamp,Hostname,DiskNumber,Type,"
                                         "Offset,Size,ResponseTime\n"),
              2, "Timestamp");
}

TEST_CASE("blkparse: every RWBS flag the kernel has printed", "[sim][trace]") {
  const testing::ScratchDir d;
  auto t = read_trace("blkparse",
                      d.write("old.txt",
                              "  8,0 0 1 0.0 1 Q WBS 100 + 8 [a]\n"     // barrier, 2.6.3x
                              "  8,0 0 2 0.1 1 Q FWFS 200 + 8 [a]\n"    // preflush + FUA
                              "  8,0 0 3 0.2 1 Q RA 300 + 8 [a]\n"      // readahead
                              "  8,0 0 4 0.3 1 Q RM 400 + 8 [a]\n"      // metadata
                              "  8,0 0 5 0.4 1 Q DE 500 + 8 [a]\n"      // secure erase
                              "  8,0 0 6 0.5 1 Q FN [a]\n"              // preflush only
                              "  8,0 0 7 0.6 1 Q F [a]\n"               // a flush
                              "  8,0 0 8 0.0 1 D WBS 100 + 8 [a]\n"),
                      TraceOptions{.events = BlkEvents::Queued});
  REQUIRE(t.records.size() == 5);
  CHECK(t.records[0].op == Op::Write);
  CHECK(t.records[1].op == Op::Write);
  CHECK(t.records[2].op == Op::Read);
  CHECK(t.records[4].op == Op::Trim);
  CHECK(t.skipped == 2);
  check_error("blkparse", d.write("rw", "  8,0 0 1 0.0 1 Q RW 100 + 8 [a]\n"), 1, "rwbs");
  check_error("blkparse", d.write("u", "  8,0 0 1 0.0 1 Q WU 100 + 8 [a]\n"), 1, "rwbs");
  check_error("blkparse", d.write("s", "  8,0 0 1 0.0 1 Q S 100 + 8 [a]\n"), 1, "rwbs");
}

// Issue 15: replaying every Q event overstates the load by the kernel's merges.
TEST_CASE("blkparse: D events with their merged sizes, or Q with the merges applied", "[sim][trace]") {
  const testing::ScratchDir d;
  auto p = d.write("merges.txt",
                   "  8,0 0 1 0.000 1 Q W 100 + 8 [a]\n"
                   "  8,0 0 2 0.001 1 G W 100 + 8 [a]\n"
                   "  8,0 0 3 0.002 1 Q W 108 + 8 [a]\n"
                   "  8,0 0 4 0.002 1 M W 108 + 8 [a]\n"   // back merge: 100 + 16
                   "  8,0 0 5 0.003 1 Q W 92 + 8 [a]\n"
                   "  8,0 0 6 0.003 1 F W 92 + 8 [a]\n"    // front merge: 92 + 24
                   "  8,0 0 7 0.004 1 Q R 5000 + 8 [b]\n"
                   "  8,0 0 8 0.005 1 D W 92 + 24 [a]\n"
                   "  8,0 0 9 0.006 1 D R 5000 + 8 [b]\n");
  auto issued = read_trace("blkparse", p);
  REQUIRE(issued.records.size() == 2);
  CHECK(issued.records[0].offset == 92 * 512);
  CHECK(issued.records[0].length == 24 * 512);
  auto queued = read_trace("blkparse", p, TraceOptions{.events = BlkEvents::Queued});
  REQUIRE(queued.records.size() == 2);
  CHECK(queued.records[0].offset == 92 * 512);
  CHECK(queued.records[0].length == 24 * 512);
  CHECK(queued.records[0].time_ms == Approx(0.0));  // the request's first bio
  CHECK(queued.records[1].offset == 5000 * 512);
  CHECK_THAT(queued.notes.at(0), Contains("2 of the trace's 2 merges applied"));
  // A Q-only capture: refused by default with the option that reads it.
  auto qonly = d.write("qonly.txt", "  8,0 0 1 0.000 1 Q W 100 + 8 [a]\n");
  CHECK_THROWS_WITH(read_trace("blkparse", qonly), Contains("no D (issued) events") && Contains("events=Q"));
  // The workload option.
  CHECK(Workload::parse("trace:blkparse:" + p + ",events=Q").trace()->records.size() == 2);
  CHECK_THROWS_WITH(Workload::parse("trace:csv:" + p + ",events=Q"), Contains("events="));
}

// Issue 14, "Classes everywhere": the readers keep what the format says about who waits.
TEST_CASE("trace readers keep the formats' sync/async, meta and class flags", "[sim][trace]") {
  const testing::ScratchDir d;
  auto ascii = read_trace("ascii", d.write("c.ascii",
                                           "0 0 100 8 3\n"       // read, TIME_CRITICAL
                                           "1 0 200 8 4\n"       // write, TIME_LIMITED
                                           "2 0 300 8 0x81\n"    // read, SYNC
                                           "3 0 400 8 0x100\n"   // write, ASYNC
                                           "4 0 500 8 0\n"));    // neither: noncritical
  REQUIRE(ascii.records.size() == 5);
  CHECK(ascii.records[0].origin == Origin::Critical);
  CHECK(ascii.records[1].origin == Origin::Limited);
  CHECK(ascii.records[2].origin == Origin::Sync);
  CHECK(ascii.records[3].origin == Origin::Async);
  CHECK(ascii.records[4].origin == Origin::Noncritical);
  // A trace of plain read/write flags says nothing about classes.
  CHECK_FALSE(read_trace("ascii", d.write("p.ascii", "0 0 100 8 1\n1 0 200 8 0\n")).has_origins());
  auto blk = read_trace("blkparse", d.write("c.blk",
                                            "  8,0 0 1 0.0 1 D WS 100 + 8 [a]\n"
                                            "  8,0 0 2 0.1 1 D W 200 + 8 [a]\n"
                                            "  8,0 0 3 0.2 1 D WM 300 + 8 [a]\n"
                                            "  8,0 0 4 0.3 1 D RA 400 + 8 [a]\n"
                                            "  8,0 0 5 0.4 1 D R 500 + 8 [a]\n"
                                            "  8,0 0 6 0.5 1 D WFS 600 + 8 [a]\n"));
  REQUIRE(blk.records.size() == 6);
  CHECK(blk.records[0].origin == Origin::Sync);
  CHECK(blk.records[1].origin == Origin::Async);
  CHECK(blk.records[2].origin == Origin::Meta);
  CHECK(blk.records[3].origin == Origin::Readahead);
  CHECK(blk.records[4].origin == Origin::Sync);
  CHECK(blk.records[5].origin == Origin::Sync);
  // Other formats carry none.
  CHECK_FALSE(read_trace("csv", d.write("c.csv", "0,R,0,4096\n")).has_origins());
}

TEST_CASE("trace classes: the default mapping and classes=", "[sim][trace]") {
  const TraceClassMap def;
  CHECK(def.of(Origin::Sync) == TraceClass{IoClass::TimeCritical, 0.0});
  CHECK(def.of(Origin::Meta) == TraceClass{IoClass::TimeCritical, 0.0});
  CHECK(def.of(Origin::Readahead) == TraceClass{IoClass::TimeLimited, 100.0});
  CHECK(def.of(Origin::Async) == TraceClass{IoClass::TimeNoncritical, 0.0});
  CHECK_FALSE(def.of(Origin::None).has_value());
  const auto m = TraceClassMap::parse("readahead:limited:50ms/meta:tnc/async:tl:0.2s");
  CHECK(m.of(Origin::Readahead) == TraceClass{IoClass::TimeLimited, 50.0});
  CHECK(m.of(Origin::Meta) == TraceClass{IoClass::TimeNoncritical, 0.0});
  CHECK(m.of(Origin::Async) == TraceClass{IoClass::TimeLimited, 200.0});
  CHECK(m.of(Origin::Sync) == TraceClass{IoClass::TimeCritical, 0.0});  // unchanged
  CHECK(TraceClassMap::parse(m.spec()).spec() == m.spec());
  CHECK_FALSE(TraceClassMap::parse("none").of(Origin::Sync).has_value());
  CHECK_THROWS_WITH(TraceClassMap::parse("lazy:tc"),
                    Contains("unknown origin 'lazy'") && Contains("readahead"));
  CHECK_THROWS_WITH(TraceClassMap::parse("sync:urgent"), Contains("critical (tc)"));
  CHECK_THROWS_WITH(TraceClassMap::parse("sync:limited:soon"), Contains("limit 'soon'"));
  CHECK_THROWS_WITH(TraceClassMap::parse("sync"), Contains("ORIGIN:CLASS"));
}

TEST_CASE("trace workloads carry the classes into the arrivals", "[sim][trace]") {
  const testing::ScratchDir d;
  auto p = d.write("c.blk",
                   "  8,0 0 1 0.000 1 D WS 100 + 8 [a]\n"
                   "  8,0 0 2 0.001 1 D W 200 + 8 [a]\n"
                   "  8,0 0 3 0.002 1 D RA 300 + 8 [a]\n");
  const DeviceExtent dev{1ull << 30, 512};
  auto w = Workload::parse("trace:blkparse:" + p);
  CHECK(w.has_classes());
  auto s = w.open_stream(dev, 0, 1);
  CHECK(s->next()->cls == IoClass::TimeCritical);
  CHECK(s->next()->cls == IoClass::TimeNoncritical);
  auto ra = *s->next();
  CHECK(ra.cls == IoClass::TimeLimited);
  CHECK(ra.limit_ms == 100.0);
  // classes= changes the mapping and survives the canonical spec.
  auto w2 = Workload::parse("trace:blkparse:" + p + ",classes=async:tc/readahead:tl:20ms");
  CHECK_THAT(w2.spec(), Contains("classes=async:tc/readahead:tl:20ms"));
  auto s2 = Workload::parse(w2.spec()).open_stream(dev, 0, 1);
  s2->next();
  CHECK(s2->next()->cls == IoClass::TimeCritical);
  CHECK(s2->next()->limit_ms == 20.0);
  // classes=none: the default class, and no per-class results.
  auto none = Workload::parse("trace:blkparse:" + p + ",classes=none");
  CHECK_FALSE(none.has_classes());
  CHECK(none.open_stream(dev, 0, 1)->next()->cls == IoClass::TimeNoncritical);
  CHECK_THROWS_WITH(Workload::parse("trace:blkparse:" + p + ",classes=sync:soon"),
                    Contains("workload 'trace': classes:"));
  auto csv = d.write("c.csv", "0,R,0,4096\n");
  CHECK_THROWS_WITH(Workload::parse("trace:csv:" + csv + ",classes=sync:tc"),
                    Contains("a 'csv' trace has none"));
}
