// Safety checks before probing a real device: is it in use (mounted, held by
// device-mapper / md / LVM, active swap)? And, hdparm-style, what do its ATA IDENTIFY
// data say about its caches?
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace disksched::extract {

// Mount points in a /proc/self/mountinfo text whose source device number
// ("major:minor", field 3) is in `devices`.
std::vector<std::string> mounts_of(const std::string& mountinfo, const std::set<std::string>& devices);

// Reasons the block device at `path` is in use; empty when it is free (or not a block
// device). Looks at the device and its partitions.
std::vector<std::string> device_users(const std::string& path);

// The 512-byte ATA IDENTIFY DEVICE data via HDIO_GET_IDENTITY (libata disks), or
// nothing when the device does not answer it.
std::optional<std::vector<std::uint8_t>> ata_identify(const std::string& path);

}  // namespace disksched::extract
