// The NPU op families the back end lowers, one entry each, defined beside its generator in one
// file per family (codegen_conv.cpp, codegen_pool.cpp, ...): which nodes it takes, why the NPU
// refuses one (the partitioner asks), how its mapping and code are made, and how the step
// scheduler prices it. Adding an op family is one new file and one line in op_registry.cpp; no
// switch elsewhere names it.
//
// The FP32 reference kernels of the same ops stay in reference/ (one table per file, keyed by
// op type): the front end folds constants and calibration measures values with them before
// any NPU family exists, and reference/ sits below the back end.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/backend/codegen_context.h"
#include "compiler/core/graph.h"

namespace npu::compiler {

// Rows [row_begin, row_end) and channels [channel_begin, channel_end) of a value's h x w x c
// image view (codegen_context.h, DdrTensor): what one engine's part of a layer reads or writes.
struct ValueBox {
  std::int64_t row_begin = 0, row_end = 0, channel_begin = 0, channel_end = 0;
  bool contains(const ValueBox& o) const {
    return o.row_begin >= row_begin && o.row_end <= row_end && o.channel_begin >= channel_begin && o.channel_end <= channel_end;
  }
  bool empty() const { return row_end <= row_begin || channel_end <= channel_begin; }
};

// How a family's layers split across the engines of a multi-engine NPU (engine_split.h). A
// family without one runs each of its layers on one engine.
struct LayerSplitter {
  // How many output rows (LoopDim::Rows) or output-channel units (OutChannels) the layer's
  // parts can be cut from: 0 when it cannot be cut along `dim`.
  std::int64_t (*extent)(CodegenContext& ctx, const Node& node, LoopDim dim) = nullptr;
  // Channel parts start at multiples of this many units where the units allow (a chunk narrower
  // than the array's columns idles some of them).
  std::int64_t (*channel_granule)(CodegenContext& ctx, const Node& node) = nullptr;
  // The box of node.inputs[input] (an activation) the part reads, and of its output it writes.
  ValueBox (*reads)(CodegenContext& ctx, const Node& node, const EnginePart& part, std::size_t input) = nullptr;
  ValueBox (*writes)(CodegenContext& ctx, const Node& node, const EnginePart& part) = nullptr;
  // Makes every engine's row part (`parts`; ctx.tiling_config as they are priced) load the
  // layer's constants in one order: the same blocks in the same sequence, so multicast loads
  // meet (compiler/README.md, "Several engines"). Null: each part plans alone.
  void (*share_load_order)(CodegenContext& ctx, const Node& node, const std::vector<EnginePart>& parts) = nullptr;
};

struct NpuOpFamily {
  const char* name = "";
  // Whether `node` belongs to the family (by op type; families do not overlap).
  bool (*takes)(const Node& node) = nullptr;
  // After the checks every op shares (partition.cpp): "" when the NPU runs `node` (int8 or
  // fp16), else one phrase saying why not. Null: the family's nodes are made by the back end
  // itself after partitioning (precision converters), never asked about.
  std::string (*rejection)(const Graph& graph, const Node& node, bool int8) = nullptr;
  // Its mapping and code in the region ctx gives (compiler/README.md, the generator contract).
  LayerCode (*generate)(CodegenContext& ctx, const Node& node) = nullptr;
  // What it needs and costs in a region of `budget` bytes, from its own tiler; null: the step
  // scheduler times its generated code.
  std::optional<LayerDemand> (*demand)(CodegenContext& ctx, const Node& node, std::uint64_t budget) = nullptr;
  bool region_aware = false;     // tiles in [ctx.sram_base, +ctx.sram_bytes)
  bool reads_resident = false;   // reads inputs in place where ctx.resident() says
  bool writes_resident = false;  // leaves its output in place where ctx.resident() says
  // Splitting its layers across engines (ctx.part); null: one engine runs each layer.
  const LayerSplitter* splitter = nullptr;
  // With the flags above: whether this node reads (an input) or writes (an output) `value` on
  // chip; false: it reads that input from DDR (the scheduler then stores the value too) or keeps
  // that output in DDR. Null: every value as the flags say.
  bool (*on_chip)(const Graph& graph, const Node& node, const std::string& value) = nullptr;
};

// Every family, in lookup order.
const std::vector<const NpuOpFamily*>& npu_op_families();
// The family that takes `node`; nullptr when none does.
const NpuOpFamily* npu_op_family(const Node& node);

// The families, each defined in its own file.
const NpuOpFamily& conv_family();        // codegen_conv.cpp: FusedConv, FusedGemm
const NpuOpFamily& pool_family();        // codegen_pool.cpp: MaxPool, AveragePool
const NpuOpFamily& resize_family();      // codegen_resize.cpp: nearest Resize / Upsample
const NpuOpFamily& move_family();        // codegen_move_ops.cpp: data movement
const NpuOpFamily& matmul_family();      // codegen_matmul.cpp: MatMul of two computed tensors
const NpuOpFamily& rowwise_family();     // codegen_rowwise.cpp: softmax, layer norm, reductions
const NpuOpFamily& eltwise_family();     // codegen_eltwise.cpp: unary, binary, Where
const NpuOpFamily& converter_family();   // codegen_convert.cpp: mixed precision's Quantize / Dequantize

}  // namespace npu::compiler
