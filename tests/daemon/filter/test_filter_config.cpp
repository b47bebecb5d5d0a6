// The filter's keys and the class map: good values taken, bad ones refused with a
// message that names the key and what was expected.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "daemon/filter/class_map.hpp"
#include "daemon/filter/filter_config.hpp"

using namespace disksched;
using Catch::Matchers::Contains;

namespace {
// nbdkit's parsers are not there without nbdkit; these follow its rules.
const KeyParsers& keys = portable_key_parsers();
}  // namespace

TEST_CASE("booleans read as nbdkit's do; a bare duration says how to write it",
          "[filter][config]") {
  FilterConfig c;
  for (const char* v : {"false", "off", "no", "0", "OFF"}) {
    INFO(v);
    REQUIRE(c.set("sched-refine", v, keys));
    REQUIRE_FALSE(c.refine);
    REQUIRE(c.set("sched-refine", "true", keys));
    REQUIRE(c.refine);
  }
  // "5" was 5 ms here and an error in diskemu; now a duration needs its unit everywhere.
  REQUIRE_THROWS_WITH(c.set("sched-delta", "5", keys),
                      Contains("sched-delta=5") && Contains("write 5ms"));
  REQUIRE_THROWS_WITH(c.set("sched-classes", "export:rt=limited:100", keys),
                      Contains("write 100ms"));
}

TEST_CASE("config keys", "[filter][config]") {
  FilterConfig c;
  REQUIRE(c.set("sched", "sstf", keys));
  REQUIRE(c.set("sched-depth", "8", keys));
  REQUIRE(c.set("sched-timescale", "0.25", keys));
  REQUIRE(c.set("sched-delta", "150us", keys));
  REQUIRE(c.set("sched-geometry", "hp97560", keys));
  REQUIRE_FALSE(c.set("size", "64M", keys));  // the plugin's
  REQUIRE(c.depth == 8);
  REQUIRE(c.timescale == 0.25);
  REQUIRE(*c.delta_ms == Approx(0.15));
  REQUIRE(c.set("sched-delta", "auto", keys));
  REQUIRE_FALSE(c.delta_ms);
  REQUIRE(c.refine);
  REQUIRE(c.set("sched-refine", "off", keys));
  REQUIRE_FALSE(c.refine);
  REQUIRE(c.max_exports == 64);
  REQUIRE(c.set("sched-max-exports", "3", keys));
  REQUIRE(c.max_exports == 3);
  REQUIRE(c.set("sched-metrics-interval", "86400s", keys));
  REQUIRE(c.metrics_interval_ms == 86'400'000);
  auto geom = c.validate();
  REQUIRE(geom);
  REQUIRE(geom->rotational());
}

TEST_CASE("bad config names the key", "[filter][config]") {
  FilterConfig c;
  REQUIRE_THROWS_WITH(c.set("sched-depth", "0", keys), Contains("sched-depth=0") && Contains("1 to 1024"));
  REQUIRE_THROWS_WITH(c.set("sched-depth", "x", keys), Contains("sched-depth"));
  REQUIRE_THROWS_WITH(c.set("sched-timescale", "0", keys), Contains("sched-timescale=0"));
  REQUIRE_THROWS_WITH(c.set("sched-delta", "soon", keys), Contains("sched-delta=soon"));
  REQUIRE_THROWS_WITH(c.set("sched-refine", "maybe", keys),
                      Contains("sched-refine=maybe") && Contains("boolean"));
  REQUIRE_THROWS_WITH(c.set("sched-classes", "export:rt=urgent", keys),
                      Contains("sched-classes") && Contains("unknown class 'urgent'"));
  REQUIRE_THROWS_WITH(c.set("sched-frobnicate", "1", keys), Contains("unknown key 'sched-frobnicate'"));
  REQUIRE_THROWS_WITH(c.set("sched-max-exports", "0", keys),
                      Contains("sched-max-exports=0") && Contains("1 to 4096"));
  // A wait this long overflowed the clock and the metrics thread spun.
  REQUIRE_THROWS_WITH(c.set("sched-metrics-interval", "1e10s", keys),
                      Contains("sched-metrics-interval=1e10s") && Contains("86400s"));
  REQUIRE_THROWS_WITH(c.set("sched-metrics-interval", "50ms", keys), Contains("at least 100ms"));
  {
    FilterConfig g;
    g.set("sched-geometry", "hp12345", keys);
    REQUIRE_THROWS_WITH(g.validate(), Contains("sched-geometry=hp12345"));
  }
  {
    FilterConfig s;
    s.set("sched", "nosuch", keys);
    REQUIRE_THROWS_WITH(s.validate(), Contains("sched=nosuch") && Contains("unknown scheduler"));
  }
  {
    FilterConfig r;  // rotation-aware without a geometry
    r.set("sched", "asatf:w=30", keys);
    REQUIRE_THROWS_WITH(r.validate(), Contains("sched=asatf:w=30") && Contains("sched-geometry="));
  }
}

