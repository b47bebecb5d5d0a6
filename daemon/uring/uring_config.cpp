#include "daemon/uring/uring_config.hpp"

#include <fmt/format.h>

namespace disksched::uring {

namespace {
constexpr std::string_view known_keys =
    "file, direct, fallback, entries, buffers, buffer-size, poll-us, nowait-reads, nowait-writes, "
    "block-size";
}

void UringConfig::set(std::string_view key, std::string_view value, const KeyParsers& p) {
  auto bad = [&](std::string_view expected) {
    return ConfigError(fmt::format("{}={}: {}", key, value, expected));
  };
  if (key == "file") {
    if (value.empty()) throw bad("expected the path of a regular file or block device");
    file = value;
  } else if (key == "direct") {
    if (!p.parse_bool(value, direct)) throw bad(fmt::format("expected {}", kBooleanHelp));
  } else if (key == "fallback") {
    if (value == "pread")
      fallback = Fallback::Pread;
    else if (value == "none")
      fallback = Fallback::None;
    else
      throw bad("expected pread (serve with pread/pwrite where io_uring is unavailable) or none");
  } else if (key == "entries") {
    std::uint64_t v;
    if (!p.parse_uint64(value, v) || v < 8 || v > 4096 || (v & (v - 1)) != 0)
      throw bad("expected a power of two from 8 to 4096");
    entries = static_cast<std::uint32_t>(v);
  } else if (key == "buffers") {
    std::uint64_t v;
    if (!p.parse_uint64(value, v) || v < 1 || v > 1024) throw bad("expected a count from 1 to 1024");
    buffers = static_cast<std::uint32_t>(v);
  } else if (key == "buffer-size") {
    std::uint64_t v;
    if (!p.parse_size(value, v) || v < 4096 || v > (64u << 20) || v % 4096 != 0)
      throw bad("expected a multiple of 4096 from 4K to 64M");
    buffer_bytes = static_cast<std::uint32_t>(v);
  } else if (key == "nowait-reads") {
    if (!p.parse_bool(value, nowait_reads)) throw bad(fmt::format("expected {}", kBooleanHelp));
  } else if (key == "nowait-writes") {
    if (!p.parse_bool(value, nowait_writes)) throw bad(fmt::format("expected {}", kBooleanHelp));
  } else if (key == "block-size") {
    std::uint64_t v;
    if (!p.parse_size(value, v) || v < 512 || v > 65536 || (v & (v - 1)) != 0)
      throw bad("expected the file's logical block size, a power of two from 512 to 64K "
                "(a 4Kn disk's image: block-size=4096)");
    block_size = static_cast<std::uint32_t>(v);
  } else if (key == "poll-us") {
    std::uint64_t v;
    if (!p.parse_uint64(value, v) || v > 1000) throw bad("expected microseconds from 0 to 1000");
    poll_us = static_cast<std::uint32_t>(v);
  } else {
    throw ConfigError(fmt::format("unknown parameter '{}' (known: {})", key, known_keys));
  }
}

void UringConfig::check() const {
  if (file.empty()) throw ConfigError("the file= parameter is required (a regular file or block device)");
}

std::pair<std::uint32_t, std::uint32_t> UringConfig::block_sizes(bool block_device,
                                                                 std::uint32_t logical,
                                                                 std::uint32_t physical) const {
  if (!block_device) return {block_size, block_size};
  if (block_size != 0 && block_size != logical)
    throw ConfigError(fmt::format(
        "block-size={}: {} is a block device with {}-byte logical blocks, which it reports "
        "itself; leave block-size= out (it is for a regular file)",
        block_size, file, logical));
  return {logical, physical};
}

}  // namespace disksched::uring
