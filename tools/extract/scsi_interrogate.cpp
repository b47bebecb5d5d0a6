#include "tools/extract/scsi_interrogate.hpp"

#include <scsi/sg_cmds_basic.h>
#include <scsi/sg_cmds_extra.h>
#include <scsi/sg_lib.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace disksched::extract::scsi {
namespace {

constexpr int kBuf = 4096;

}  // namespace

std::string describe_status(int status) {
  if (status == 0) return "ok";
  if (status == SG_LIB_CAT_ILLEGAL_REQ || status == SG_LIB_CAT_INVALID_OP ||
      status == SG_LIB_CAT_ILLEGAL_REQ_WITH_INFO)
    return "not supported by this device";
  if (status < 0) return fmt::format("error: {}", std::strerror(-status));
  char buf[128];
  sg_get_category_sense_str(status, sizeof buf, buf, 0);
  return fmt::format("error: {}", buf);
}

std::optional<int> Interrogation::nominal_rpm() const {
  if (characteristics && characteristics->rpm) return characteristics->rpm;
  if (geometry && geometry->rpm) return geometry->rpm;
  return std::nullopt;
}

nlohmann::json Interrogation::to_json() const {
  nlohmann::json j;
  j["device"] = device;
  if (inquiry) j["inquiry"] = {{"vendor", inquiry->vendor}, {"product", inquiry->product},
                               {"revision", inquiry->revision}, {"peripheral_type", inquiry->peripheral_type}};
  if (characteristics) {
    j["vpd_b1"] = {{"non_rotating", characteristics->non_rotating}, {"form_factor", characteristics->form_factor}};
    if (characteristics->rpm) j["vpd_b1"]["rpm"] = *characteristics->rpm;
  }
  if (capacity) j["capacity"] = {{"last_lba", capacity->last_lba}, {"block_bytes", capacity->block_bytes},
                                 {"logical_per_physical_exponent", capacity->logical_per_physical_exponent}};
  if (format_device)
    j["format_device"] = {{"sectors_per_track", format_device->sectors_per_track},
                          {"bytes_per_sector", format_device->bytes_per_sector},
                          {"track_skew", format_device->track_skew},
                          {"cylinder_skew", format_device->cylinder_skew},
                          {"tracks_per_zone", format_device->tracks_per_zone}};
  if (geometry) {
    j["rigid_geometry"] = {{"cylinders", geometry->cylinders}, {"heads", geometry->heads}};
    if (geometry->rpm) j["rigid_geometry"]["rpm"] = *geometry->rpm;
  }
  if (caching) j["caching"] = {{"WCE", caching->write_cache}, {"RCD", caching->read_cache_disabled},
                               {"DRA", caching->read_ahead_disabled}};
  if (defects) j["defects"] = defects->defects.size();
  j["translate_address"] = translate_supported;
  j["log"] = log;
  return j;
}

ScsiDevice::ScsiDevice(const std::string& path) : path_(path) {
  fd_ = sg_cmds_open_device(path.c_str(), true /* read only */, 0);
  if (fd_ < 0)
    throw std::runtime_error(fmt::format("cannot open {} for SCSI commands: {}", path, std::strerror(-fd_)));
}

ScsiDevice::~ScsiDevice() {
  if (fd_ >= 0) sg_cmds_close_device(fd_);
}

Interrogation ScsiDevice::interrogate() {
  Interrogation q;
  q.device = path_;
  std::vector<std::uint8_t> buf(kBuf);
  auto record = [&](const std::string& what, int status) {
    q.log.push_back(fmt::format("{}: {}", what, describe_status(status)));
    return status == 0;
  };
  auto guarded = [&](const std::string& what, auto&& decode) {
    try {
      decode();
    } catch (const DecodeError& e) {
      q.log.push_back(fmt::format("{}: malformed answer: {}", what, e.what()));
    }
  };
  auto bytes = [&](int len) { return Bytes(buf.data(), static_cast<std::size_t>(len)); };

  int resid = 0;
  std::fill(buf.begin(), buf.end(), 0);
  if (record("INQUIRY", sg_ll_inquiry_v2(fd_, false, 0, buf.data(), 96, 0, &resid, false, 0)))
    guarded("INQUIRY", [&] { q.inquiry = decode_inquiry(bytes(96 - resid)); });

  std::fill(buf.begin(), buf.end(), 0);
  if (record("INQUIRY VPD B1h", sg_ll_inquiry_v2(fd_, true, 0xb1, buf.data(), 64, 0, &resid, false, 0)))
    guarded("VPD B1h", [&] { q.characteristics = decode_vpd_b1(bytes(64 - resid)); });

  std::fill(buf.begin(), buf.end(), 0);
  if (record("READ CAPACITY(16)", sg_ll_readcap_16(fd_, false, 0, buf.data(), 32, false, 0)))
    guarded("READ CAPACITY(16)", [&] { q.capacity = decode_read_capacity16(bytes(32)); });

  for (int page : {0x03, 0x04, 0x08, 0x0c}) {
    std::fill(buf.begin(), buf.end(), 0);
    const std::string what = fmt::format("MODE SENSE(10) page {:02X}h", page);
    if (!record(what, sg_ll_mode_sense10(fd_, false, true, 0, page, 0, buf.data(), 252, false, 0))) continue;
    guarded(what, [&] {
      for (const auto& p : decode_mode_sense(bytes(252), true)) {
        if (p.code != page) continue;
        if (page == 0x03) q.format_device = decode_format_device(p);
        if (page == 0x04) q.geometry = decode_rigid_geometry(p);
        if (page == 0x08) q.caching = decode_caching(p);
        if (page == 0x0c) q.notch = decode_notch(p);
      }
    });
  }

  std::fill(buf.begin(), buf.end(), 0);
  if (record("READ DEFECT DATA(10) P-list, physical sector format",
             sg_ll_read_defect10(fd_, true, false, 5, buf.data(), kBuf, false, 0)))
    guarded("READ DEFECT DATA(10)", [&] { q.defects = decode_defect_list10(bytes(kBuf)); });

  q.translate_supported = translate(0).has_value();
  q.log.push_back(fmt::format("Translate Address (SEND/RECEIVE DIAGNOSTIC page 40h): {}",
                              q.translate_supported ? "ok" : "not supported by this device"));
  return q;
}

std::optional<PhysicalAddress> ScsiDevice::translate(std::uint64_t lba) {
  if (!translate_ok_) return std::nullopt;
  std::vector<std::uint8_t> page = translate_lba_request(lba);
  if (sg_ll_send_diag(fd_, 0, true, false, false, false, 0, page.data(), static_cast<int>(page.size()),
                      false, 0) != 0) {
    translate_ok_ = false;
    return std::nullopt;
  }
  std::vector<std::uint8_t> buf(64, 0);
  if (sg_ll_receive_diag(fd_, true, 0x40, buf.data(), static_cast<int>(buf.size()), false, 0) != 0) {
    translate_ok_ = false;
    return std::nullopt;
  }
  try {
    const Translation t = decode_translate_result(Bytes(buf.data(), buf.size()));
    if (t.reserved_area || t.addresses.empty()) return std::nullopt;
    return t.addresses.front();
  } catch (const DecodeError&) {
    translate_ok_ = false;
    return std::nullopt;
  }
}

}  // namespace disksched::extract::scsi