TEST_CASE("geometry must cover the export", "[filter][config]") {
  FilterConfig c;
  c.set("sched-geometry", "hp97560", keys);
  auto m = c.validate();
  REQUIRE(c.model_for_export(m->capacity_bytes())->capacity_bytes() == m->capacity_bytes());
  REQUIRE_THROWS_WITH(c.model_for_export(m->capacity_bytes() + 512),
                      Contains("sched-geometry=hp97560") && Contains("export"));
  FilterConfig lbn;
  REQUIRE(lbn.model_for_export(1000)->capacity_bytes() == 1024);  // whole sectors
  REQUIRE(lbn.model_for_export(1000)->kind() == "lbn");
}

TEST_CASE("class map: built-in rules", "[filter][classes]") {
  const ClassMap m;
  REQUIRE(m.for_request(Op::Read, 0).cls == IoClass::TimeCritical);
  REQUIRE(m.for_request(Op::Write, 0).cls == IoClass::TimeNoncritical);
  REQUIRE(m.for_request(Op::Write, kFlagFua).cls == IoClass::TimeCritical);
  REQUIRE(m.for_request(Op::Trim, 0).cls == IoClass::TimeNoncritical);
  REQUIRE(m.for_connection("critical", IoprioClass::None)->cls == IoClass::TimeCritical);
  REQUIRE(*m.for_connection("limited", IoprioClass::None) ==
          ClassAssignment{IoClass::TimeLimited, 100.0});
  REQUIRE(m.for_connection("", IoprioClass::RealTime)->cls == IoClass::TimeCritical);
  REQUIRE(m.for_connection("", IoprioClass::Idle)->cls == IoClass::TimeNoncritical);
  REQUIRE_FALSE(m.for_connection("", IoprioClass::BestEffort));
  REQUIRE_FALSE(m.for_connection("", IoprioClass::None));
  REQUIRE_FALSE(m.for_connection("disk1", IoprioClass::None));
  REQUIRE(m.is_class_export("noncritical"));
  REQUIRE_FALSE(m.is_class_export(""));
  // Export beats ioprio.
  REQUIRE(m.for_connection("noncritical", IoprioClass::RealTime)->cls == IoClass::TimeNoncritical);
}

TEST_CASE("class map: rules replace the built-in ones", "[filter][classes]") {
  const ClassMap m = ClassMap::parse(
      "export:db=critical, op:write=limited:250ms,ioprio:be=limited:2s,fua=noncritical");
  REQUIRE(m.for_connection("db", IoprioClass::None)->cls == IoClass::TimeCritical);
  REQUIRE(*m.for_connection("", IoprioClass::None) == ClassAssignment{IoClass::TimeLimited, 2000.0});
  REQUIRE(m.for_request(Op::Write, 0) == ClassAssignment{IoClass::TimeLimited, 250.0});
  REQUIRE(m.for_request(Op::Write, kFlagFua).cls == IoClass::TimeNoncritical);
  REQUIRE_THAT(m.describe(), Contains("export:db=critical") && Contains("op:write=limited:250ms"));
  // What describe() prints parses back to the same map.
  const ClassMap again = ClassMap::parse(m.describe());
  REQUIRE(again.describe() == m.describe());
}

