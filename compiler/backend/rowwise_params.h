// Softmax, LogSoftmax, LayerNormalization and the reductions as the vector unit sees them: the
// input in memory viewed as outer x mid x inner (the softmax / normalised / reduced axes are
// `mid`, contiguous in memory by the layout pass), the output as outer x out_mid x inner.
// Shared by codegen (codegen_rowwise.cpp) and the INT8 integer reference.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/core/graph.h"
#include "isa/instruction_set.h"

namespace npu::compiler {

struct RowwiseShape {
  std::int64_t outer = 1, mid = 1, inner = 1, out_mid = 1;
};

enum class RowwiseKind : std::uint8_t { Softmax, LogSoftmax, LayerNorm, Reduce };

struct RowwiseOp {
  RowwiseKind kind = RowwiseKind::Softmax;
  RowwiseShape shape;
  isa::ReduceFunction reduce = isa::ReduceFunction::Sum;
  bool sqrt_after = false;  // ReduceL2: sqrt of the sum of squares
  float epsilon = 1e-5f;
  std::vector<float> gamma, beta;  // LayerNorm, one per mid element
  // int8: Max/Min reduce the integers (same parameters in and out); every other op runs as a
  // dequantize -> fp16 -> quantize island.
  bool int8_direct = false;
};

bool is_rowwise_op(const std::string& op);

// Throws CompileError naming the node when the layout does not give a contiguous mid block.
RowwiseOp rowwise_op(const Graph& graph, const Node& node, bool int8);

// The axes of `node` the op works along (softmax axis/axes, normalised axes, reduced axes).
std::vector<std::int64_t> rowwise_axes(const Graph& graph, const Node& node);

}  // namespace npu::compiler
