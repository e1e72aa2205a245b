// Which scratchpad bank holds an address (sram.banks, sram.bank_mapping,
// sram.bank_interleave_bytes). The simulator charges bank conflicts with it
// (costmodel/scratchpad_banks.h); a compiler placing tensors to avoid conflicts asks it too.
//   block:       bank = addr / (capacity / banks): each bank one contiguous block
//                (capacity is whole KiB and banks a power of two <= 1024, so it divides).
//   interleaved: bank = (addr / bank_interleave_bytes) % banks.
#pragma once
#include <cstdint>
#include <vector>

#include "hwconfig/hardware_config.h"

namespace npu::cost {

class SramBankMap {
 public:
  explicit SramBankMap(const SramConfig& sram);
  std::uint32_t bank_of(std::uint64_t addr) const {
    // An address past the capacity (only in the compiler's trial placements) wraps around.
    return static_cast<std::uint32_t>((block_ ? addr / block_bytes_ : addr / interleave_) % banks_);
  }
  std::uint32_t banks() const { return banks_; }
  // Calls add(bank, bytes) for each bank [addr, addr + len) touches, with the bytes in it
  // (a bank may be named more than once; callers sum).
  template <typename Add>
  void for_each_bank(std::uint64_t addr, std::uint64_t len, Add&& add) const;

 private:
  bool block_;
  std::uint64_t block_bytes_, interleave_;
  std::uint32_t banks_;
};

template <typename Add>
void SramBankMap::for_each_bank(std::uint64_t addr, std::uint64_t len, Add&& add) const {
  if (len == 0) return;
  if (block_) {
    for (std::uint64_t a = addr, end = addr + len; a < end;) {
      const std::uint64_t next = std::min(end, (a / block_bytes_ + 1) * block_bytes_);
      add(bank_of(a), next - a);
      a = next;
    }
    return;
  }
  const std::uint64_t stripe = interleave_ * banks_;
  if (len >= stripe) {
    // Whole stripes give every bank the same share; the rest (under one stripe) is walked.
    const std::uint64_t whole = len / stripe * interleave_;
    for (std::uint32_t b = 0; b < banks_; ++b) add(b, whole);
    addr += len - len % stripe;
    len %= stripe;
  }
  // Under one stripe: each block is in a different bank.
  for (std::uint64_t a = addr, end = addr + len; a < end;) {
    const std::uint64_t next = std::min(end, (a / interleave_ + 1) * interleave_);
    add(bank_of(a), next - a);
    a = next;
  }
}

}  // namespace npu::cost
