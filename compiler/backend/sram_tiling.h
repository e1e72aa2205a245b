// Tiling of a Conv/Gemm layer against its scratchpad region: which output channels (or groups),
// output rows and output columns one tile holds, how the reduction splits over input-channel
// slices when even one tile of all input channels does not fit, in which order tiles run,
// which array mapping each tile uses, and where each double-buffered slot sits in the region.
// Channel chunks outermost keep each weight chunk resident while the input streams; rows
// outermost keep the input rows resident while weight chunks stream.
//
// Every legal candidate is scored with the cost model: per tile the gemm/conv cycles of the
// fastest mapping the array offers (costmodel/mac_cost.h), the DMA boxes the code generator
// will emit (costmodel/dma_cost.h, split as costmodel/dma_box.h), the vector epilogue
// (costmodel/vector_cost.h), overlapped as the tile pipeline runs (costmodel/tile_pipeline.h),
// bounded below by the layer's DDR bus bytes. The fastest plan wins; near-ties (within 0.5%)
// go to the one moving fewer DDR bus bytes, then to the one needing less scratchpad. Without a
// hardware config the plan moving fewest DDR bytes wins.
//
// The step scheduler may place the input, the residual and the output in the scratchpad for
// the whole step (resident): then the tile reads or writes them in place and needs no slot or
// DMA for them. A resident input must be read in whole rows of all its channels, a resident
// output or residual written in whole rows of all output channels (the tensors are NHWC).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/backend/layer_mapping.h"
#include "costmodel/mac_shapes.h"
#include "hwconfig/hardware_config.h"
#include "isa/instruction.h"

