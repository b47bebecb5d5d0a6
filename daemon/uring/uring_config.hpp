// The uring plugin's parameters, parsed and checked without nbdkit (unit tested).
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "common/key_parsers.hpp"
#include "common/key_table.hpp"

namespace disksched::uring {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Fallback { None, Pread };

struct UringConfig {
  std::string file;                        // file=: regular file or block device (required)
  bool direct = false;                     // direct=: O_DIRECT through bounce buffers
  Fallback fallback = Fallback::None;      // fallback=: what to do without io_uring
  std::uint32_t entries = 128;             // entries=: submission queue size
  std::uint32_t buffers = 64;              // buffers=: bounce buffers for direct=true
  std::uint32_t buffer_bytes = 256 * 1024; // buffer-size=: bytes per bounce buffer
  std::uint32_t poll_us = 20;              // poll-us=: ring thread polls before sleeping
  bool nowait_reads = true;                // nowait-reads=: page-cache hits in the worker
  bool nowait_writes = true;               // nowait-writes=: likewise for writes
  std::uint32_t block_size = 0;            // block-size=: a file's logical block (0: none)

  // Booleans, sizes and counts read by `p`: nbdkit's parsers in the plugin (so the
  // syntax is nbdkit's own), portable_key_parsers() in tests. Throws ConfigError naming
  // key and value.
  void set(std::string_view key, std::string_view value, const KeyParsers& p);
  void check() const;
  // The logical and physical block sizes to advertise for `file`: a block device's own
  // (block-size= must then be absent or agree), block-size= for a file. Throws
  // ConfigError when block-size= contradicts the device.
  std::pair<std::uint32_t, std::uint32_t> block_sizes(bool block_device, std::uint32_t logical,
                                                      std::uint32_t physical) const;
};

// The plugin's keys, one row a key (name, value, help, setter).
std::span<const KeyRow<UringConfig>> uring_keys();
// The text of config_help, made from uring_keys().
const char* uring_config_help_text();

}  // namespace disksched::uring
