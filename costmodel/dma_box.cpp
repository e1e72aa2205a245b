#include "costmodel/dma_box.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "isa/field_limits.h"

namespace npu::cost {

std::uint64_t dma_run_bytes_max() { return static_cast<std::uint64_t>(isa::field_max(isa::Opcode::Load, isa::Field::len0)); }

std::uint64_t dma_count_max() { return static_cast<std::uint64_t>(isa::field_max(isa::Opcode::Load, isa::Field::count1)); }

namespace {

std::uint64_t gcd(std::uint64_t a, std::uint64_t b) { return b == 0 ? a : gcd(b, a % b); }

// Steps per piece of a level of `count` steps `sram_stride` bytes apart that its field cannot
// hold: a multiple of 64 steps and of the steps that bring the address back to the alignment.
std::uint64_t split_steps(std::uint64_t sram_stride, std::uint64_t alignment) {
  const std::uint64_t a = std::max<std::uint64_t>(alignment, 1);
  const std::uint64_t realign = a / gcd(a, sram_stride);  // sram_stride 0: 1
  const std::uint64_t step = 64 / gcd(64, realign) * realign;  // lcm(64, realign)
  const std::uint64_t steps = dma_count_max() / step * step;
  if (steps == 0)
    throw std::length_error("a DMA level of scratchpad stride " + std::to_string(sram_stride) +
                            " cannot be split with scratchpad addresses aligned to " + std::to_string(a));
  return steps;
}

}  // namespace

std::vector<DmaBox> split_dma_box(const DmaBox& box, std::uint64_t sram_alignment) {
  std::vector<DmaBox> pieces;
  if (box.run_bytes == 0 || box.runs == 0 || box.reps == 0 || box.planes == 0) return pieces;
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
  // A level's next piece: the rest when the field holds it, else whole aligned steps.
  auto piece = [&](std::uint64_t left, std::uint64_t sram_stride) {
    return left <= count_max ? left : split_steps(sram_stride, sram_alignment);
  };
  for (std::uint64_t p0 = 0, planes = 0; p0 < b.planes; p0 += planes) {
    planes = piece(b.planes - p0, b.sram_plane_stride);
    for (std::uint64_t r0 = 0, reps = 0; r0 < b.reps; r0 += reps) {
      reps = piece(b.reps - r0, b.sram_rep_stride);
      for (std::uint64_t i0 = 0, runs = 0; i0 < b.runs; i0 += runs) {
        runs = piece(b.runs - i0, b.sram_stride);
        DmaBox p = b;
        p.ddr_addr = b.ddr_addr + p0 * b.ddr_plane_stride + r0 * b.ddr_rep_stride + i0 * b.ddr_stride;
        p.sram_addr = b.sram_addr + p0 * b.sram_plane_stride + r0 * b.sram_rep_stride + i0 * b.sram_stride;
        p.runs = runs;
        p.reps = reps;
        p.planes = planes;
        if (runs == 1) p.ddr_stride = p.sram_stride = 0;
        if (reps == 1) p.ddr_rep_stride = p.sram_rep_stride = 0;
        if (planes == 1) p.ddr_plane_stride = p.sram_plane_stride = 0;
        pieces.push_back(p);
      }
    }
  }
  return pieces;
}

}  // namespace npu::cost
