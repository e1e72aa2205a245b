#include "costmodel/ddr_address_map.h"

#include <algorithm>

namespace npu::cost {

DdrAddressMap::DdrAddressMap(const DdrConfig& ddr)
    : DdrAddressMap(ddr, ddr.banks, 1, ddr.row_bytes, ddr.burst_bytes) {}

DdrAddressMap::DdrAddressMap(const DdrConfig& ddr, int banks, int bank_groups, int row_bytes, int burst_bytes)
    : mapping_(ddr.address_mapping),
      interleave_(static_cast<std::uint64_t>(std::max(1, ddr.interleave_bytes))),
      channels_(static_cast<std::uint64_t>(std::max(1, ddr.channels))),
      row_bytes_(static_cast<std::uint64_t>(std::max(1, row_bytes))),
      burst_bytes_(static_cast<std::uint64_t>(std::max(1, burst_bytes))),
      bursts_per_row_(std::max<std::uint64_t>(1, row_bytes_ / burst_bytes_)),
      banks_(static_cast<std::uint32_t>(std::max(1, banks))),
      groups_(static_cast<std::uint32_t>(std::clamp(bank_groups, 1, std::max(1, banks)))) {}

DdrLocation DdrAddressMap::locate(std::uint64_t addr) const {
  DdrLocation at;
  at.channel = channel_of(addr);
  const std::uint64_t local = local_of(addr);
  const std::uint64_t burst = local / burst_bytes_;
  at.row = local / (row_bytes_ * banks_);
  switch (mapping_) {
    case DdrAddressMapping::RowBankColumn: at.bank = static_cast<std::uint32_t>((local / row_bytes_) % banks_); break;
    case DdrAddressMapping::RowColumnBank: at.bank = static_cast<std::uint32_t>(burst % banks_); break;
    case DdrAddressMapping::RowBankColumnBankGroup: {
      const std::uint64_t group = burst % groups_;
      const std::uint64_t in_group = (burst / groups_ / bursts_per_row_) % (banks_ / groups_);
      at.bank = static_cast<std::uint32_t>(in_group * groups_ + group);
      break;
    }
  }
  at.bank_group = at.bank % groups_;
  return at;
}

}  // namespace npu::cost
