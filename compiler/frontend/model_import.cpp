#include "compiler/frontend/model_import.h"

#include <cerrno>
#include <cstring>
#include <utility>

#include "compiler/frontend/onnx_io.h"
#include "compiler/frontend/tflite/tflite_import.h"
#include "isa/whole_file.h"

namespace npu::compiler {

ModelFormat model_format(const std::vector<std::uint8_t>& bytes) {
  return bytes.size() >= 8 && std::memcmp(bytes.data() + 4, "TFL3", 4) == 0 ? ModelFormat::Tflite : ModelFormat::Onnx;
}

Graph import_model(const std::string& path, const std::vector<std::string>& input_shapes, std::uint64_t max_tensor_bytes) {
  auto bytes = isa::read_whole_file(path);
  if (!bytes) throw CompileError(path + ": cannot open file: " + std::strerror(errno));
  if (model_format(*bytes) == ModelFormat::Tflite) return import_tflite_bytes(*bytes, path, input_shapes, max_tensor_bytes);
  return import_onnx_bytes(std::move(*bytes), path, input_shapes, max_tensor_bytes);
}

}  // namespace npu::compiler
