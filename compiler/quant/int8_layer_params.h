// The integer parameters of each INT8 NPU layer, derived in one place from the quantised graph.
// Codegen packs them into the program and the integer reference executes with them, so the
// simulated NPU and the reference can only differ in how the arithmetic is carried out.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "compiler/core/graph.h"
#include "compiler/quant/quant_math.h"
#include "isa/instruction_set.h"

namespace npu::compiler {

// A fused Conv/Gemm layer: conv int8 x int8 -> int32, bias, requant, optional lut, optional
// residual qadd.
struct Int8ConvParams {
  // Same element order as the float weights: Conv [OC][IC/groups][KH][KW], Gemm [K][N].
  std::vector<std::int8_t> weights;
  std::vector<float> channel_scales;           // per output channel
  std::vector<std::int32_t> bias;              // per output channel, includes -zx * sum(w)
  std::vector<FixedPoint> requant;             // per output channel
  std::int32_t input_zero_point = 0;           // the conv instruction's pad_value
  std::int32_t requant_zero_point = 0;
  std::int32_t clamp_min = -128, clamp_max = 127;  // fused Relu/Clip on the requant
  std::vector<std::int8_t> lut;                // 256 entries when a table activation follows
  bool residual = false;
  QaddParams qadd;                             // residual add (+ post Relu/Clip in its clamp)
};
// `node` is a FusedConv or FusedGemm of a quantised graph.
Int8ConvParams int8_conv_params(const Graph& graph, const Node& node);

// The single activation operand of a node that computes a function of one value: every other
// input a compile-time constant scalar (or all-equal tensor), or a parameter (Clip bounds).
// -1 when the node combines values (two activations, a non-scalar constant).
int unary_operand(const Graph& graph, const Node& node);

// An element-wise layer (unary, binary with numpy broadcasting) in int8:
// - Clip: Relu/Clip with the same parameters in and out clip the integers;
// - Lut: any function of one value (unary ops, binary ops with a scalar constant, Pow by a
//   constant) is a 256-entry table, built by running the FP32 evaluator on every int8 input;
//   a Quantize/DequantizeLinear between two int8 values (integer_boundary.h) is the identity's
//   table, round((x - z1) * s1 / s2) + z2 half to even in float as ONNX Runtime computes it;
// - Qadd: Add of two same-shape activations (qadd, 32-bit multipliers);
// - QBinary: Add/Sub/Mul/Max/Min with broadcasting or a constant tensor (qbinary);
// - Island: Div, Pow and PRelu of two values: both dequantised to fp16, the fp16 binary, the
//   result quantised (dequantize, binary, quantize on the vector unit).
struct Int8ElementwiseParams {
  enum class Kind : std::uint8_t { Clip, Lut, Qadd, QBinary, Island } kind = Kind::Clip;
  std::int32_t lo = -128, hi = 127;
  std::vector<std::int8_t> lut;
  QaddParams qadd;
  QBinaryParams qbinary;
  isa::BinaryFunction island_function = isa::BinaryFunction::Div;
  // How each input is stored: an activation's parameters, or those a constant operand is
  // quantised with (asymmetric over its own range). Unused entries have scale 0.
  std::vector<QuantParams> operands;
};
Int8ElementwiseParams int8_elementwise_params(const Graph& graph, const Node& node);

// A Where selecting a mask fill (a constant operand beyond fp16's finite range or over 1e4 in
// magnitude, e.g. -inf or float min for masked attention scores). In int8 programs its output
// stays fp16: no int8 code stands for -inf.
bool masked_where(const Graph& graph, const Node& node);

// The binary function of an ONNX element-wise op (Add, Sub, Mul, Div, Max, Min, Pow, PRelu).
isa::BinaryFunction binary_function(const std::string& op);

// Clamp bounds in the int8 domain of `q` for a fused Relu / Clip(lo, hi) (full range otherwise).
void int8_clamp_bounds(const std::string& activation, float lo, float hi, const QuantParams& q,
                       std::int32_t& qlo, std::int32_t& qhi);

// Whether a fused activation needs a table (everything but Relu and Clip).
bool is_lut_activation(const std::string& activation);

// The integer parameters of INT8 Conv/Gemm layers (quantised weights, bias, requant), derived
// once per lowered graph: they read the quantised graph only, never the hardware config, so
// every config a sweep compiles for reuses them (quantising ResNet-18's weights took about a
// third of a per-config compile). Thread-safe; entries live as long as the lowered model.
class Int8ParamsCache {
 public:
  std::shared_ptr<const Int8ConvParams> conv(const Graph& graph, const Node& node) const;

 private:
  mutable std::mutex mutex_;
  mutable std::map<std::string, std::shared_ptr<const Int8ConvParams>> conv_;  // by node name
};

}  // namespace npu::compiler
