#include "tools/extract/scsi_decode.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace disksched::extract::scsi {
namespace {

void need(Bytes b, std::size_t n, const char* what) {
  if (b.size() < n)
    throw DecodeError(fmt::format("{}: response has {} bytes, needs at least {}", what, b.size(), n));
}

std::uint32_t be16(Bytes b, std::size_t i) { return (std::uint32_t{b[i]} << 8) | b[i + 1]; }
std::uint32_t be24(Bytes b, std::size_t i) { return (be16(b, i) << 8) | b[i + 2]; }
std::uint32_t be32(Bytes b, std::size_t i) { return (be16(b, i) << 16) | be16(b, i + 2); }
std::uint64_t be64(Bytes b, std::size_t i) {
  return (std::uint64_t{be32(b, i)} << 32) | be32(b, i + 4);
}

std::string ascii(Bytes b, std::size_t from, std::size_t len) {
  std::string s;
  for (std::size_t i = from; i < from + len && i < b.size(); ++i)
    s.push_back(b[i] >= 0x20 && b[i] < 0x7f ? static_cast<char>(b[i]) : ' ');
  while (!s.empty() && s.back() == ' ') s.pop_back();
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  return s;
}

Bytes page_bytes(const ModePage& p) { return Bytes(p.bytes.data(), p.bytes.size()); }

void expect_page(const ModePage& p, int code, std::size_t min_bytes, const char* name) {
  if (p.code != code)
    throw DecodeError(fmt::format("{}: page code {:02X}h, expected {:02X}h", name, p.code, code));
  if (p.bytes.size() < min_bytes)
    throw DecodeError(fmt::format("{}: page has {} bytes, needs at least {}", name, p.bytes.size(),
                                  min_bytes));
}

PhysicalAddress physical(Bytes b, std::size_t i) {
  return PhysicalAddress{be24(b, i), b[i + 3], be32(b, i + 4)};
}

}  // namespace

Inquiry decode_inquiry(Bytes b) {
  need(b, 36, "INQUIRY");
  Inquiry q;
  q.peripheral_type = b[0] & 0x1f;
  q.vendor = ascii(b, 8, 8);
  q.product = ascii(b, 16, 16);
  q.revision = ascii(b, 32, 4);
  return q;
}

BlockCharacteristics decode_vpd_b1(Bytes b) {
  need(b, 8, "VPD page B1h");
  if (b[1] != 0xb1) throw DecodeError(fmt::format("VPD page B1h: page code is {:02X}h", b[1]));
  BlockCharacteristics c;
  const std::uint32_t rate = be16(b, 4);
  if (rate == 1)
    c.non_rotating = true;
  else if (rate >= 0x0401 && rate <= 0xfffe)
    c.rpm = static_cast<int>(rate);
  c.form_factor = b[7] & 0x0f;
  return c;
}

Capacity decode_read_capacity16(Bytes b) {
  need(b, 16, "READ CAPACITY(16)");
  Capacity c;
  c.last_lba = be64(b, 0);
  c.block_bytes = be32(b, 8);
  c.logical_per_physical_exponent = b[13] & 0x0f;
  c.lowest_aligned_lba = be16(b, 14) & 0x3fff;
  if (c.block_bytes == 0) throw DecodeError("READ CAPACITY(16): logical block length is 0");
  return c;
}

std::vector<ModePage> decode_mode_sense(Bytes b, bool ten) {
  const char* what = ten ? "MODE SENSE(10)" : "MODE SENSE(6)";
  need(b, ten ? 8 : 4, what);
  const std::size_t total = ten ? be16(b, 0) + 2u : b[0] + 1u;
  const std::size_t bdl = ten ? be16(b, 6) : b[3];
  const std::size_t header = ten ? 8 : 4;
  if (total > b.size())
    throw DecodeError(fmt::format("{}: header says {} bytes of mode data, only {} returned", what,
                                  total, b.size()));
  std::size_t pos = header + bdl;
  if (pos > total)
    throw DecodeError(fmt::format("{}: block descriptors ({} bytes) run past the mode data", what, bdl));
  std::vector<ModePage> pages;
  while (pos + 2 <= total) {
    ModePage p;
    p.ps = (b[pos] & 0x80) != 0;
    const bool spf = (b[pos] & 0x40) != 0;
    p.code = b[pos] & 0x3f;
    std::size_t len;
    if (spf) {
      if (pos + 4 > total) throw DecodeError(fmt::format("{}: truncated sub-page header", what));
      p.subpage = b[pos + 1];
      len = 4 + be16(b, pos + 2);
    } else {
      len = 2 + b[pos + 1];
    }
    if (pos + len > total)
      throw DecodeError(fmt::format("{}: page {:02X}h claims {} bytes, only {} remain", what, p.code,
                                    len, total - pos));
    p.bytes.assign(b.begin() + static_cast<long>(pos), b.begin() + static_cast<long>(pos + len));
    pages.push_back(std::move(p));
    pos += len;
  }
  return pages;
}

