// What evaluate_node checks before it runs a kernel: the kernels index with the shapes they
// are given, and a model's attributes and shapes are untrusted input (tests/fuzz/).
#pragma once
#include <vector>

#include "compiler/reference/float_evaluator.h"

namespace npu::compiler {

// Throws CompileError naming the node when an input's data does not match its shape, or the
// shapes and attributes do not fit the op (ranks, inner dimensions, axes, permutations,
// groups, parameter lengths, gather indices).
void check_evaluator_inputs(const Graph& graph, const Node& node, const std::vector<const FloatTensor*>& inputs);

}  // namespace npu::compiler
