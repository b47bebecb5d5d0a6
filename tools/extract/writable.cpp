#include "tools/extract/writable.hpp"

#include <cctype>
#include <stdexcept>

#include <fmt/format.h>

namespace disksched::extract {
namespace {

std::uint64_t parse_size(const std::string& s, const std::string& whole, const char* what) {
  std::size_t i = 0;
  std::uint64_t v = 0;
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0])))
    throw std::invalid_argument(fmt::format("--allow-writes '{}': {} '{}' is not a byte count", whole, what, s));
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
    if (v > (UINT64_MAX - 9) / 10)
      throw std::invalid_argument(fmt::format("--allow-writes '{}': {} is too large", whole, what));
    v = v * 10 + static_cast<std::uint64_t>(s[i++] - '0');
  }
  int shift = 0;
  if (i < s.size()) {
    switch (std::toupper(static_cast<unsigned char>(s[i++]))) {
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      default: i = s.size() + 1;
    }
  }
  if (i != s.size())
    throw std::invalid_argument(fmt::format(
        "--allow-writes '{}': {} '{}' is not a byte count (digits, optional K, M or G)", whole, what, s));
  if (shift && v > (UINT64_MAX >> shift))
    throw std::invalid_argument(fmt::format("--allow-writes '{}': {} is too large", whole, what));
  return v << shift;
}

}  // namespace

std::pair<std::uint64_t, std::uint64_t> parse_byte_range(const std::string& text) {
  const auto colon = text.find(':');
  if (colon == std::string::npos)
    throw std::invalid_argument(fmt::format("--allow-writes '{}': expected OFFSET:LENGTH in bytes", text));
  const std::uint64_t off = parse_size(text.substr(0, colon), text, "offset");
  const std::uint64_t len = parse_size(text.substr(colon + 1), text, "length");
  if (len == 0) throw std::invalid_argument(fmt::format("--allow-writes '{}': length must be > 0", text));
  return {off, len};
}

std::pair<std::uint64_t, std::uint64_t> to_sectors(std::pair<std::uint64_t, std::uint64_t> bytes,
                                                   std::uint32_t sector_bytes, std::uint64_t sectors) {
  const auto [off, len] = bytes;
  if (off % sector_bytes || len % sector_bytes)
    throw std::invalid_argument(fmt::format(
        "--allow-writes {}:{}: offset and length must be multiples of the {}-byte sector", off, len,
        sector_bytes));
  const std::uint64_t first = off / sector_bytes, last = first + len / sector_bytes - 1;
  if (last >= sectors)
    throw std::invalid_argument(fmt::format("--allow-writes {}:{}: the device has only {} bytes", off, len,
                                            sectors * sector_bytes));
  return {first, last};
}

std::pair<std::uint64_t, std::uint64_t> rewritable_sectors(
    std::pair<std::uint64_t, std::uint64_t> bytes, std::uint32_t sector_bytes, std::uint64_t sectors) {
  constexpr std::uint64_t kMaxWritableBytes = 64ull << 20;
  const auto range = to_sectors(bytes, sector_bytes, sectors);
  const std::uint64_t len = (range.second - range.first + 1) * sector_bytes;
  if (len > kMaxWritableBytes)
    throw std::runtime_error(fmt::format(
        "--allow-writes range is {} bytes; at most {} are used (write probes rewrite what they read)",
        len, kMaxWritableBytes));
  return range;
}

void check_write_probe(const std::optional<std::pair<std::uint64_t, std::uint64_t>>& range,
                       std::uint64_t lba, std::uint32_t count) {
  if (!range || lba < range->first || lba + count - 1 > range->second)
    throw std::logic_error(fmt::format("write probe at sector {} outside the allowed range", lba));
}

}  // namespace disksched::extract
