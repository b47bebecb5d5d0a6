#include "tools/extract/nbd_target.hpp"

#include <libnbd.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "tools/extract/clock.hpp"
#include "tools/extract/writable.hpp"

namespace disksched::extract {
namespace {


[[noreturn]] void nbd_fail(const std::string& what) {
  const char* e = nbd_get_error();
  throw std::runtime_error(fmt::format("{}: {}", what, e ? e : "unknown libnbd error"));
}

}  // namespace

NbdTarget::NbdTarget(const std::string& uri, std::uint32_t sector_bytes,
                     std::optional<std::pair<std::uint64_t, std::uint64_t>> writable)
    : HostTarget(uri) {
  h_ = nbd_create();
  if (!h_) nbd_fail("libnbd");
  if (nbd_connect_uri(h_, uri.c_str()) == -1) {
    std::string msg = fmt::format("cannot connect to {}", uri);
    nbd_close(h_);
    h_ = nullptr;
    nbd_fail(msg);
  }
  const int64_t size = nbd_get_size(h_);
  if (size < 0) nbd_fail(fmt::format("{}: export size", uri));
  if (sector_bytes == 0) {
    const int64_t minimum = nbd_get_block_size(h_, LIBNBD_SIZE_MINIMUM);
    sector_bytes = static_cast<std::uint32_t>(std::max<int64_t>(512, minimum));
  }
  sector_ = sector_bytes;
  sectors_ = static_cast<std::uint64_t>(size) / sector_;
  buf_.resize(64 * std::size_t{sector_});
  if (writable) {
    if (nbd_is_read_only(h_) == 1)
      throw std::runtime_error(fmt::format("{} is read-only; --allow-writes cannot be honoured", uri));
    const auto [start, len] = keep_writable(*writable);
    if (nbd_pread(h_, saved_.data(), len, start, 0) == -1)
      nbd_fail(fmt::format("{}: reading the writable range", uri));
  }
}

NbdTarget::~NbdTarget() {
  if (null_) nbd_close(null_);
  if (h_) {
    nbd_shutdown(h_, 0);
    nbd_close(h_);
  }
}

ProbeResult NbdTarget::read(std::uint64_t lba, std::uint32_t count) {
  const std::size_t n = std::size_t{count} * sector_;
  if (n > buf_.size() || lba + count > sectors_)
    throw std::runtime_error(fmt::format("{}: read of {} sectors at {} is out of range", name_, count, lba));
  bool ok = false;
  const ProbeResult r = timed_probe(
      [&] {
        if (!spin_) return nbd_pread(h_, buf_.data(), n, lba * sector_, 0) != -1;
        const nbd_completion_callback none{};
        const int64_t cookie = nbd_aio_pread(h_, buf_.data(), n, lba * sector_, none, 0);
        if (cookie == -1) return false;
        int done = 0;
        while ((done = nbd_aio_command_completed(h_, cookie)) == 0)
          if (nbd_poll(h_, 0) == -1) return false;
        return done == 1;
      },
      &ok);
  if (!ok) nbd_fail(fmt::format("{}: read at sector {}", name_, lba));
  return r;
}

ProbeResult NbdTarget::write(std::uint64_t lba, std::uint32_t count) {
  // FUA: the write is complete when it is on the medium, not in a cache. Asked before
  // the clock starts: it is not part of the probe.
  return put(lba, count, nbd_can_fua(h_) == 1 ? LIBNBD_CMD_FLAG_FUA : 0);
}

std::optional<ProbeResult> NbdTarget::write_buffered(std::uint64_t lba, std::uint32_t count) {
  return put(lba, count, 0);
}

ProbeResult NbdTarget::put(std::uint64_t lba, std::uint32_t count, std::uint32_t flags) {
  const std::size_t n = std::size_t{count} * sector_;
  const std::uint8_t* data = saved_at(lba, count);
  bool ok = false;
  const ProbeResult r =
      timed_probe([&] { return nbd_pwrite(h_, data, n, lba * sector_, flags) != -1; }, &ok);
  if (!ok) nbd_fail(fmt::format("{}: write at sector {}", name_, lba));
  return r;
}

std::optional<Millis> NbdTarget::null_round_trip_ms() {
  if (!null_ && !null_tried_) {
    null_tried_ = true;
    null_ = nbd_create();
    if (!null_) return std::nullopt;
    char nbdkit[] = "nbdkit", s[] = "-s", ewp[] = "--exit-with-parent", plugin[] = "null",
         size[] = "size=1M";
    char* argv[] = {nbdkit, s, ewp, plugin, size, nullptr};
    if (nbd_connect_command(null_, argv) == -1) {
      nbd_close(null_);
      null_ = nullptr;
    }
  }
  if (!null_) return std::nullopt;
  const Millis t0 = monotonic_ms();
  if (nbd_pread(null_, buf_.data(), sector_, 0, 0) == -1) return std::nullopt;
  return monotonic_ms() - t0;
}

}  // namespace disksched::extract