namespace npu::compiler {

// The weight blocks a plan loads and their order: output-channel units per chunk, how the
// reduction is sliced, and, when a block is loaded again for every tile, the tiles per chunk
// (0: each block is loaded once). The engines' parts of a row-split layer that agree on it load
// the same bytes in the same order, so each of those loads is one multicast (engine_split.h).
struct WeightLoadOrder {
  std::int64_t units = 0;
  std::int64_t k_slice = 0;  // TilePlan's
  bool kernel_rows = false;
  bool rows_outer = false;
  std::int64_t tiles_per_chunk = 0;
  bool strict = false;  // no plan at all rather than one in another order
  bool operator==(const WeightLoadOrder& o) const {
    return units == o.units && k_slice == o.k_slice && kernel_rows == o.kernel_rows && rows_outer == o.rows_outer &&
           tiles_per_chunk == o.tiles_per_chunk;
  }
};

struct ConvShape {
  std::string name;
  bool gemm = false;
  std::int64_t h = 1, w = 1, c = 1, oc = 1, oh = 1, ow = 1;
  std::int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1, groups = 1;
  std::int64_t pad_top = 0, pad_left = 0;  // padding above row 0 / left of column 0
  std::int64_t elem = 1;                   // bytes per element of activations and weights
  cost::WeightStorage weights;             // gemm in fp16: weight-only int8/int4 (--weights), else as elem
  bool residual = false;
  bool lut = false;
  std::vector<isa::Opcode> epilogue;       // what each tile runs after the array, in order (drain: on the array's output stage)
  bool input_resident = false, residual_resident = false, output_resident = false;
  bool output_stored = true;               // the output (also) goes to DDR
  // Elements from one output pixel to the next in DDR (0: oc): the output is a channel slice of
  // a wider tensor there (a Concat part stored in place, codegen.cpp part_stored_in_place).
  std::int64_t out_pixel = 0;
  std::int64_t out_pixel_elems() const { return out_pixel ? out_pixel : oc; }
  // The input is a channel concatenation read where its parts are (the concat emits no code):
  // the reduction runs one slice per part, each part a tensor of its own in DDR or resident.
  struct InputPart {
    std::int64_t c = 0;
    bool resident = false;
  };
  std::vector<InputPart> parts;
  // Plan with this weight load order where one fits the region (else as if unset, unless strict).
  std::optional<WeightLoadOrder> weight_order;
  bool depthwise() const { return groups > 1 && groups == c && groups == oc; }
};

// The code generator pads each weight block (a chunk's, or a reduction slice's) to this in DDR
// and loads it whole, so a weight slot holds the padded block.
constexpr std::uint64_t kWeightBlockAlign = 64;

// Slots of each buffer: two for double buffering (the same one twice when a buffer is filled
// only once); weights may rotate through three (weight_slots, with_third_weight_slot), so a
// bandwidth-bound layer's loads run a chunk further ahead of its compute.
constexpr int kMaxTileSlots = 3;
struct SramLayout {
  using Slots = std::uint64_t[kMaxTileSlots];
  Slots params = {}, weights = {}, input = {}, acc = {}, output = {}, residual = {};
  std::uint64_t lut = 0;
  int weight_slots = 2;     // weights of chunk/slice i go to weights[i % weight_slots]
  std::uint64_t total = 0;  // bytes of the region the plan uses, from offset 0
  bool int8 = true;
  std::uint64_t alignment = 64;
  // The buffers the plan uses, in the order they were placed: bytes of one slot and how many
  // distinct slots (the lut is not listed).
  struct Use {
    BufferRole role = BufferRole::Input;
    std::uint64_t bytes = 0;
    int slots = 0;
  };
  std::vector<Use> used;
  // Bytes of one chunk's parameter block (bias [+ requant]), aligned.
  std::uint64_t params_per_chunk(std::int64_t oc) const;
  const Slots& slots_of(BufferRole role) const;
};

struct TileChunk {
  std::int64_t first_unit = 0, units = 0;  // units: output channels (groups == 1) or groups
  std::int64_t first_oc = 0, oc = 0;
};
struct ConvTile {
  std::int64_t chunk = 0;
  std::int64_t row0 = 0, rows = 0;  // output rows
  std::int64_t col0 = 0, cols = 0;  // output columns
  cost::ArrayMapping mapping;
};

struct TilePlan {
  std::vector<TileChunk> chunks;
  std::vector<ConvTile> tiles;
  SramLayout sram;               // offsets within the layer's region
  // The same slots mirrored, the first tile's from the top of the region down: the generator
  // takes it when the previous layer still uses the bottom of the region, so the first tile's
  // loads need not wait for that layer to finish.
  SramLayout sram_top_down;
  // Bytes of one weight slot when the weights are loaded more than twice (else 0): what
  // with_third_weight_slot adds.
  std::uint64_t weight_slot_bytes = 0;
  bool rows_outer = false;
  std::uint64_t ddr_bytes = 0;   // estimated DDR bytes requested
  double bus_bytes = 0;          // ... and moved on the bus (whole bursts)
  double est_cycles = 0;         // the cost-model estimate (0 without a hardware config)
  // Reduction split (groups == 1): each tile runs k_slices passes, accumulating, and the
  // epilogue after the last. Over input-channel slices [k*k_slice, +k_slice) (when no tile with
  // all input channels fits, or all output channels in one tile stream their weights best so),
  // or (kernel_rows) one kernel row of all channels per pass. k_slices 1: no split.
  std::int64_t k_slice = 0, k_slices = 1;
  bool kernel_rows = false;
  bool input_parts = false;  // one slice per part of ConvShape::parts
};

WeightLoadOrder weight_load_order(const TilePlan& plan);

// Bytes of one weight block of k x n as the code generator lays it out in DDR and the
// scratchpad: the values (weight-only: int8 or packed int4), then, from *scale_offset (the
// values' bytes aligned), the fp16 scales.
std::uint64_t weight_block_bytes(const cost::WeightStorage& w, std::int64_t k, std::int64_t n, std::int64_t elem,
                                 std::uint64_t alignment, std::uint64_t* scale_offset = nullptr);

// The best plan in a region of `sram_bytes`, or nullopt when none fits (or none can keep the
// resident values in place). `hw` null: minimise DDR bytes; otherwise estimated cycles.
std::optional<TilePlan> try_plan_conv_tiles(const ConvShape& shape, std::uint64_t sram_bytes, std::uint64_t alignment,
                                            const HardwareConfig* hw = nullptr);
// The same; throws CompileError naming the layer and the smallest tile's bytes when none fits.
TilePlan plan_conv_tiles(const ConvShape& shape, std::uint64_t sram_bytes, std::uint64_t alignment,
                         const HardwareConfig* hw);
// The same plan with a third weight slot appended (its weights rotate through three), or nullopt
// when its weights are loaded at most twice. A layer bound by its transfers then loads a chunk
// further ahead of its compute, across the wait for the previous layer's output.
std::optional<TilePlan> with_third_weight_slot(const TilePlan& plan);

// The plan as a layer mapping (layer_mapping.h): its loop nest, the array's dataflow and per-tile
// swaps, and `layout`'s buffers (plan.sram or plan.sram_top_down) in the region at `region_base`.
LayerMapping conv_layer_mapping(const ConvShape& shape, const TilePlan& plan, const SramLayout& layout,
                                std::uint64_t region_base, Dataflow dataflow);

// The fastest mapping the array offers for one tile's gemm/conv (per group m, n, k; `groups`
// as the instruction will carry them), and its cycles.
cost::ArrayMapping fastest_mapping(const HardwareConfig& hw, std::int64_t groups, std::int64_t m, std::int64_t n,
                                   std::int64_t k, bool fp16, bool depthwise_possible, double* cycles = nullptr);

}  // namespace npu::compiler
