// The compiler's INT8 integer reference: runs the quantised graph layer by layer with exactly
// the integer semantics of the instructions codegen emits (isa/instruction_set.def: conv
// int8 x int8 -> wrapping int32 with pad_value = input zero point, saturating int32 bias,
// requant {multiplier, shift} rounding half up, lut, qadd, clip, pooling with int8 averages
// rounded half away from zero, data movement checked against the FP32 evaluator on the dequantised
// values, which data movement keeps exactly) and the same parameters
// (int8_layer_params.h). It knows nothing of tiles, so when the simulated NPU's bytes equal
// these, tiling, DMA boxes, tokens and parameter packing are all right.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/core/graph.h"
#include "compiler/core/tensor_layout.h"
#include "compiler/reference/float_evaluator.h"

namespace npu::compiler {

// Each value as the NPU stores it in DDR: int8, its logical axes in the order the layout pass
// chose (Tensor::order; NHWC for 4-D images at the NPU boundary, row-major for the others).
using Int8Values = std::map<std::string, std::vector<std::int8_t>>;

// `graph` is what codegen sees (lower_graph(): partitioned, quantised, NHWC). `values` holds
// the int8 inputs of the NPU nodes that no NPU node computes (graph inputs, CPU node outputs);
// returns them plus every value an NPU node computes. Throws CompileError naming the node when
// an input is missing or a node has no int8 semantics.
Int8Values run_integer_reference(const Graph& graph, Int8Values values);

// NCHW float -> NHWC int8 on (scale, zero_point), round half to even (other ranks: row-major):
// what the runtime does when it moves a host tensor into DDR.
std::vector<std::int8_t> quantize_to_nhwc(const FloatTensor& x, const QuantParams& q);
// The same, stored in `order` (a model input's Tensor::order: NHWC images, row-major others).
std::vector<std::int8_t> quantize_in_order(const FloatTensor& x, const QuantParams& q, const AxisOrder& order);

}  // namespace npu::compiler
