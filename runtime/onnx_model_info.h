// The boundary of a serialized ONNX (or TFLite) model: names, element types and shapes of its graph
// inputs and outputs (the CPU steps' models, whose descriptors the runtime checks against).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/tensor.h"

namespace npu::runtime {

struct OnnxModelInfo {
  std::vector<TensorDesc> inputs;   // graph inputs that are not initializers; -1 for dynamic dims
  std::vector<TensorDesc> outputs;
  // A TFLite resource variable's state input: its value before the first call (what the file's
  // CALL_ONCE assigns), where LiteRT starts.
  std::map<std::string, HostTensor> initial_values;
};

// Throws "<origin>: <what is wrong>" when the bytes are not an ONNX model.
OnnxModelInfo read_onnx_model_info(const std::vector<std::uint8_t>& model_bytes, const std::string& origin);
OnnxModelInfo read_tflite_model_info(const std::vector<std::uint8_t>& model_bytes, const std::string& origin);
// A CPU step's model that is one operator only LiteRT runs (compiler/core/graph.h
// kTfliteOnlyDomain): that operator as a .tflite model (its "tflite_model" attribute); empty
// for any other step.
std::string tflite_operator_model(const std::vector<std::uint8_t>& model_bytes);
// That operator's outputs, in the order of its own (the step's outputs are only those read later,
// in the graph's order).
std::vector<std::string> tflite_operator_outputs(const std::vector<std::uint8_t>& model_bytes);
// The file's format is told by its contents (compiler/frontend/model_import.h): ONNX or TFLite.
OnnxModelInfo read_onnx_model_file_info(const std::string& path);

}  // namespace npu::runtime
