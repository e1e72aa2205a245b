// MatMul of computed tensors: batch geometry (numpy-broadcast batch dims, element offsets in
// each operand's memory layout) and the int8 parameters, shared by codegen_matmul.cpp and the
// INT8 integer reference.
#pragma once
#include <cstdint>
#include <vector>

#include "compiler/core/graph.h"
#include "compiler/quant/quant_math.h"

namespace npu::compiler {

struct MatMulGeometry {
  std::int64_t m = 1, n = 1, k = 1, batch = 1;
  // Element offset of each batch's matrix in A and B (row-major over the output's batch dims).
  std::vector<std::int64_t> a_batch_offset, b_batch_offset;
};
// Operands of rank >= 2; a constant operand is laid out row-major.
MatMulGeometry matmul_geometry(const Graph& graph, const Node& node);

struct Int8MatMulParams {
  QuantParams a, b;        // as stored (a constant operand: asymmetric over its own range)
  FixedPoint requant;      // sa * sb / sy
};
Int8MatMulParams int8_matmul_params(const Graph& graph, const Node& node);

}  // namespace npu::compiler
