// TFLite flatbuffers (.tflite) into the graph IR, as ONNX-style ops (opset kCanonicalOpset) so
// every pass, the NPU lowering and the CPU fallback (ONNX Runtime) treat them like ONNX models.
//
// - Layout: TFLite activations are NHWC; the IR's convolutions and pools are NCHW. Each value
//   remembers the order its IR tensor holds TFLite's axes in, and a Transpose is placed only
//   where an op needs another order (a Reshape after a conv, a graph output): runs of convs,
//   pools and element-wise ops stay NCHW with none in between. Graph inputs and outputs keep
//   TFLite's own shapes (NHWC images), the ones LiteRT takes and gives.
// - Quantised models: a tensor's scale and zero point (per axis for weights) become
//   QuantizeLinear/DequantizeLinear pairs, the QDQ form qdq_import.h reads as fixed ranges; int8
//   graph inputs and outputs stay int8.
// - Weights: FP16 and int8 constants behind DEQUANTIZE and sparse ones behind DENSIFY are made
//   dense float constants here.
// - Resource variables (VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE): each variable becomes a
//   graph input "state/<shared_name>" (its value before the call) and a graph output
//   "state/<shared_name>/next" (its value after), which the caller feeds back. Variable tensors
//   of LSTM/RNN ops start at zero.
// - Control flow: IF and WHILE become ONNX If and Loop nodes over their subgraphs, which the
//   front end folds and unrolls when the condition or trip count is known at compile time;
//   restore_tflite_control_flow puts back the rest as operators LiteRT runs
//   (tflite_control_flow.cpp).
// - --input-shape fixes the dims the file's shape_signature leaves dynamic (-1); all of them take
//   one size, as the file does not say which are the same.
// - An operator with no translation is one node of domain kTfliteOnlyDomain that carries it as a
//   model of its own, which LiteRT runs (tflite_single_op.h).
// A malformed file, or an option the importer does not take, is a CompileError naming the file
// and the operator (index, op and first output tensor).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/core/graph.h"

namespace npu::compiler {

Graph import_tflite_bytes(const std::vector<std::uint8_t>& bytes, const std::string& origin,
                          const std::vector<std::string>& input_shapes = {},
                          std::uint64_t max_tensor_bytes = kDefaultMaxTensorBytes);

// Every If and Loop from a TFLite IF or WHILE that folding left (its condition or trip count known
// only at run time) back as the operator, of domain kTfliteOnlyDomain, which LiteRT runs. Returns
// "left to LiteRT: <node> (IF), ..." or "" when there were none.
std::string restore_tflite_control_flow(Graph& graph);

}  // namespace npu::compiler
