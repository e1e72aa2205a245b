#include "costmodel/dma_box.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "isa/field_limits.h"

namespace npu::cost {

std::uint64_t dma_run_bytes_max() { return static_cast<std::uint64_t>(isa::field_max(isa::Opcode::Load, isa::Field::len0)); }

std::uint64_t dma_count_max() { return static_cast<std::uint64_t>(isa::field_max(isa::Opcode::Load, isa::Field::count1)); }

std::vector<DmaBox> split_dma_box(const DmaBox& box) {
  std::vector<DmaBox> pieces;
  if (box.run_bytes == 0 || box.runs == 0 || box.reps == 0) return pieces;
  DmaBox b = box;
  if (b.runs > 1 && b.ddr_stride == b.run_bytes && b.sram_stride == b.run_bytes &&
      b.run_bytes * b.runs <= dma_run_bytes_max()) {
    b.run_bytes *= b.runs;
    b.runs = 1;
  }
  if (b.run_bytes > dma_run_bytes_max())
    throw std::length_error("a DMA run of " + std::to_string(b.run_bytes) + " bytes exceeds the " +
                            std::to_string(dma_run_bytes_max()) + "-byte len0 field");
  const std::uint64_t count_max = dma_count_max();
  const std::uint64_t split = std::max<std::uint64_t>(1, count_max / 64 * 64);  // 960 for a 10-bit count
  auto piece = [&](std::uint64_t left) { return left <= count_max ? left : split; };
  for (std::uint64_t r0 = 0, reps = 0; r0 < b.reps; r0 += reps) {
    reps = piece(b.reps - r0);
    for (std::uint64_t i0 = 0, runs = 0; i0 < b.runs; i0 += runs) {
      runs = piece(b.runs - i0);
      DmaBox p = b;
      p.ddr_addr = b.ddr_addr + r0 * b.ddr_rep_stride + i0 * b.ddr_stride;
      p.sram_addr = b.sram_addr + r0 * b.sram_rep_stride + i0 * b.sram_stride;
      p.runs = runs;
      p.reps = reps;
      if (runs == 1) p.ddr_stride = p.sram_stride = 0;
      if (reps == 1) p.ddr_rep_stride = p.sram_rep_stride = 0;
      pieces.push_back(p);
    }
  }
  return pieces;
}

}  // namespace npu::cost
