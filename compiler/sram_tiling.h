// Tiling of a Conv/Gemm layer against the scratchpad: how many output channels (or groups)
// and output rows one tile holds, in which order tiles run, and where each double-buffered
// slot sits in SRAM. Channel chunks outermost keep each weight chunk resident while the input
// streams; rows outermost keep the input rows resident while weight chunks stream.
//
// With a hardware config, every legal (chunk, rows, order) candidate is scored by an analytic
// estimate of the layer's cycles that mirrors sim/README.md: per tile the systolic formula of
// the configured dataflow (fill/drain per fold, so per tile), the DMA transfers the code
// generator will emit (setup per instruction, DDR latency, whole bursts moved, bounce copies),
// the vector epilogue, all overlapped through the double-buffer tokens of LayerStream (load of
// tile t+2 waits for compute of tile t, and so on); the non-overlapped first load and last
// store fall out of that recurrence. The fastest plan wins; near-ties (within 0.5%) go to the
// one moving fewer DDR bus bytes. Without a config, the plan moving fewest DDR bytes wins.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "hwconfig/hardware_config.h"

namespace npu::compiler {

struct ConvShape {
  std::string name;
  bool gemm = false;
  std::int64_t h = 1, w = 1, c = 1, oc = 1, oh = 1, ow = 1;
  std::int64_t kh = 1, kw = 1, sh = 1, dh = 1, groups = 1;
  std::int64_t pad_top = 0;  // input rows of padding above row 0 (for the cycle estimate)
  std::int64_t elem = 1;  // bytes per element of activations and weights
  bool residual = false;
  bool lut = false;
};

struct SramLayout {
  std::uint64_t params = 0, lut = 0;
  std::uint64_t weights[2] = {0, 0}, input[2] = {0, 0}, acc[2] = {0, 0}, output[2] = {0, 0}, residual[2] = {0, 0};
  std::uint64_t total = 0;
  bool int8 = true;
  std::uint64_t alignment = 64;
  // Bytes of one chunk's parameter block (bias [+ requant]), aligned.
  std::uint64_t params_per_chunk(std::int64_t oc) const;
};

struct TileChunk {
  std::int64_t first_unit = 0, units = 0;  // units: output channels (groups == 1) or groups
  std::int64_t first_oc = 0, oc = 0;
};
struct ConvTile {
  std::int64_t chunk = 0;
  std::int64_t row0 = 0, rows = 0;  // output rows
};

struct TilePlan {
  std::vector<TileChunk> chunks;
  std::vector<ConvTile> tiles;
  SramLayout sram;
  bool rows_outer = false;
  std::uint64_t ddr_bytes = 0;  // estimated DDR bytes requested (input, weights, residual, output)
  double est_cycles = 0;        // the analytic cycle estimate (0 without a hardware config)
  // Reduction split (a fallback used only when no plan fits with all input channels at once;
  // groups == 1): each tile runs k_slices passes over input channels [k*k_slice, ...+k_slice),
  // accumulating into the same accumulators; the epilogue runs after the last pass. 0: no split.
  std::int64_t k_slice = 0, k_slices = 1;
};

// Throws CompileError naming the layer and sizes when even one output row of one channel
// (or group) does not fit with double buffers, even with the input channels split (groups == 1).
// Chooses the plan with the fewest cycles `hw`'s cost model estimates (never null).
TilePlan plan_conv_tiles(const ConvShape& shape, std::uint64_t sram_bytes, std::uint64_t alignment,
                         const HardwareConfig* hw);

}  // namespace npu::compiler
