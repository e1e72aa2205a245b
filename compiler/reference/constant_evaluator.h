// Constant folding's evaluator: a node whose inputs are all constants, computed exactly.
// Integer and bool tensors (shape arithmetic: Shape, Gather, Concat, Div, Slice ends of
// INT64_MAX ...) are computed in int64, never through float; all-float nodes go to the FP32
// evaluator.
#pragma once
#include <vector>

#include "compiler/core/graph.h"

namespace npu::compiler {

// The op types folded exactly in int64 (others fold only when all their values are float).
bool exact_fold_supports(const std::string& op_type);

// Computes `node`'s outputs as constant tensors (name, type, shape, data filled). Returns false
// when it cannot (an op or attribute neither evaluator runs); throws CompileError naming the
// node when the inputs are inconsistent (e.g. an index out of range).
bool fold_node(const Graph& graph, const Node& node, std::vector<Tensor>& outputs);

}  // namespace npu::compiler
