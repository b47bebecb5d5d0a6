// The linear cost model the host-side I/O controllers describe a drive by: each I/O
// costs a fixed time (for a sequential or a random one) plus a time per 4 KiB page.
// Linux iocost's own model (block/blk-iocost.c: "linear" with rbps, rseqiops,
// rrandiops, wbps, wseqiops, wrandiops, coefficients as its calc_lcoefs makes them);
// Ceph mClock and Seastar give only an IOPS and a bandwidth per direction, which is the
// same model with no sequential discount.
#pragma once

#include <cstdint>

#include "bench/costmodel/throughput_probe.hpp"

namespace disksched {

// io.cost.model's six figures: bytes per second, and I/Os per second of 4 KiB.
struct IocostParams {
  double rbps = 0, rseqiops = 0, rrandiops = 0;
  double wbps = 0, wseqiops = 0, wrandiops = 0;
};

// Linux's built-in HDD parameters (blk-iocost.c), for comparison.
IocostParams iocost_builtin_hdd();

class LinearCostModel {
 public:
  // iocost's coefficients: a page costs 1/bps of a second per 4 KiB; a sequential
  // (random) I/O costs 1/seqiops (1/randiops) less one page, and not below 0.
  static LinearCostModel iocost(const IocostParams& p);
  // One cost per I/O and one per byte for each direction, from the IOPS of `ref_bytes`
  // I/Os and a bandwidth (mClock, Seastar): sequential and random alike.
  static LinearCostModel iops_bandwidth(double read_iops, double read_bps, double write_iops,
                                        double write_bps, std::uint64_t ref_bytes = 4096);

  // Seconds the model charges for one I/O of this load, and the I/Os per second a
  // device saturated with it would then complete.
  double cost_s(const Load& load) const;
  double iops(const Load& load) const { return 1.0 / cost_s(load); }

  // The coefficients, seconds: [0] reads, [1] writes.
  struct Coefs {
    double page_s = 0, seqio_s = 0, randio_s = 0;
  };
  const Coefs& coefs(bool write) const { return c_[write ? 1 : 0]; }

 private:
  Coefs c_[2];
};

}  // namespace disksched
