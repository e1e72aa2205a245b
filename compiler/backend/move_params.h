// The parameters of the data-movement ops, read once from their attributes or constant inputs
// (whichever the opset uses) and normalised: the partitioner checks them, codegen and the INT8
// integer reference use them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/core/graph.h"

namespace npu::compiler {

// Per input axis: first element and step (axes not sliced: 0 and 1); sizes from ends.
struct SliceParams {
  std::vector<std::int64_t> start, step, size;
};
// Throws CompileError when starts/ends/axes/steps are not constants.
SliceParams slice_params(const Graph& graph, const Node& node);

// Constant-mode Pad: elements added before and after each axis (negative: cropped), the value.
struct PadParams {
  std::vector<std::int64_t> begin, end;
  float value = 0.0f;
  std::string mode = "constant";
};
PadParams pad_params(const Graph& graph, const Node& node);

// An axis attribute of `node` over `rank` dims, negative ones wrapped; throws CompileError naming
// the node when it is out of range.
std::int64_t node_axis(const Graph& graph, const Node& node, std::int64_t axis, std::size_t rank);

std::int64_t concat_axis(const Graph& graph, const Node& node);
std::int64_t split_axis(const Graph& graph, const Node& node);
std::int64_t gather_axis(const Graph& graph, const Node& node);
// Constant indices, negative ones wrapped; throws when they are not constant or out of range.
std::vector<std::int64_t> gather_indices(const Graph& graph, const Node& node);

// A Gather whose integer indices are known only at run time (token ids): the NPU's gather
// instruction picks the rows of a constant table (codegen_move_ops.cpp); move_rejection says
// which such gathers it takes.
bool is_row_gather(const Graph& graph, const Node& node);

// A Clip of run-time integer ids by constant bounds whose every reader is a row gather taking
// them as its indices (frontend/one_hot_gather.cpp writes them): the NPU clips the int32 ids on
// the vector unit (codegen_row_gather.cpp). The partition marks those it places there with the
// attribute kIndexClip, which the converter family dispatches on.
bool is_index_clip(const Graph& graph, const Node& node);
constexpr const char* kIndexClip = "npusim_index_clip";

// Reduction axes (attribute or input, per opset), normalised and sorted; all axes when empty
// (unless noop_with_empty_axes).
std::vector<std::int64_t> reduce_axes(const Graph& graph, const Node& node);

}  // namespace npu::compiler
