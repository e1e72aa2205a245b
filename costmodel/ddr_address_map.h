// Where a DDR address lives: channel, bank (group), row and column. One map for the banked
// and dram timing models and the compiler's DMA estimate, so they agree on which accesses
// hit an open row.
//
// Channels: consecutive ddr.interleave_bytes blocks rotate over the ddr.channels channels
// (as in every DDR model); a channel sees its blocks packed back to back as its local
// address L = (addr / (interleave * channels)) * interleave + addr % interleave. Within a
// channel, ddr.address_mapping orders the fields of L from most to least significant:
//   row_bank_column            column = L % row_bytes, then bank, then row: a sequential
//                              stream fills a whole row before it moves to the next bank.
//   row_column_bank            bank = burst index % banks: consecutive bursts rotate over
//                              the banks (most bank parallelism, one row open in each).
//   row_bank_column_bankgroup  consecutive bursts rotate over the bank groups, then fill the
//                              row of one bank per group (what DDR5/LPDDR5 controllers do to
//                              stream at tCCD_S instead of tCCD_L); = row_bank_column with
//                              one bank group.
// In all three, row = L / (row_bytes * banks): a channel's row r of every bank holds the
// channel-local bytes [r, r + 1) * row_bytes * banks.
#pragma once
#include <cstdint>

#include "hwconfig/hardware_config.h"

namespace npu::cost {

struct DdrLocation {
  std::uint32_t channel = 0;
  std::uint32_t bank = 0;        // 0 .. banks-1 within the channel
  std::uint32_t bank_group = 0;  // bank % bank_groups
  std::uint64_t row = 0;
};

class DdrAddressMap {
 public:
  // The banked model's geometry: ddr.banks, one bank group, ddr.row_bytes, ddr.burst_bytes.
  explicit DdrAddressMap(const DdrConfig& ddr);
  DdrAddressMap(const DdrConfig& ddr, int banks, int bank_groups, int row_bytes, int burst_bytes);

  std::uint32_t channel_of(std::uint64_t addr) const {
    return static_cast<std::uint32_t>((addr / interleave_) % channels_);
  }
  std::uint64_t local_of(std::uint64_t addr) const {
    return addr / (interleave_ * channels_) * interleave_ + addr % interleave_;
  }
  // Of the burst holding `addr`.
  DdrLocation locate(std::uint64_t addr) const;
  std::uint32_t banks() const { return banks_; }
  std::uint32_t channels() const { return channels_; }

 private:
  DdrAddressMapping mapping_;
  std::uint64_t interleave_, channels_, row_bytes_, burst_bytes_, bursts_per_row_;
  std::uint32_t banks_, groups_;
};

}  // namespace npu::cost
