// How a strided box of bytes becomes DMA instructions, once: codegen emits one load/store per
// piece and the DMA estimate (dma_cost.h) costs the same pieces. Contiguous runs merge into one
// longer run when it fits the len0 field; a count beyond the count1/count2/count3 fields splits
// at a multiple of 64 steps (or of however many steps bring the scratchpad address back to its
// alignment, when more), so every piece's scratchpad address stays as aligned as the box's
// (the scratchpad checks instruction base addresses); a rest the field holds stays one piece.
// Field widths come from the ISA table.
#pragma once
#include <cstdint>
#include <vector>

namespace npu::cost {

// planes x reps x runs x run_bytes; run i of rep r of plane p starts at
// addr + p * plane_stride + r * rep_stride + i * stride.
struct DmaBox {
  std::uint64_t ddr_addr = 0, sram_addr = 0;
  std::uint64_t run_bytes = 0;
  std::uint64_t runs = 1, ddr_stride = 0, sram_stride = 0;
  std::uint64_t reps = 1, ddr_rep_stride = 0, sram_rep_stride = 0;
  std::uint64_t planes = 1, ddr_plane_stride = 0, sram_plane_stride = 0;
};

// Largest len0 and count1/count2/count3 the load/store encodings hold.
std::uint64_t dma_run_bytes_max();
std::uint64_t dma_count_max();

// The instructions moving `box`, in order (planes, then reps, then runs); empty for an empty
// box. `sram_alignment`: the scratchpad's (sram.alignment_bytes). Throws std::length_error when
// a run is longer than len0 can hold even after merging, or when no piece of a level too long
// for its field keeps the scratchpad addresses aligned.
std::vector<DmaBox> split_dma_box(const DmaBox& box, std::uint64_t sram_alignment);

}  // namespace npu::cost
