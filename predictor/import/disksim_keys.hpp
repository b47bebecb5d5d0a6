// Reading the keys of a DiskSim parameter block, typed, with errors that name the file,
// the line and what was expected, and a record of every key read so that the rest can
// be reported as not modelled.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "predictor/import/disksim_params.hpp"

namespace disksched::disksim {

// The parameters read so far, across blocks.
class KeysRead {
 public:
  void mark(const Param* p) { read_.insert(p); }
  bool read(const Param* p) const { return read_.count(p) != 0; }
  // "TYPE NAME: Key (FILE:LINE)" for each parameter of `b` (and of the blocks nested in
  // it, which `path` prefixes) that nobody read.
  void unread(const Block& b, const std::string& path, std::vector<std::string>& out) const;

 private:
  std::set<const Param*> read_;
};

class Keys {
 public:
  Keys(const Block& b, KeysRead& read) : b_(b), read_(read) {}
  const Block& block() const { return b_; }
  // "dm_layout_g1 block at FILE:LINE" (or "dm_disk NAME ...").
  std::string where() const;

  // The value of `key`, or nullptr when absent; marks it read.
  const Param* find(std::string_view key) const;
  const Param& need(std::string_view key, std::string_view expected) const;
  double number(std::string_view key, double lo, double hi) const;
  std::optional<double> number_if(std::string_view key, double lo, double hi) const;
  std::int64_t integer(std::string_view key, std::int64_t lo, std::int64_t hi) const;
  std::int64_t integer_or(std::string_view key, std::int64_t lo, std::int64_t hi, std::int64_t def) const;
  std::string word(std::string_view key) const;
  const Block& block(std::string_view key, std::string_view type) const;
  const Value& list(std::string_view key) const;

  [[noreturn]] static void fail(const Param& p, const std::string& expected);
  [[noreturn]] static void fail(const Value& v, const std::string& what, const std::string& expected);

 private:
  const Block& b_;
  KeysRead& read_;
};

// A list item as a number in [lo, hi] (integer when asked); `what` names it in errors.
double list_number(const Value& v, const std::string& what, double lo, double hi, bool integer);

}  // namespace disksched::disksim