FormatDevicePage decode_format_device(const ModePage& p) {
  expect_page(p, 0x03, 21, "Format Device page");
  Bytes b = page_bytes(p);
  FormatDevicePage f;
  f.tracks_per_zone = static_cast<int>(be16(b, 2));
  f.alt_sectors_per_zone = static_cast<int>(be16(b, 4));
  f.alt_tracks_per_zone = static_cast<int>(be16(b, 6));
  f.alt_tracks_per_lu = static_cast<int>(be16(b, 8));
  f.sectors_per_track = static_cast<int>(be16(b, 10));
  f.bytes_per_sector = static_cast<int>(be16(b, 12));
  f.interleave = static_cast<int>(be16(b, 14));
  f.track_skew = static_cast<int>(be16(b, 16));
  f.cylinder_skew = static_cast<int>(be16(b, 18));
  f.ssec = (b[20] & 0x80) != 0;
  f.hsec = (b[20] & 0x40) != 0;
  f.rmb = (b[20] & 0x20) != 0;
  f.surf = (b[20] & 0x10) != 0;
  return f;
}

RigidGeometryPage decode_rigid_geometry(const ModePage& p) {
  expect_page(p, 0x04, 19, "Rigid Disk Drive Geometry page");
  Bytes b = page_bytes(p);
  RigidGeometryPage g;
  g.cylinders = be24(b, 2);
  g.heads = b[5];
  g.write_precomp_cylinder = be24(b, 6);
  g.reduced_current_cylinder = be24(b, 9);
  g.step_rate = static_cast<int>(be16(b, 12));
  g.landing_zone_cylinder = be24(b, 14);
  g.rotational_offset = b[18];
  // SCSI-1 pages (length 12h) end before the rotation rate.
  if (b.size() >= 22) {
    const std::uint32_t rpm = be16(b, 20);
    if (rpm != 0) g.rpm = static_cast<int>(rpm);
  }
  return g;
}

NotchPage decode_notch(const ModePage& p) {
  expect_page(p, 0x0c, 24, "Notch and Partition page");
  Bytes b = page_bytes(p);
  NotchPage n;
  n.notched = (b[2] & 0x80) != 0;
  n.logical_or_physical = (b[2] & 0x40) != 0;
  n.max_notches = static_cast<int>(be16(b, 4));
  n.active_notch = static_cast<int>(be16(b, 6));
  n.starting_boundary = be32(b, 8);
  n.ending_boundary = be32(b, 12);
  n.pages_notched = be64(b, 16);
  return n;
}

CachingPage decode_caching(const ModePage& p) {
  expect_page(p, 0x08, 13, "Caching page");
  Bytes b = page_bytes(p);
  CachingPage c;
  c.write_cache = (b[2] & 0x04) != 0;
  c.read_cache_disabled = (b[2] & 0x01) != 0;
  c.prefetch_transfer_length = static_cast<int>(be16(b, 4));
  c.read_ahead_disabled = (b[12] & 0x20) != 0;
  return c;
}

std::vector<std::uint8_t> translate_lba_request(std::uint64_t lba) {
  std::vector<std::uint8_t> r(14, 0);
  r[0] = 0x40;
  r[3] = 0x0a;
  const bool long_block = lba > 0xffffffffull;
  r[4] = long_block ? 0x03 : 0x00;  // supplied: long or short block format
  r[5] = 0x05;                      // wanted: physical sector format
  if (long_block) {
    for (int i = 0; i < 8; ++i) r[6 + i] = static_cast<std::uint8_t>(lba >> (56 - 8 * i));
  } else {
    for (int i = 0; i < 4; ++i) r[6 + i] = static_cast<std::uint8_t>(lba >> (24 - 8 * i));
  }
  return r;
}

