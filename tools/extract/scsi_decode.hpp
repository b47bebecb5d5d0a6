// Pure decoders for the SCSI and ATA answers geometry extraction asks for (reference
// notes §2.2): bytes in, struct out, every field bound-checked against the lengths
// the device itself reports. No I/O here; scsi_interrogate.cpp does the asking.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace disksched::extract::scsi {

using Bytes = std::span<const std::uint8_t>;

// Thrown when a response is too short or malformed; says which field and why.
class DecodeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Inquiry {
  int peripheral_type = 0;  // 0 = direct-access block device
  std::string vendor, product, revision;
};
Inquiry decode_inquiry(Bytes b);

// VPD page B1h, Block Device Characteristics.
struct BlockCharacteristics {
  std::optional<int> rpm;   // nominal; absent when not reported
  bool non_rotating = false;
  int form_factor = 0;      // 0 unknown, 1 = 5.25", 2 = 3.5", 3 = 2.5", 4 = 1.8", 5 = < 1.8"
};
BlockCharacteristics decode_vpd_b1(Bytes b);

struct Capacity {
  std::uint64_t last_lba = 0;
  std::uint32_t block_bytes = 0;
  int logical_per_physical_exponent = 0;  // physical block = block << exponent
  std::uint32_t lowest_aligned_lba = 0;
};
Capacity decode_read_capacity16(Bytes b);

// One mode page out of a MODE SENSE response.
struct ModePage {
  int code = 0;
  int subpage = 0;
  bool ps = false;
  std::vector<std::uint8_t> bytes;  // the whole page, header included
};
// All pages of a MODE SENSE(10) (`ten` = true) or MODE SENSE(6) response, after the
// header and block descriptors.
std::vector<ModePage> decode_mode_sense(Bytes b, bool ten = true);

struct FormatDevicePage {  // 03h
  int tracks_per_zone = 0, alt_sectors_per_zone = 0, alt_tracks_per_zone = 0,
      alt_tracks_per_lu = 0;
  int sectors_per_track = 0, bytes_per_sector = 0, interleave = 0;
  int track_skew = 0, cylinder_skew = 0;
  bool ssec = false, hsec = false, rmb = false, surf = false;
};
FormatDevicePage decode_format_device(const ModePage& p);

struct RigidGeometryPage {  // 04h
  std::uint32_t cylinders = 0;
  int heads = 0;
  std::uint32_t write_precomp_cylinder = 0, reduced_current_cylinder = 0;
  int step_rate = 0;
  std::uint32_t landing_zone_cylinder = 0;
  int rotational_offset = 0;
  std::optional<int> rpm;  // absent in SCSI-1 pages of length 12h
};
RigidGeometryPage decode_rigid_geometry(const ModePage& p);

struct NotchPage {  // 0Ch
  bool notched = false, logical_or_physical = false;
  int max_notches = 0, active_notch = 0;
  std::uint32_t starting_boundary = 0, ending_boundary = 0;
  std::uint64_t pages_notched = 0;
};
NotchPage decode_notch(const ModePage& p);

struct CachingPage {  // 08h
  bool write_cache = false;       // WCE
  bool read_cache_disabled = false;  // RCD
  bool read_ahead_disabled = false;  // DRA
  int prefetch_transfer_length = 0;  // DPTL
};
CachingPage decode_caching(const ModePage& p);

struct PhysicalAddress {
  std::uint32_t cylinder = 0;
  int head = 0;
  std::uint32_t sector = 0;  // 0xFFFFFFFF = the whole track
};

// Translate Address page 40h as sent by SEND DIAGNOSTIC: LBA (short or long block
// format) to physical sector format.
std::vector<std::uint8_t> translate_lba_request(std::uint64_t lba);
struct Translation {
  int supplied_format = 0, translated_format = 0;
  bool reserved_area = false, alternate_sector = false, alternate_track = false;
  std::vector<PhysicalAddress> addresses;  // physical sector format only
};
Translation decode_translate_result(Bytes b);

// READ DEFECT DATA(10) in physical sector format (101b).
struct DefectList {
  bool plist_valid = false, glist_valid = false;
  int format = 0;
  std::vector<PhysicalAddress> defects;
};
DefectList decode_defect_list10(Bytes b);

// ATA IDENTIFY DEVICE (256 little-endian words).
struct AtaIdentity {
  std::string model, serial;
  std::uint64_t lba48_sectors = 0;
  std::uint32_t logical_bytes = 512, physical_bytes = 512;
  std::optional<int> rpm;
  bool non_rotating = false;
  int form_factor = 0;
  bool write_cache_supported = false, write_cache_enabled = false;
  bool look_ahead_supported = false, look_ahead_enabled = false;
};
AtaIdentity decode_ata_identify(Bytes b);

}  // namespace disksched::extract::scsi
