// DiskSim 4.0's parameter files (the libparam syntax), read into a tree.
//
// A file holds block definitions `type Name { Key = value, ... }`, `instantiate [ a, b ]
// as Name`, `topology type name [ ... ]` and `source FILE`. A key is one or more words
// ("Number of data surfaces"); a value is a number, a word, a list `[ v, ... ]` (whose
// items may be ranges `a .. b`), an anonymous block `type { ... }`, a named block or a
// topology. `source FILE` splices FILE in where it stands, at top level or as a value
// (`Model = source x.model`); FILE is found relative to the including file. `#` starts a
// comment. Nothing here knows what a key means: the importers do.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "predictor/device_model.hpp"

namespace disksched::disksim {

// A malformed file: the message starts "FILE:LINE: " and says what was expected.
class ParamError : public ModelError {
 public:
  using ModelError::ModelError;
};

struct Where {
  std::string file;
  int line = 0;
  std::string str() const { return file + ":" + std::to_string(line); }
};

struct Block;
struct Topology;

struct Value {
  enum class Kind { Number, Word, List, Range, Block, Topology };
  Kind kind = Kind::Number;
  Where where;
  double number = 0;      // Number
  bool integer = false;   // Number written as an integer (decimal or 0x hex)
  std::string word;       // Word; Range: the first end
  std::string word_to;    // Range: the last end
  std::vector<Value> items;                 // List
  std::shared_ptr<const Block> block;       // Block
  std::shared_ptr<const Topology> topology; // Topology

  // What the value is, for messages: "the number 3", "the word foo", "a list", ...
  std::string describe() const;
};

struct Param {
  std::string key;  // words joined by one space, as written
  Value value;
  Where where;
};

struct Block {
  std::string type;  // e.g. "dm_layout_g1"
  std::string name;  // empty for an anonymous block (a value)
  std::vector<Param> params;
  Where where;

  // The parameter named `key` (case and spacing ignored), or nullptr.
  const Param* find(std::string_view key) const;
};

struct Topology {
  std::string type, name;
  std::vector<Topology> children;
  Where where;
};

struct Instantiation {
  std::vector<std::string> names;  // a range `a .. b` is kept as the two words
  std::string as;
  Where where;
};

struct ParamFile {
  std::vector<std::shared_ptr<const Block>> blocks;  // top-level definitions, in order
  std::vector<Instantiation> instances;
  std::vector<Topology> topologies;
  std::vector<std::string> files;  // the file read and every file it sourced

  // The top-level block named `name` (case ignored), or nullptr.
  const Block* find_block(std::string_view name) const;
};

// Reads `path` and the files it sources. Throws ParamError.
ParamFile parse_file(const std::string& path);
// Reads `text` as if it were the file `name`; `source` looks for files in `dir` (an
// empty `dir` refuses every `source`). Throws ParamError.
ParamFile parse_text(std::string_view text, const std::string& name, const std::string& dir);

// Key comparison as the importers use it: case-insensitive, runs of blanks as one.
std::string normalize_key(std::string_view key);

}  // namespace disksched::disksim
