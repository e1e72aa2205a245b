// One DRAM bank's state machine for the command-level model (ddr.model: dram): which row is
// open and the earliest time each command may be issued to it, from the JEDEC timings of
// hwconfig/dram_standards.h. Channel-wide constraints (tRRD, tFAW, tCCD, tWTR, tRTW, the
// command and data buses, refresh) live in DramChannel.
//   ACT  at t: row open; RD/WR from t + tRCD; PRE from t + tRAS; next ACT from t + tRC.
//   RD   at t: PRE from t + tRTP.      WR at t: PRE from end of its data + tWR.
//   PRE  at t: closed; ACT from t + tRP.
#pragma once
#include <algorithm>
#include <cstdint>

#include "hwconfig/dram_standards.h"

namespace npu::cost {

class DramBank {
 public:
  static constexpr std::int64_t kClosed = -1;
  std::int64_t open_row() const { return open_row_; }
  double act_ready() const { return act_ready_; }
  double cas_ready() const { return cas_ready_; }
  double pre_ready() const { return pre_ready_; }

  void activate(double t, std::uint64_t row, const DramStandard& s) {
    open_row_ = static_cast<std::int64_t>(row);
    cas_ready_ = t + s.tRCD;
    pre_ready_ = std::max(pre_ready_, t + s.tRAS);
    act_ready_ = t + s.tRC;
  }
  void read(double t, const DramStandard& s) { pre_ready_ = std::max(pre_ready_, t + s.tRTP); }
  void write(double data_end, const DramStandard& s) { pre_ready_ = std::max(pre_ready_, data_end + s.tWR); }
  void precharge(double t, const DramStandard& s) {
    open_row_ = kClosed;
    act_ready_ = std::max(act_ready_, t + s.tRP);
  }
  // Refresh ends at `t`: the bank is closed and may be activated again from then.
  void refreshed(double t) {
    open_row_ = kClosed;
    act_ready_ = std::max(act_ready_, t);
  }

 private:
  std::int64_t open_row_ = kClosed;
  double act_ready_ = 0, cas_ready_ = 0, pre_ready_ = 0;
};

}  // namespace npu::cost
