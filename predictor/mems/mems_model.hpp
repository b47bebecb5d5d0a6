// The CMU G2 MEMS-based storage device as a DeviceModel (Hong et al. 2003, Table 1 and
// eqs. 1-6; Griffin et al. 2000). See predictor/mems/README.md.
//
// Head state: `cylinder` is the sled's x bit column, `y` its y position in bits from the
// tip region's lower edge, `y_dir` the direction of its y motion (+1 / -1) at the access
// speed. A Location gives the first sector's column in `cylinder`, its tip group in
// `head`, the y where its access starts in `y` and the access direction in `y_dir`.
//
// Cost of a request: command overhead (none by default) + seek = max(t_x, t_y) to the
// first row + transfer. Transfer: every row of tip sectors the request touches passes
// under the tips at the access speed (row_bits / speed, 0.129 ms for the G2); moving on to
// the next tip group or bit column inside a request costs the sled's seek from where the
// last row ended. The end state is where the last row ends, moving in its direction.
#pragma once

#include <memory>

#include "predictor/device_model.hpp"
#include "predictor/mems/mems_layout.hpp"
#include "predictor/mems/mems_params.hpp"
#include "predictor/mems/mems_sled.hpp"

namespace disksched {

class MemsModel final : public DeviceModel {
 public:
  explicit MemsModel(const MemsParams& p = MemsParams::hong2003());

  std::string_view kind() const override { return "mems"; }
  std::string name() const override { return params_.name; }
  std::uint64_t capacity_bytes() const override { return layout_.sectors() * params_.sector_bytes; }
  std::uint32_t sector_bytes() const override { return params_.sector_bytes; }
  std::int64_t cylinders() const override { return params_.bits_x; }
  bool rotational() const override { return false; }
  Location locate(std::uint64_t lba, std::uint32_t sectors = 1, Op op = Op::Read) const override;
  Millis positioning_ms(const HeadState& from, const Location& to) const override {
    return to.overhead_ms + sled_.seek_ms(from.cylinder, from.y, from.y_dir, to.cylinder, to.y, to.y_dir);
  }
  // The x seek (with settle) for a move of |distance| columns centred on the sled.
  Millis seek_ms(std::int64_t distance) const override;
  Cost service(const HeadState& from, Op op, std::uint64_t offset,
               std::uint32_t length) const override;
  // Sled centred, moving in the direction of its column.
  HeadState initial_state() const override;

  const MemsParams& params() const { return params_; }
  const MemsSled& sled() const { return sled_; }
  const MemsLayout& layout() const { return layout_; }
  Millis row_ms() const { return row_ms_; }  // one row of tip sectors at the access speed
  // Sled state at the start of the access of `lba` / at the end of its row.
  HeadState start_state(std::uint64_t lba) const;
  HeadState end_state(std::uint64_t lba) const;

 private:
  MemsParams params_;
  MemsSled sled_;
  MemsLayout layout_;
  Millis row_ms_;
};

// The built-in `mems` model (MemsParams::hong2003()).
std::unique_ptr<DeviceModel> make_mems_model();
std::unique_ptr<DeviceModel> make_mems_model(const MemsParams& p);

}  // namespace disksched
