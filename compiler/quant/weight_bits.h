// int4 weights in an int8 program (--precision int8 --weights int4, "W4A8"): the MatMul/Gemm
// layers the NPU runs keep their weights as int4 in [-7, 7] with one scale per output column,
// packed two per byte in DDR and the scratchpad and sign-extended as they enter the array
// (gemm b_format int4 with mac_dtype int8). The scale folds into the drain's requantisation as an
// int8 weight's does, so the integer arithmetic is unchanged and a GEMV streams half the bytes.
// Conv weights stay int8. The mark is the node attribute `weight_bits` (4), which the weight
// quantiser (int8_layer_params, quant_simulation) and the code generator read.
#pragma once
#include <string>

#include "compiler/core/graph.h"

namespace npu::compiler {

// 4 for a layer marked int4, else 8.
int weight_bits(const Node& node);

// Marks every NPU FusedGemm with constant weights; returns the pass detail. Calibration still
// measures activation ranges with the FP32 weights: an int4 layer's extreme outputs can clip.
std::string mark_int4_weights(Graph& graph);

}  // namespace npu::compiler
