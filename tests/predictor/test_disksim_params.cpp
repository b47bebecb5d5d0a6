// DiskSim 4.0 parameter files (libparam syntax): blocks, nesting, lists, includes, errors.
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include <sys/stat.h>

#include <catch2/catch.hpp>

#include "predictor/import/disksim_params.hpp"

using namespace disksched::disksim;

namespace {

std::string error_of(const std::string& text, const std::string& dir = "") {
  try {
    parse_text(text, "t.parv", dir);
  } catch (const ParamError& e) {
    return e.what();
  }
  return "";
}

// A fresh directory of files for the include tests.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string t = (std::filesystem::temp_directory_path() / "disksim-params-XXXXXX").string();
    path = mkdtemp(t.data());
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  void write(const std::string& name, const std::string& text) const {
    std::filesystem::create_directories((path / name).parent_path());
    std::ofstream(path / name) << text;
  }
};

}  // namespace

TEST_CASE("blocks hold keys of several words, numbers and words", "[disksim]") {
  const ParamFile f = parse_text(R"(# a comment
disksim_bus BUS1 {
type = 1,
Read block transfer time = 0.17010,   # trailing comment
Segment size (in blks) = 256,
Access time type = trackSwitchPlusRotation,
Offset = -3, Mask = 0x1F, Small = 1.5e-3
}
)", "t.parv", "");
  REQUIRE(f.blocks.size() == 1);
  const Block& b = *f.blocks[0];
  CHECK(b.type == "disksim_bus");
  CHECK(b.name == "BUS1");
  CHECK(b.where.line == 2);
  REQUIRE(b.params.size() == 7);
  CHECK(b.params[1].key == "Read block transfer time");
  CHECK(b.params[1].value.kind == Value::Kind::Number);
  CHECK(b.params[1].value.number == 0.17010);
  CHECK_FALSE(b.params[1].value.integer);
  CHECK(b.params[1].where.line == 4);
  CHECK(b.find("segment  SIZE (in blks)")->value.integer);
  CHECK(b.find("Access time type")->value.word == "trackSwitchPlusRotation");
  CHECK(b.find("Offset")->value.number == -3);
  CHECK(b.find("Mask")->value.number == 31);
  CHECK(b.find("Small")->value.number == 1.5e-3);
  CHECK(b.find("no such key") == nullptr);
  CHECK(f.find_block("bus1") == &b);
}

TEST_CASE("blocks nest as values; lists hold numbers, words, blocks and ranges", "[disksim]") {
  const ParamFile f = parse_text(R"(
dm_disk D {
  Layout Model = dm_layout_g1 {
    Zones = [
      dm_layout_g1_zone { First cylinder number = 0, slips = [ 468, 526 ], defects = [] },
      dm_layout_g1_zone { First cylinder number = 7, slips = [], defects = [ 1, 2 ] },
    ]
  },
  Sizes = [ exponential, 0.0, 8.0 ],
  devices = [ disk0 .. disk3 ],
  Inner = disksim_ioqueue Named { Policy = 1 }
}
)", "t.parv", "");
  const Block& d = *f.blocks.at(0);
  const Value& layout = d.find("Layout Model")->value;
  REQUIRE(layout.kind == Value::Kind::Block);
  CHECK(layout.block->type == "dm_layout_g1");
  CHECK(layout.block->name.empty());
  const Value& zones = layout.block->find("Zones")->value;
  REQUIRE(zones.kind == Value::Kind::List);
  REQUIRE(zones.items.size() == 2);  // the trailing comma adds nothing
  const Block& z0 = *zones.items[0].block;
  CHECK(z0.find("slips")->value.items.size() == 2);
  CHECK(z0.find("slips")->value.items[1].number == 526);
  CHECK(z0.find("defects")->value.items.empty());
  CHECK(zones.items[1].block->find("First cylinder number")->value.number == 7);
  const Value& sizes = d.find("Sizes")->value;
  CHECK(sizes.items[0].word == "exponential");
  CHECK(sizes.items[2].number == 8.0);
  const Value& devices = d.find("devices")->value;
  REQUIRE(devices.items.size() == 1);
  CHECK(devices.items[0].kind == Value::Kind::Range);
  CHECK(devices.items[0].word == "disk0");
  CHECK(devices.items[0].word_to == "disk3");
  const Value& inner = d.find("Inner")->value;
  CHECK(inner.block->name == "Named");
  CHECK(inner.block->find("Policy")->value.number == 1);
}

