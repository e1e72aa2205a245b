// A FusedConv / FusedGemm layer as the conv family's generator sees it (codegen_conv.cpp): the
// tiler's shape and its values' names (conv_layer.cpp), and its constants in DDR as the tiles
// load them (conv_constants.cpp). Internal to the conv family.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/backend/codegen_context.h"
#include "compiler/backend/sram_tiling.h"
#include "compiler/quant/int8_layer_params.h"
#include "compiler/reference/node_geometry.h"

namespace npu::compiler {

// Everything about a conv/gemm node the tiler and the code need, before its constants.
struct ConvLayer {
  ConvShape s;
  WindowGeometry geo;
  bool gemm = false, residual = false;
  std::string x, bias, res, y, act, post;
};
ConvLayer describe_conv_layer(CodegenContext& ctx, const Node& node);

// The layer and where its values live: the step scheduler's plans are kept under this key.
std::string conv_plan_key(const ConvLayer& layer);

// One engine's part of the layer (a multi-engine step's ctx.part, engine_split.h): the tiler's
// shape for it alone (its output rows and the input rows they read, or its output-channel units
// and, grouped, their input channels), and where its first output row and first unit sit in the
// whole layer. Without a part: the whole layer.
struct ConvPart {
  ConvShape s;
  std::int64_t row0 = 0, unit0 = 0;
  std::string key;  // appended to conv_plan_key ("" for the whole layer)
};
ConvPart conv_part(const ConvLayer& layer, const std::optional<EnginePart>& part);
// Moves a part's plan into the whole layer: its tiles' rows and its chunks' units and channels.
void place_part_plan(TilePlan& plan, const ConvPart& part, const ConvShape& whole);
// The input rows [first, end) output rows [r0, r1) read, clipped to the input.
std::pair<std::int64_t, std::int64_t> conv_input_rows(const ConvShape& s, std::int64_t r0, std::int64_t r1);

// The layer's constants in DDR: per chunk (and, ungrouped, per input-channel slice) a weight
// block padded to kWeightBlockAlign; per chunk a parameter block (bias, int8 requant) as the
// scratchpad image; the int8 table of a LUT activation.
struct ConvConstants {
  // Input channels [first, end) of each reduction slice (kernel-row slices: all channels).
  std::vector<std::pair<std::int64_t, std::int64_t>> slice_channels;
  std::vector<std::uint64_t> slice_w_offset;      // per (chunk, input-channel slice), chunk-major, then the end
  std::vector<std::uint64_t> chunk_param_offset;  // per chunk, then the end
  std::uint64_t weights_ddr = 0, params_ddr = 0, lut_ddr = 0;
};
// Adds them to the program (ctx.add_data); weight-only layers quantise their weights here.
ConvConstants place_conv_constants(CodegenContext& ctx, const Node& node, const ConvLayer& layer, const TilePlan& plan,
                                   const Int8ConvParams& q);

}  // namespace npu::compiler
