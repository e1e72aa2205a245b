// Walks a DMA transfer's runs (len0 bytes, up to three strided dimensions) as pieces that end
// at DDR addresses which are multiples of `chunk_bytes` (dma.arbitration_bytes, a multiple of
// the burst: pieces never share a burst, so counting bursts per piece counts them once), and
// groups pieces into the chunks the arbiters grant one at a time.
#pragma once
#include <algorithm>
#include <cstdint>

#include "costmodel/program_plan.h"

namespace npu::cost {

class RunCursor {
 public:
  struct Piece {
    std::uint64_t ddr = 0, sram = 0, bytes = 0;
  };
  RunCursor(const DmaTransfer& t, std::uint64_t chunk_bytes) : t_(&t), chunk_(chunk_bytes) {}
  // `other`'s position in `t`, a copy of its transfer (Machine::fork).
  RunCursor(const RunCursor& other, const DmaTransfer& t) : RunCursor(other) { t_ = &t; }
  bool done() const { return i3_ == t_->count3; }
  Piece next() {
    const std::uint64_t row = t_->gather_rows ? i1_ % t_->gather_rows : i1_;  // a gather's runs: as table rows 0, 1, ...
    const std::uint64_t ddr = t_->ddr_addr + i3_ * t_->ddr_stride3 + i2_ * t_->ddr_stride2 + row * t_->ddr_stride1;
    const std::uint64_t sram = t_->sram_addr + i3_ * t_->sram_stride3 + i2_ * t_->sram_stride2 + i1_ * t_->sram_stride1;
    const std::uint64_t a = ddr + offset_;
    const std::uint64_t n = std::min(t_->len0 - offset_, (a / chunk_ + 1) * chunk_ - a);
    Piece p{a, sram + offset_, n};
    offset_ += n;
    if (offset_ == t_->len0) {
      offset_ = 0;
      if (++i1_ == t_->count1) {
        i1_ = 0;
        if (++i2_ == t_->count2) {
          i2_ = 0;
          ++i3_;
        }
      }
    }
    return p;
  }
  // A chunk: pieces until it holds chunk_bytes or a piece ended on a chunk boundary.
  template <typename Take>
  std::uint64_t next_chunk(Take&& take) {
    std::uint64_t bytes = 0;
    while (!done()) {
      const Piece p = next();
      take(p);
      bytes += p.bytes;
      if (bytes >= chunk_ || (p.ddr + p.bytes) % chunk_ == 0) break;
    }
    return bytes;
  }

 private:
  const DmaTransfer* t_;
  std::uint64_t chunk_;
  std::uint64_t i1_ = 0, i2_ = 0, i3_ = 0, offset_ = 0;
};

}  // namespace npu::cost
