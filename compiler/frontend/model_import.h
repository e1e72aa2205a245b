// Reading a model file of any format the compiler takes into the graph IR: ONNX (onnx_io.h) or
// TFLite (tflite/tflite_import.h), told apart by the file's contents, not its extension.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/core/graph.h"

namespace npu::compiler {

enum class ModelFormat { Onnx, Tflite };

// A TFLite flatbuffer carries "TFL3" at bytes 4..7; everything else is read as ONNX.
ModelFormat model_format(const std::vector<std::uint8_t>& bytes);

Graph import_model(const std::string& path, const std::vector<std::string>& input_shapes = {},
                   std::uint64_t max_tensor_bytes = kDefaultMaxTensorBytes);

}  // namespace npu::compiler
