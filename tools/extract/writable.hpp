// The --allow-writes range: bytes as the user gave them, sectors as the probes use them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace disksched::extract {

// Parses "OFFSET:LENGTH" (bytes; K, M, G suffixes = KiB, MiB, GiB). Throws naming
// what was wrong.
std::pair<std::uint64_t, std::uint64_t> parse_byte_range(const std::string& text);

// (offset, length) bytes -> [first, last] sectors; throws unless sector-aligned and
// inside the device.
std::pair<std::uint64_t, std::uint64_t> to_sectors(std::pair<std::uint64_t, std::uint64_t> bytes,
                                                   std::uint32_t sector_bytes, std::uint64_t sectors);

// to_sectors() for a probe target, which keeps the range's bytes in memory to write them
// back: also throws when the range is longer than 64 MiB.
std::pair<std::uint64_t, std::uint64_t> rewritable_sectors(
    std::pair<std::uint64_t, std::uint64_t> bytes, std::uint32_t sector_bytes, std::uint64_t sectors);

// Throws std::logic_error unless sectors [lba, lba + count) lie in `range` ([first, last]).
void check_write_probe(const std::optional<std::pair<std::uint64_t, std::uint64_t>>& range,
                       std::uint64_t lba, std::uint32_t count);

}  // namespace disksched::extract
