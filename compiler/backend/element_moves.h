// GatherElements and ScatterElements with constant indices as DMA boxes (element_moves.cpp).
#pragma once
#include <string>
#include <vector>

#include "compiler/backend/codegen_move.h"

namespace npu::compiler {

bool is_element_move(const Node& node);
// Why the NPU does not take it ("" when it does): indices computed at run time, a reduction,
// duplicate scatter targets, an index out of range, more than 4096 runs.
std::string element_move_rejection(const Graph& graph, const Node& node);
// Its boxes; `q`: the parameters constant operands are stored with.
std::vector<MoveBox> element_move_boxes(CodegenContext& ctx, const Node& node, const QuantParams& q);

}  // namespace npu::compiler