TEST_CASE("instantiate, topology and a list of keys given one value", "[disksim]") {
  const ParamFile f = parse_text(R"(
disksim_disk DISK { [ Alpha, Beta ] = 0.5 }
instantiate [ disk0, disk1 ] as DISK
topology disksim_iodriver driver0 [
   disksim_bus bus0 [ disksim_disk disk0 [], disksim_disk disk1 [] ]
]
)", "t.parv", "");
  const Block& d = *f.blocks.at(0);
  CHECK(d.find("Alpha")->value.number == 0.5);
  CHECK(d.find("beta")->value.number == 0.5);
  REQUIRE(f.instances.size() == 1);
  CHECK(f.instances[0].names == std::vector<std::string>{"disk0", "disk1"});
  CHECK(f.instances[0].as == "DISK");
  REQUIRE(f.topologies.size() == 1);
  const Topology& t = f.topologies[0];
  CHECK(t.type == "disksim_iodriver");
  CHECK(t.name == "driver0");
  REQUIRE(t.children.size() == 1);
  CHECK(t.children[0].children.size() == 2);
  CHECK(t.children[0].children[1].name == "disk1");
}

TEST_CASE("source includes files relative to the including file, at top level and as a value",
          "[disksim]") {
  TempDir d;
  d.write("top.parv", "source specs/disk.diskspecs\ninstantiate [ disk0 ] as DISK\n");
  d.write("specs/disk.diskspecs", "disksim_disk DISK {\n  Model = source disk.model,\n  Max queue length = 1\n}\n");
  d.write("specs/disk.model", "\n\ndm_disk M {\n  Number of cylinders = 2051\n}\n");
  const ParamFile f = parse_file((d.path / "top.parv").string());
  const Block* disk = f.find_block("DISK");
  REQUIRE(disk != nullptr);
  const Value& model = disk->find("Model")->value;
  REQUIRE(model.kind == Value::Kind::Block);
  CHECK(model.block->name == "M");
  CHECK(model.block->find("Number of cylinders")->value.number == 2051);
  // Positions name the file each token came from.
  CHECK(model.block->where.file == (d.path / "specs/disk.model").string());
  CHECK(model.block->where.line == 3);
  CHECK(disk->find("Max queue length")->where.line == 3);
  CHECK(f.files.size() == 3);
  CHECK(f.instances.at(0).as == "DISK");
}

TEST_CASE("an error names file:line and what was expected", "[disksim]") {
  const std::pair<std::string, std::string> cases[] = {
      {"disksim_bus B {\n type = 1\n Other = 2 }",
       "t.parv:3: expected ',' or '}' after the value of 'type', found the word 'Other'"},
      {"disksim_bus B {\n type 1 }", "t.parv:2: expected '=' after the key 'type', found the number 1"},
      {"disksim_bus B {\n type = }",
       "t.parv:2: expected a value (a number, a word, '[ list ]', 'type { block }' or 'source FILE'), "
       "found '}'"},
      {"disksim_bus B {\n x = [ 1, 2\n", "t.parv:3: expected ',' or ']' in a list, found the end of the input"},
      {"disksim_bus {\n}", "t.parv:1: expected a name after the block type 'disksim_bus', found '{'"},
      {"= 3",
       "t.parv:1: expected a block definition 'type Name { ... }', 'source FILE', "
       "'instantiate [ ... ] as Name' or 'topology ...', found '='"},
      {"instantiate [ a ] B", "t.parv:1: expected 'as' after 'instantiate [ ... ]', found the word 'B'"},
      {"b B { x = 1; }", "t.parv:1: expected ',' or '}' after the value of 'x', found ';'"},
  };
  for (const auto& [text, message] : cases) CHECK(error_of(text) == message);
  CHECK(error_of("source x.model") == "t.parv:1: 'source x.model': this input cannot include files");
  CHECK(error_of("b B { x = " + std::string(200, '[')).find("nested deeper than 64 levels") != std::string::npos);
}

TEST_CASE("errors inside a sourced file name that file; missing and looping includes are refused",
          "[disksim]") {
  TempDir d;
  d.write("a.parv", "b B {\n  M = source m.model\n}\n");
  d.write("m.model", "dm_disk M {\n  Good = 1,\n  Bad\n}\n");
  try {
    parse_file((d.path / "a.parv").string());
    FAIL("no error");
  } catch (const ParamError& e) {
    CHECK(std::string(e.what()) == (d.path / "m.model").string() +
                                       ":4: expected '=' after the key 'Bad', found '}'");
  }
  d.write("missing.parv", "\nsource nothere.diskspecs\n");
  try {
    parse_file((d.path / "missing.parv").string());
    FAIL("no error");
  } catch (const ParamError& e) {
    CHECK_THAT(e.what(), Catch::StartsWith((d.path / "missing.parv").string() +
                                           ":2: 'source nothere.diskspecs': cannot read " +
                                           (d.path / "nothere.diskspecs").string()));
  }
  d.write("loop.parv", "source loop.parv\n");
  try {
    parse_file((d.path / "loop.parv").string());
    FAIL("no error");
  } catch (const ParamError& e) {
    CHECK(std::string(e.what()) ==
          (d.path / "loop.parv").string() + ":1: 'source loop.parv': " + (d.path / "loop.parv").string() +
              " is already being read (it sources itself, through " + (d.path / "loop.parv").string() +
              "): expected files that do not source one another in a cycle");
  }
}