Translation decode_translate_result(Bytes b) {
  need(b, 6, "Translate Address page");
  if (b[0] != 0x40)
    throw DecodeError(fmt::format("Translate Address page: page code {:02X}h, expected 40h", b[0]));
  const std::size_t len = be16(b, 2) + 4u;
  if (len > b.size())
    throw DecodeError(fmt::format("Translate Address page: claims {} bytes, only {} returned", len,
                                  b.size()));
  Translation t;
  t.supplied_format = b[4] & 0x07;
  t.reserved_area = (b[5] & 0x80) != 0;
  t.alternate_sector = (b[5] & 0x40) != 0;
  t.alternate_track = (b[5] & 0x20) != 0;
  t.translated_format = b[5] & 0x07;
  if (t.translated_format == 0x05)
    for (std::size_t i = 6; i + 8 <= len; i += 8) t.addresses.push_back(physical(b, i));
  return t;
}

DefectList decode_defect_list10(Bytes b) {
  need(b, 4, "READ DEFECT DATA(10)");
  DefectList d;
  d.plist_valid = (b[1] & 0x10) != 0;
  d.glist_valid = (b[1] & 0x08) != 0;
  d.format = b[1] & 0x07;
  const std::size_t len = be16(b, 2);
  if (4 + len > b.size())
    throw DecodeError(fmt::format("READ DEFECT DATA(10): list of {} bytes, only {} returned", len,
                                  b.size() - 4));
  if (d.format != 0x05 && d.format != 0x04)
    throw DecodeError(fmt::format(
        "READ DEFECT DATA(10): list format {}; only physical sector (5) and bytes from index "
        "(4) lists name positions",
        d.format));
  if (d.format == 0x05)
    for (std::size_t i = 4; i + 8 <= 4 + len; i += 8) d.defects.push_back(physical(b, i));
  return d;
}

AtaIdentity decode_ata_identify(Bytes b) {
  need(b, 512, "ATA IDENTIFY DEVICE");
  auto w = [&](int i) -> std::uint32_t { return b[2 * i] | (std::uint32_t{b[2 * i + 1]} << 8); };
  auto str = [&](int first, int words) {
    std::string s;
    for (int i = first; i < first + words; ++i) {
      s.push_back(static_cast<char>(w(i) >> 8));
      s.push_back(static_cast<char>(w(i) & 0xff));
    }
    while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.pop_back();
    while (!s.empty() && s.front() == ' ') s.erase(s.begin());
    return s;
  };
  AtaIdentity a;
  a.serial = str(10, 10);
  a.model = str(27, 20);
  a.lba48_sectors = std::uint64_t{w(100)} | (std::uint64_t{w(101)} << 16) |
                    (std::uint64_t{w(102)} << 32) | (std::uint64_t{w(103)} << 48);
  const std::uint32_t w106 = w(106);
  if ((w106 & 0xc000) == 0x4000) {
    if (w106 & 0x1000) a.logical_bytes = 2 * (w(117) | (w(118) << 16));
    if (w106 & 0x2000) a.physical_bytes = a.logical_bytes << (w106 & 0x0f);
    else a.physical_bytes = a.logical_bytes;
  }
  const std::uint32_t rate = w(217);
  if (rate == 1)
    a.non_rotating = true;
  else if (rate >= 0x0401 && rate <= 0xfffe)
    a.rpm = static_cast<int>(rate);
  a.form_factor = static_cast<int>(w(168) & 0x0f);
  const std::uint32_t w82 = w(82), w85 = w(85);
  if (w82 != 0xffff && w82 != 0) {
    a.write_cache_supported = (w82 & 0x20) != 0;
    a.look_ahead_supported = (w82 & 0x40) != 0;
  }
  if (w85 != 0xffff) {
    a.write_cache_enabled = (w85 & 0x20) != 0;
    a.look_ahead_enabled = (w85 & 0x40) != 0;
  }
  return a;
}

}  // namespace disksched::extract::scsi
