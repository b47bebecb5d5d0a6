// Asks a SCSI device (an sg node, or a disk that accepts SG_IO) what it says about
// itself through libsgutils2: INQUIRY, VPD B1h, READ CAPACITY(16), MODE SENSE pages
// 03h, 04h, 08h and 0Ch, Translate Address (SEND/RECEIVE DIAGNOSTIC page 40h) and
// READ DEFECT DATA(10). A command the device refuses is recorded as "not supported
// by this device" and the run goes on.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/extract/scsi_decode.hpp"

namespace disksched::extract::scsi {

struct Interrogation {
  std::string device;
  std::optional<Inquiry> inquiry;
  std::optional<BlockCharacteristics> characteristics;
  std::optional<Capacity> capacity;
  std::optional<FormatDevicePage> format_device;
  std::optional<RigidGeometryPage> geometry;
  std::optional<NotchPage> notch;
  std::optional<CachingPage> caching;
  std::optional<DefectList> defects;
  bool translate_supported = false;
  // "COMMAND: ok" / "COMMAND: not supported by this device" / "COMMAND: error ...".
  std::vector<std::string> log;

  std::optional<int> nominal_rpm() const;
  nlohmann::json to_json() const;
};

// How a libsgutils2 status reads to a person: 0 "ok", ILLEGAL REQUEST / INVALID OP
// "not supported by this device", else the sense category.
std::string describe_status(int status);

class ScsiDevice {
 public:
  // Throws when the device cannot be opened at all.
  explicit ScsiDevice(const std::string& path);
  ~ScsiDevice();
  ScsiDevice(const ScsiDevice&) = delete;
  ScsiDevice& operator=(const ScsiDevice&) = delete;

  Interrogation interrogate();
  // LBA -> physical address by Translate Address; nothing when unsupported.
  std::optional<PhysicalAddress> translate(std::uint64_t lba);

 private:
  std::string path_;
  int fd_ = -1;
  bool translate_ok_ = true;
};

}  // namespace disksched::extract::scsi
