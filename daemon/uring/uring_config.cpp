#include "daemon/uring/uring_config.hpp"

#include <fmt/format.h>

namespace disksched::uring {

namespace {

constexpr auto* bad = &bad_value<ConfigError>;

// The keys' setters, one a key (the table below says which).
using Config = UringConfig;
using Key = std::string_view;
using Value = std::string_view;

void set_file(Config& c, Key key, Value value, const KeyParsers&) {
  if (value.empty()) throw bad(key, value, "expected the path of a regular file or block device");
  c.file = value;
}

// direct=, nowait-reads=, nowait-writes=: a boolean read by nbdkit's parser.
template <bool UringConfig::*Field>
void set_bool(Config& c, Key key, Value value, const KeyParsers& p) {
  if (!p.parse_bool(value, c.*Field)) throw bad(key, value, fmt::format("expected {}", kBooleanHelp));
}

void set_fallback(Config& c, Key key, Value value, const KeyParsers&) {
  if (value == "pread")
    c.fallback = Fallback::Pread;
  else if (value == "none")
    c.fallback = Fallback::None;
  else
    throw bad(key, value, "expected pread (serve with pread/pwrite where io_uring is unavailable) or none");
}

void set_entries(Config& c, Key key, Value value, const KeyParsers& p) {
  std::uint64_t v;
  if (!p.parse_uint64(value, v) || v < 8 || v > 4096 || (v & (v - 1)) != 0)
    throw bad(key, value, "expected a power of two from 8 to 4096");
  c.entries = static_cast<std::uint32_t>(v);
}

void set_buffers(Config& c, Key key, Value value, const KeyParsers& p) {
  std::uint64_t v;
  if (!p.parse_uint64(value, v) || v < 1 || v > 1024)
    throw bad(key, value, "expected a count from 1 to 1024");
  c.buffers = static_cast<std::uint32_t>(v);
}

void set_buffer_size(Config& c, Key key, Value value, const KeyParsers& p) {
  std::uint64_t v;
  if (!p.parse_size(value, v) || v < 4096 || v > (64u << 20) || v % 4096 != 0)
    throw bad(key, value, "expected a multiple of 4096 from 4K to 64M");
  c.buffer_bytes = static_cast<std::uint32_t>(v);
}

void set_block_size(Config& c, Key key, Value value, const KeyParsers& p) {
  std::uint64_t v;
  if (!p.parse_size(value, v) || v < 512 || v > 65536 || (v & (v - 1)) != 0)
    throw bad(key, value, "expected the file's logical block size, a power of two from 512 to 64K "
                          "(a 4Kn disk's image: block-size=4096)");
  c.block_size = static_cast<std::uint32_t>(v);
}

void set_poll_us(Config& c, Key key, Value value, const KeyParsers& p) {
  std::uint64_t v;
  if (!p.parse_uint64(value, v) || v > 1000) throw bad(key, value, "expected microseconds from 0 to 1000");
  c.poll_us = static_cast<std::uint32_t>(v);
}

// One row a key: name, value, help (config_help and the man page's PARAMETERS), setter.
// clang-format off
constexpr KeyRow<UringConfig> kKeys[] = {
    {{"file", "PATH", "(required) The regular file or block device to serve."}, set_file},
    {{"direct", "BOOL", "O_DIRECT through aligned, registered bounce buffers (default false)."}, set_bool<&UringConfig::direct>},
    {{"fallback", "pread|none", "Where io_uring is unavailable, serve with pread/pwrite instead of failing to start (default none)."}, set_fallback},
    {{"entries", "N", "io_uring submission queue entries, a power of two (default 128)."}, set_entries},
    {{"buffers", "N", "Bounce buffers for direct=true (default 64)."}, set_buffers},
    {{"buffer-size", "SIZE", "Bytes per bounce buffer, a multiple of 4K (default 256K)."}, set_buffer_size},
    {{"poll-us", "N", "The ring thread polls N us for more work before sleeping (default 20)."}, set_poll_us},
    {{"nowait-reads", "BOOL", "Buffered reads try preadv2(RWF_NOWAIT) first, so page-cache hits skip the ring thread (default true)."}, set_bool<&UringConfig::nowait_reads>},
    {{"nowait-writes", "BOOL", "Buffered writes likewise with pwritev2(RWF_NOWAIT); where the file system cannot (ext4), synchronously in the worker, as io_uring's own worker thread would (default true)."}, set_bool<&UringConfig::nowait_writes>},
    {{"block-size", "SIZE", "A regular file's logical block size, advertised to clients (a 4Kn disk's image: 4096); a block device advertises its own."}, set_block_size},
};
// clang-format on

}  // namespace

std::span<const KeyRow<UringConfig>> uring_keys() { return kKeys; }

const char* uring_config_help_text() {
  static const std::string text = key_help(key_docs(uring_keys()));
  return text.c_str();
}

void UringConfig::set(std::string_view key, std::string_view value, const KeyParsers& p) {
  const KeyRow<UringConfig>* row = find_key(uring_keys(), key);
  if (row == nullptr)
    throw ConfigError(fmt::format("unknown parameter '{}' (known: {})", key,
                                  key_names(key_docs(uring_keys()))));
  row->set(*this, key, value, p);
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