TEST_CASE("class map: bad rules", "[filter][classes]") {
  REQUIRE_THROWS_WITH(ClassMap::parse("export:a"), Contains("no '='"));
  REQUIRE_THROWS_WITH(ClassMap::parse("op:flush=critical"), Contains("unknown op 'flush'"));
  REQUIRE_THROWS_WITH(ClassMap::parse("ioprio:rr=critical"), Contains("unknown ioprio class 'rr'"));
  REQUIRE_THROWS_WITH(ClassMap::parse("read=critical"), Contains("unknown source 'read'"));
  REQUIRE_THROWS_WITH(ClassMap::parse("fua=limited"), Contains("needs a time limit"));
  REQUIRE_THROWS_WITH(ClassMap::parse("fua=limited:0ms"), Contains("not a duration > 0"));
}

TEST_CASE("sched-save-dir must be an existing directory", "[filter][config]") {
  FilterConfig c;
  REQUIRE(c.save_dir.empty());  // save is off unless asked for
  REQUIRE_THROWS_WITH(c.set("sched-save-dir", "/nonexistent/dir", keys),
                      Contains("sched-save-dir=/nonexistent/dir") &&
                          Contains("an existing directory"));
  REQUIRE_THROWS_WITH(c.set("sched-save-dir", "/dev/null", keys), Contains("an existing directory"));
  REQUIRE(c.set("sched-save-dir", "/tmp", keys));
  REQUIRE(c.save_dir == "/tmp");
}

TEST_CASE("sched-log may not be the plugin's file=", "[filter][config]") {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("disksched-samefile-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir / "sub");
  const std::string disk = (dir / "disk.img").string();
  FilterConfig c;
  c.log_path = disk;
  c.plugin_files = {(dir / "sub" / ".." / "disk.img").string()};  // not there yet: by path
  REQUIRE_THROWS_WITH(c.validate(), Contains("sched-log=" + disk) && Contains("file="));
  std::ofstream(disk).put('x');
  std::filesystem::create_hard_link(disk, dir / "link.img");
  c.plugin_files = {(dir / "link.img").string()};  // there: by inode
  REQUIRE_THROWS_WITH(c.validate(), Contains("the latency log would write"));
  c.plugin_files = {(dir / "other.img").string()};
  REQUIRE_NOTHROW(c.validate());
  std::filesystem::remove_all(dir);
}

TEST_CASE("sched-background: the named exports are background, under qos at depth 32 by default",
          "[filter][config]") {
  {
    FilterConfig c;
    REQUIRE(c.set("sched-background", "scrub:backup", keys));
    REQUIRE(c.sched == "qos");
    REQUIRE(c.depth == FilterConfig::kBackgroundDepth);
    const auto scrub = c.classes.for_connection("scrub", IoprioClass::None);
    REQUIRE(scrub);
    REQUIRE(scrub->cls == IoClass::TimeNoncritical);
    REQUIRE(c.classes.for_connection("backup", IoprioClass::None)->cls == IoClass::TimeNoncritical);
    REQUIRE(c.classes.is_class_export("scrub"));
    // Everyone else keeps GP's rules: reads are waited for.
    REQUIRE_FALSE(c.classes.for_connection("", IoprioClass::None));
    REQUIRE(c.classes.for_request(Op::Read, 0).cls == IoClass::TimeCritical);
    REQUIRE(c.validate() == nullptr);  // qos builds without a geometry
  }
  {
    // Given keys win, in either order; sched-classes= given after keeps the background rule.
    FilterConfig c;
    REQUIRE(c.set("sched", "priority", keys));
    REQUIRE(c.set("sched-background", "scrub", keys));
    REQUIRE(c.set("sched-depth", "4", keys));
    REQUIRE(c.set("sched-classes", "op:read=limited:80ms", keys));
    REQUIRE(c.sched == "priority");
    REQUIRE(c.depth == 4);
    REQUIRE(c.classes.for_connection("scrub", IoprioClass::None)->cls == IoClass::TimeNoncritical);
    REQUIRE(c.classes.for_request(Op::Read, 0).cls == IoClass::TimeLimited);
  }
  FilterConfig c;
  REQUIRE_THROWS_WITH(c.set("sched-background", "", keys), Contains("sched-background="));
  REQUIRE_THROWS_WITH(c.set("sched-background", "a,b", keys),
                      Contains("sched-background=a,b") && Contains("separated by ':'"));
}
