#include "costmodel/sram_banks.h"

#include <algorithm>

namespace npu::cost {

SramBankMap::SramBankMap(const SramConfig& sram)
    : block_(sram.bank_mapping == SramBankMapping::Block),
      block_bytes_(std::max<std::uint64_t>(1, sram.capacity_bytes / static_cast<std::uint64_t>(std::max(1, sram.banks)))),
      interleave_(static_cast<std::uint64_t>(std::max(1, sram.bank_interleave_bytes))),
      banks_(static_cast<std::uint32_t>(std::max(1, sram.banks))) {}

}  // namespace npu::cost
