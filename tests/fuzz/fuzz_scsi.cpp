// Fuzz target: the SCSI and ATA answer decoders of geometry extraction
// (tools/extract/scsi_decode). A device's answer is outside input: every decoder gets
// the same bytes, and every mode page found in them goes through every page decoder.
// Documented failure: DecodeError. Anything else is a bug.
#include <cstddef>
#include <cstdint>

#include "tools/extract/scsi_decode.hpp"

namespace scsi = disksched::extract::scsi;

namespace {

template <typename F>
void decode(F&& f) {
  try {
    f();
  } catch (const scsi::DecodeError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const scsi::Bytes b(data, size);
  decode([&] { scsi::decode_inquiry(b); });
  decode([&] { scsi::decode_vpd_b1(b); });
  decode([&] { scsi::decode_read_capacity16(b); });
  decode([&] { scsi::decode_translate_result(b); });
  decode([&] { scsi::decode_defect_list10(b); });
  decode([&] { scsi::decode_ata_identify(b); });
  for (const bool ten : {true, false}) {
    decode([&] {
      for (const auto& page : scsi::decode_mode_sense(b, ten)) {
        decode([&] { scsi::decode_format_device(page); });
        decode([&] { scsi::decode_rigid_geometry(page); });
        decode([&] { scsi::decode_notch(page); });
        decode([&] { scsi::decode_caching(page); });
      }
    });
  }
  return 0;
}
