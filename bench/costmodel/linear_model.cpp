#include "bench/costmodel/linear_model.hpp"

#include <algorithm>
#include <cmath>

namespace disksched {

namespace {

constexpr double kPageBytes = 4096.0;  // IOC_PAGE_SIZE

LinearCostModel::Coefs coefs_of(double bps, double seqiops, double randiops) {
  LinearCostModel::Coefs c;
  if (bps > 0) c.page_s = kPageBytes / bps;
  if (seqiops > 0) c.seqio_s = std::max(0.0, 1.0 / seqiops - c.page_s);
  if (randiops > 0) c.randio_s = std::max(0.0, 1.0 / randiops - c.page_s);
  return c;
}

}  // namespace

IocostParams iocost_builtin_hdd() {
  return {174019176, 41708, 370, 178075866, 42705, 378};
}

LinearCostModel LinearCostModel::iocost(const IocostParams& p) {
  LinearCostModel m;
  m.c_[0] = coefs_of(p.rbps, p.rseqiops, p.rrandiops);
  m.c_[1] = coefs_of(p.wbps, p.wseqiops, p.wrandiops);
  return m;
}

LinearCostModel LinearCostModel::iops_bandwidth(double read_iops, double read_bps, double write_iops,
                                                double write_bps, std::uint64_t ref_bytes) {
  // Pages of the reference I/O: its bandwidth share is in the page cost already.
  auto coefs = [&](double iops, double bps) {
    Coefs c;
    if (bps > 0) c.page_s = kPageBytes / bps;
    const double pages = std::ceil(static_cast<double>(ref_bytes) / kPageBytes);
    if (iops > 0) c.randio_s = std::max(0.0, 1.0 / iops - pages * c.page_s);
    c.seqio_s = c.randio_s;
    return c;
  };
  LinearCostModel m;
  m.c_[0] = coefs(read_iops, read_bps);
  m.c_[1] = coefs(write_iops, write_bps);
  return m;
}

double LinearCostModel::cost_s(const Load& load) const {
  const Coefs& c = coefs(load.write);
  // Whole pages, as iocost counts them; a sequential load's I/Os are each within 16 MiB
  // of the last one's end (LCOEF_RANDIO_PAGES), a random load's on a large drive not.
  const double pages = std::ceil(static_cast<double>(load.bytes) / kPageBytes);
  return (load.sequential ? c.seqio_s : c.randio_s) + pages * c.page_s;
}

}  // namespace disksched
