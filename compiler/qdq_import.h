// Models that arrive quantised (ONNX Runtime's quantize_static in QDQ format, NNCF): their
// QuantizeLinear -> DequantizeLinear pairs on activations become the values' fixed int8 ranges
// (Graph::qdq_ranges, which calibration does not override), and DequantizeLinear of integer
// weights and biases becomes float constants (s * (q - zp), per tensor or per axis), which the
// int8 path re-quantises to the same integers (per-channel symmetric weights: max |q| = 127).
#pragma once
#include <string>

#include "compiler/graph.h"

namespace npu::compiler {

// Runs right after import; returns the pass summary's detail ("" when the model has no QDQ).
// Throws CompileError naming a Quantize/DequantizeLinear it cannot take (a non-constant scale,
// a 16-bit type, a DequantizeLinear of a computed integer value).
std::string import_qdq(Graph& graph);

}  // namespace npu::compiler
