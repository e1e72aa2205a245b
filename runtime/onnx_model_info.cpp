#include "runtime/onnx_model_info.h"

#include <fstream>
#include <iterator>
#include <set>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "compiler/frontend/model_import.h"
#include "compiler/frontend/tflite/tflite_import.h"
#include "isa/whole_file.h"

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

namespace npu::runtime {

namespace {

TensorDesc desc_of(const onnx::ValueInfoProto& value, const std::string& origin) {
  TensorDesc d;
  d.name = value.name();
  if (!value.type().has_tensor_type())
    throw std::runtime_error(fmt::format("{}: value '{}' is not a tensor (sequences and maps are not supported)", origin,
                                         value.name()));
  const auto& tensor = value.type().tensor_type();
  const auto dtype = element_type_from_onnx(tensor.elem_type());
  if (!dtype)
    throw std::runtime_error(fmt::format("{}: value '{}' has element type {}, which the runtime cannot hold", origin,
                                         value.name(), tensor.elem_type()));
  d.dtype = *dtype;
  for (const auto& dim : tensor.shape().dim()) d.shape.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
  if (d.shape.size() == 4) d.layout = "NCHW";
  return d;
}

}  // namespace

OnnxModelInfo read_onnx_model_info(const std::vector<std::uint8_t>& model_bytes, const std::string& origin) {
  onnx::ModelProto model;
  if (!model.ParseFromArray(model_bytes.data(), static_cast<int>(model_bytes.size())) || !model.has_graph())
    throw std::runtime_error(origin + ": not a valid ONNX model");
  std::set<std::string> initializers;
  for (const auto& init : model.graph().initializer()) initializers.insert(init.name());
  OnnxModelInfo info;
  for (const auto& in : model.graph().input())
    if (!initializers.count(in.name())) info.inputs.push_back(desc_of(in, origin));
  for (const auto& out : model.graph().output()) info.outputs.push_back(desc_of(out, origin));
  return info;
}

std::string tflite_operator_model(const std::vector<std::uint8_t>& model_bytes) {
  onnx::ModelProto model;
  if (!model.ParseFromArray(model_bytes.data(), static_cast<int>(model_bytes.size())) || model.graph().node_size() != 1) return "";
  const auto& n = model.graph().node(0);
  if (n.domain() != compiler::kTfliteOnlyDomain) return "";
  for (const auto& a : n.attribute())
    if (a.name() == "tflite_model") return a.s();
  return "";
}

std::vector<std::string> tflite_operator_outputs(const std::vector<std::uint8_t>& model_bytes) {
  onnx::ModelProto model;
  if (!model.ParseFromArray(model_bytes.data(), static_cast<int>(model_bytes.size())) || model.graph().node_size() != 1) return {};
  const auto& n = model.graph().node(0);
  return {n.output().begin(), n.output().end()};
}

OnnxModelInfo read_tflite_model_info(const std::vector<std::uint8_t>& model_bytes, const std::string& origin) {
  const compiler::Graph g = compiler::import_tflite_bytes(model_bytes, origin);
  auto describe = [&](const std::string& name) {
    const compiler::Tensor& t = g.tensor(name);
    TensorDesc d;
    d.name = name;
    const auto dtype = element_type_from_onnx(t.elem_type);
    if (!dtype)
      throw std::runtime_error(fmt::format("{}: value '{}' has element type {}, which the runtime cannot hold", origin, name,
                                           t.elem_type));
    d.dtype = *dtype;
    d.shape = t.shape;
    if (d.shape.size() == 4) d.layout = "NHWC";  // TFLite images are NHWC
    return d;
  };
  OnnxModelInfo info;
  for (const auto& in : g.inputs) info.inputs.push_back(describe(in));
  for (const auto& out : g.outputs) info.outputs.push_back(describe(out));
  return info;
}

OnnxModelInfo read_onnx_model_file_info(const std::string& path) {
  const auto bytes = isa::read_whole_file(path);
  if (!bytes) throw std::runtime_error(path + ": cannot open file: " + std::strerror(errno));
  if (compiler::model_format(*bytes) == compiler::ModelFormat::Tflite) return read_tflite_model_info(*bytes, path);
  return read_onnx_model_info(*bytes, path);
}

}  // namespace npu::runtime