TEST_CASE("a cycle of sourced files, a FIFO, a device, a directory and a huge file are refused "
          "by name and line",
          "[disksim]") {
  TempDir d;
  // a.parv -> b.diskspecs -> c.model -> a.parv (named another way).
  d.write("a.parv", "source b.diskspecs\n");
  d.write("b.diskspecs", "# b\nsource ./c.model\n");
  d.write("c.model", "\n\nsource ./a.parv\n");
  const std::string a = (d.path / "a.parv").string();
  try {
    parse_file(a);
    FAIL("no error");
  } catch (const ParamError& e) {
    CHECK_THAT(e.what(), Catch::StartsWith(d.path.string() + "/./c.model:3: 'source ./a.parv': ") &&
                             Catch::Contains("is already being read (it sources itself, through " + a + ")"));
  }
  // The same file sourced twice in a row is no cycle.
  d.write("twice.parv", "source x.model\nsource x.model\n");
  d.write("x.model", "# nothing\n");
  CHECK(parse_file((d.path / "twice.parv").string()).files.size() == 3);
  const auto error_of_source = [&](const std::string& target) {
    d.write("s.parv", "b B { x = 1 }\nsource " + target + "\n");
    try {
      parse_file((d.path / "s.parv").string());
    } catch (const ParamError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string at = (d.path / "s.parv").string() + ":2: ";
  CHECK(error_of_source("/dev/zero") ==
        at + "'source /dev/zero': cannot read /dev/zero: it is not a regular file (a FIFO, a "
             "socket or a device): expected a parameter file");
  REQUIRE(::mkfifo((d.path / "fifo").c_str(), 0600) == 0);
  CHECK_THAT(error_of_source("fifo"), Catch::StartsWith(at + "'source fifo': cannot read ") &&
                                          Catch::EndsWith("it is not a regular file (a FIFO, a socket "
                                                          "or a device): expected a parameter file"));
  std::filesystem::create_directory(d.path / "dir");
  CHECK_THAT(error_of_source("dir"), Catch::EndsWith("it is a directory, not a parameter file"));
  {
    std::ofstream(d.path / "huge.model") << "# sparse\n";
    std::filesystem::resize_file(d.path / "huge.model", (std::uintmax_t{64} << 20) + 1);
  }
  CHECK_THAT(error_of_source("huge.model"),
             Catch::EndsWith("it holds 67108865 bytes: expected a parameter file of at most 64 MiB"));
  // The top-level file too.
  try {
    parse_file((d.path / "fifo").string());
    FAIL("no error");
  } catch (const ParamError& e) {
    CHECK_THAT(e.what(), Catch::StartsWith((d.path / "fifo").string() + ": cannot read the file: it is "
                                                                        "not a regular file"));
  }
}

TEST_CASE("a block defined a second time is refused at its definition, naming the first",
          "[disksim]") {
  CHECK(error_of("disksim_disk D { a = 1 }\n\ndisksim_disk D { a = 2 }\n") ==
        "t.parv:3: block D is defined a second time (first at t.parv:1): expected each name "
        "defined once (DiskSim 4.0 would ignore this definition and keep the first)");
  // Another type of the same name is the same name to DiskSim's type table.
  CHECK_THAT(error_of("disksim_disk D { a = 1 }\ndisksim_bus D { b = 1 }\n"),
             Catch::StartsWith("t.parv:2: block D is defined a second time (first at t.parv:1)"));
  CHECK(error_of("disksim_disk D { a = 1 }\ndisksim_disk E { a = 1 }\n").empty());
}

TEST_CASE("the four validation disks' files parse", "[disksim]") {
  for (const char* name : {"hp_c2247a", "cheetah9LP", "ibm18es", "dec_rz26"}) {
    const ParamFile f = parse_file(std::string(DISKSIM_VALID_DIR) + "/" + name + ".parv");
    CHECK(f.files.size() == 3);  // .parv, .diskspecs, .model
    REQUIRE(f.instances.size() == 6);
    const Block* disk = f.find_block(f.instances[3].as);
    REQUIRE(disk != nullptr);
    CHECK(disk->type == "disksim_disk");
    const Value& model = disk->find("Model")->value;
    REQUIRE(model.kind == Value::Kind::Block);
    CHECK(model.block->type == "dm_disk");
  }
}
