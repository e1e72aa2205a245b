// Models that arrive quantised (ONNX Runtime's quantize_static in QDQ format, NNCF): their
// QuantizeLinear -> DequantizeLinear pairs on activations become the values' fixed int8 ranges
// (Graph::qdq_ranges, which calibration does not override), and DequantizeLinear of integer
// weights and biases (8-bit, and the 16- or 32-bit integers quantize_static writes for biases)
// becomes float constants (s * (q - zp), per tensor or per axis), which the
// int8 path re-quantises to the same integers (per-channel symmetric weights: max |q| = 127).
// The conversions at an int8 graph input or output give their value the file's parameters only
// where no pair gave it others (integer_boundary.h then runs the requantisation on the NPU); a
// graph output written by QuantizeLinear(DequantizeLinear(q)) on q's own parameters comes from
// q's QuantizeLinear; an Identity copying a value in a pair (a float output) shares its range.
#pragma once
#include <string>

#include "compiler/core/graph.h"

namespace npu::compiler {

// Runs after the static-shape front end; returns the pass summary's detail. Quantize/
// DequantizeLinear it cannot take (computed scales as in DynamicQuantizeLinear, 16- or 4-bit
// types, per-axis activations, an int8 value read by other nodes) stay as they are, for the CPU.
std::string import_qdq(Graph& graph);

}  // namespace npu::compiler
