// The NPU op families, named once: the partitioner's rules, the layout pass and codegen all
// dispatch on these sets.
#pragma once
#include <set>
#include <string>

namespace npu::compiler {

// Element-wise functions of one input on the vector unit (act, clip), int8 by table. The
// trigonometric tail has no act function: int8 only (any function is a table).
// QuantizeLinear / DequantizeLinear: the identity between two int8 values of different
// parameters (a requantisation, int8 by table); the partition never places one (one side is
// an integer type), integer-boundary puts those at an int8 graph output or input on the NPU.
inline const std::set<std::string>& unary_ops() {
  static const std::set<std::string> s = {"Relu", "Clip", "QuantizeLinear", "DequantizeLinear", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh", "Exp",
                                          "Log", "Sqrt", "Reciprocal", "Erf", "Abs", "Neg", "Gelu", "Mish",
                                          "Softplus", "LeakyRelu", "Elu", "Softsign", "Selu", "Celu", "Sin",
                                          "Cos", "Floor", "Ceil", "Round", "Sign", "ThresholdedRelu", "SiLU", "GeluTanh",
                                          "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh",
                                          "Atanh", "Shrink"};
  return s;
}

// Element-wise functions of two inputs with numpy broadcasting (binary / qbinary).
inline const std::set<std::string>& binary_ops() {
  static const std::set<std::string> s = {"Add", "Sub", "Mul", "Div", "Max", "Min", "Pow", "PRelu"};
  return s;
}

inline bool is_requantisation(const std::string& op) { return op == "QuantizeLinear" || op == "DequantizeLinear"; }

// ONNX Runtime's Quantize/DequantizeLinear (domain com.microsoft): ONNX's semantics, with 16-bit
// integer sides below opset 21 (ONNX Runtime's quantiser writes them for int16 activations).
inline bool is_contrib_requantisation(const std::string& domain, const std::string& op) {
  return domain == "com.microsoft" && is_requantisation(op);
}

// Pure data movement: DMA boxes between DDR tensors (codegen_move.cpp), no arithmetic.
inline const std::set<std::string>& move_ops() {
  static const std::set<std::string> s = {"Transpose", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Slice",
                                          "Split", "Concat", "Gather", "Pad", "DepthToSpace", "SpaceToDepth",
                                          "Expand", "Tile", "Relayout", "Identity", "GatherElements",
                                          "ScatterElements"};
  return s;
}

// Moves that never copy: the output is the input's bytes in another order (layout.cpp).
inline bool is_view_op(const std::string& op) {
  return op == "Transpose" || op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze" ||
         op == "Identity";
}

// Ops whose output holds input 0's values, rearranged or repeated (the other inputs are shapes):
// a value's range passes through them unchanged.
inline bool rearranges_values(const std::string& op) { return is_view_op(op) || op == "Expand"; }

// A constant of this magnitude or more in an attention mask is a fill (float32's lowest, BERT's
// -10000), not a value: it has no int8 code and only saturates what it is added to.
constexpr float kMaskFillMagnitude = 1e4f;

inline const std::set<std::string>& reduce_ops() {
  // GlobalAveragePool is a mean over H x W: in int8 its output gets its own parameters (a
  // channel's mean spans far less than the channel), which the pool instruction cannot give.
  static const std::set<std::string> s = {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "GlobalMaxPool", "GlobalAveragePool",
                                          "ReduceSumSquare", "ReduceL2"};
  return s;
}

// Ops whose codegen reads and writes 4-D values as NHWC images.
inline bool needs_nhwc(const std::string& op) {
  return op == "FusedConv" || op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool" ||
         op == "Resize" || op == "Upsample";
}

}  // namespace npu::compiler
