// Data movement as strided copies between DDR tensors through the scratchpad (codegen_move.cpp).
// A move op (Slice, Split, Concat, Gather, Pad, Expand, Tile, DepthToSpace, SpaceToDepth,
// Relayout; codegen_move_ops.cpp) becomes a list of boxes; each box copies prod(size) elements,
// element (i_0, i_1, ...) from src + sum(i_k * src_stride_k) to dst + sum(i_k * dst_stride_k)
// (strides in elements, any order of dims). The engine merges dims, tiles each box against the
// scratchpad and emits loads and stores with up to 3 strided levels each; a box whose source is
// contiguous along a different dim than its destination goes through the vector unit's
// transpose (batch x rows x cols -> batch x cols x rows) between load and store.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/backend/codegen_context.h"

namespace npu::compiler {

struct MoveDim {
  std::int64_t size = 1, src_stride = 0, dst_stride = 0;
};

struct MoveBox {
  std::uint64_t src_addr = 0, dst_addr = 0;  // DDR byte addresses of element (0, 0, ...)
  bool fill = false;                         // source is the layer's fill value, not DDR (Pad)
  std::vector<MoveDim> dims;
};

// `fill_bytes`: one element of the fill value as stored (int8 or fp16), for boxes with fill.
LayerCode generate_moves(CodegenContext& ctx, const Node& node, const std::vector<MoveBox>& boxes,
                         const std::vector<std::uint8_t>& fill_bytes = {});

// Gather with run-time int32/int64 indices (is_row_gather): why the NPU does not take it ("" when
// it does), and its code (codegen_row_gather.cpp).
std::string row_gather_rejection(const Graph& graph, const Node& node);
LayerCode generate_row_gather(CodegenContext& ctx, const Node& node);

// A box copying all of `src` to `dst`, element (logical index) for element: the two may have
// different orders (a Relayout) and `dst` may be a sub-box of a larger tensor at byte offset
// `dst_offset_elems` (Concat, Split).
MoveBox whole_tensor_box(const DdrTensor& src, const DdrTensor& dst, std::int64_t src_offset_elems = 0,
                         std::int64_t dst_offset_elems = 0);

}  // namespace npu::compiler
