// One NPU layer's mapping, the Timeloop/ZigZag idea: the loop nest over its tiles (order and
// tile sizes), what one tile runs on (the MAC array with its dataflow and per-tile operand
// swaps, the vector unit, or DMA alone), how many engines share the layer, and where each
// buffer sits in the layer's scratchpad region. A layer's tiler chooses it, its generator
// lowers exactly it (the loop tiles and buffer addresses come from here), and `--explain`
// prints it, so "why this tiling" needs no reading of instructions.
//
// Conv/gemm keep their irregular tile list (edge tiles, per-tile array mappings, reduction
// slices) in the tiler's TilePlan (sram_tiling.h); their LayerMapping is derived from it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "hwconfig/hardware_config.h"

namespace npu::compiler {

// The dimensions a layer's tiles are cut along.
enum class LoopDim : std::uint8_t {
  Batch,        // numpy batch of a MatMul, or the outer merged dims of an element-wise layer
  OutChannels,  // conv/gemm output-channel (or group) chunks
  Channels,     // channels of a per-channel op (pooling)
  Rows,         // output rows (conv, pooling, resize, element-wise rows, row-wise outer rows)
  Cols,         // output columns
  M,            // MatMul rows
  N,            // MatMul columns
  Reduction,    // conv/gemm input-channel or kernel-row slices; a reduction's chunks
  Elements,     // a copy's elements
};
const char* loop_dim_name(LoopDim dim);

// A temporal loop over tiles: `extent` elements cut into tiles of `tile` (the last may be
// shorter). tile == extent: the dimension is not split.
struct MappingLoop {
  LoopDim dim = LoopDim::Rows;
  std::int64_t extent = 1, tile = 1;
  std::int64_t tiles() const { return tile > 0 ? (extent + tile - 1) / tile : 0; }
};

// What a buffer holds.
enum class BufferRole : std::uint8_t { Table, Params, Weights, Input, Operand, Accumulator, Output, Residual, Temp, Partials };
const char* buffer_role_name(BufferRole role);

// One buffer in the layer's region: its slots' scratchpad addresses (two or more: tiles rotate
// through them while the next tile's loads run ahead) and the bytes of one slot.
struct MappingBuffer {
  BufferRole role = BufferRole::Input;
  int index = 0;                      // which operand or temporary (element-wise layers)
  std::vector<std::uint64_t> slots;   // absolute scratchpad addresses
  std::uint64_t bytes = 0;            // of one slot, aligned
  std::uint64_t at(std::int64_t tile) const { return slots[static_cast<std::size_t>(tile) % slots.size()]; }
};

// Where one tile's work runs.
enum class TileUnit : std::uint8_t { Array, Vector, Dma };

// What one engine of a multi-engine NPU computes of a layer: output rows [begin, end) (conv/gemm
// rows, a gemm's M), or output-channel units [begin, end) (output channels; groups of a
// grouped conv). engine_split.h decides, the layer's generator emits only its part.
struct EnginePart {
  LoopDim dim = LoopDim::Rows;  // Rows or OutChannels
  std::int64_t begin = 0, end = 0;
  std::int64_t size() const { return end - begin; }
};

// How a layer is shared among the engines: parts[e] is engine e's (engines without a part idle
// for the layer); no parts: engine 0 runs all of it. `why`: the cost model's reason, for --explain.
struct EngineSplit {
  std::vector<EnginePart> parts;
  std::string why;
  int engines() const { return parts.empty() ? 1 : static_cast<int>(parts.size()); }
  // "1 engine", "1 engine, whole (why)" or "4 engines by rows 14+14+14+14 (why)".
  std::string describe() const;
};
// "rows" or "output channels": how --explain names an engine split's dimension.
const char* engine_split_dim_name(LoopDim dim);
// Bytes as the mapping lines print them: "768 B", "18.0 KiB".
std::string size_text(std::uint64_t bytes);

struct LayerMapping {
  TileUnit unit = TileUnit::Vector;
  std::vector<MappingLoop> loops;      // outermost first
  Dataflow dataflow = Dataflow::WeightStationary;  // the array's (TileUnit::Array only)
  std::int64_t swapped_tiles = 0;      // array tiles that run with the operands swapped (small M)
  bool depthwise = false;              // array tiles in the depthwise mode
  EngineSplit split;                   // the engines sharing the layer (one unless split)
  std::vector<MappingBuffer> buffers;  // in the layer's region
  std::uint64_t region_base = 0;       // the region's first byte ...
  std::uint64_t region_bytes = 0;      // ... and the bytes its buffers use from there
  double est_cycles = 0;               // the tiler's estimate; 0 when the step scheduler times the code

  std::int64_t tiles() const;
  const MappingLoop& loop(LoopDim dim) const;         // throws std::out_of_range when absent
  const MappingBuffer& buffer(BufferRole role, int index = 0) const;  // the same
  // One more slot of buffer (role, index), `bytes` long (already aligned) at `at`, which moves
  // past it; returns the slot's address. Buffers are laid out in the order their slots are placed.
  std::uint64_t place(BufferRole role, int index, std::uint64_t bytes, std::uint64_t& at);

  // One line: "array ws, 2 of 12 tiles swapped: oc 256/64 > rows 56/14 > k 512/256;
  // weights 3x64 KiB, input 2x28 KiB, ... = 412 KiB; 1 engine; est 123,456 cycles". A split
  // layer's loops and buffers are one engine's part.
  std::string describe() const;
};

}  // namespace npu::compiler
