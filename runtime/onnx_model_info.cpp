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

#include <fcntl.h>

#include <limits>
#include <optional>

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>
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
  for (const auto& desc : info.inputs) {
    const auto found = g.tensors.find(desc.name + "/initial");
    if (found == g.tensors.end() || !found->second.is_constant) continue;
    const compiler::Tensor& t = found->second;
    const std::size_t n = static_cast<std::size_t>(t.elements());
    if (t.shape != desc.shape || (t.floats.size() != n && t.ints.size() != n)) continue;
    HostTensor value = make_host_tensor(desc.dtype, desc.shape);
    auto fill = [&](auto* out) {
      for (std::size_t i = 0; i < n; ++i)
        out[i] = static_cast<std::remove_pointer_t<decltype(out)>>(t.floats.empty() ? static_cast<double>(t.ints[i]) : t.floats[i]);
    };
    if (desc.dtype == ElementType::Float32) fill(value.data<float>());
    else if (desc.dtype == ElementType::Int8) fill(value.data<std::int8_t>());
    else if (desc.dtype == ElementType::UInt8) fill(value.data<std::uint8_t>());
    else if (desc.dtype == ElementType::Int16) fill(value.data<std::int16_t>());
    else if (desc.dtype == ElementType::Int32) fill(value.data<std::int32_t>());
    else continue;  // a type no state here takes: the caller generates it as any input
    info.initial_values.emplace(desc.name, std::move(value));
  }
  return info;
}

namespace {

namespace pbio = google::protobuf::io;
using google::protobuf::internal::WireFormatLite;

void write_bytes(pbio::CodedOutputStream& out, std::uint32_t field, const std::string& bytes) {
  out.WriteTag(WireFormatLite::MakeTag(static_cast<int>(field), WireFormatLite::WIRETYPE_LENGTH_DELIMITED));
  out.WriteVarint32(static_cast<std::uint32_t>(bytes.size()));
  out.WriteString(bytes);
}

// Copies the field whose tag was just read; false on a malformed or group field.
bool copy_field(pbio::CodedInputStream& in, std::uint32_t tag, pbio::CodedOutputStream& out) {
  out.WriteTag(tag);
  switch (WireFormatLite::GetTagWireType(tag)) {
    case WireFormatLite::WIRETYPE_VARINT: {
      std::uint64_t v;
      if (!in.ReadVarint64(&v)) return false;
      out.WriteVarint64(v);
      return true;
    }
    case WireFormatLite::WIRETYPE_FIXED64: {
      std::uint64_t v;
      if (!in.ReadLittleEndian64(&v)) return false;
      out.WriteLittleEndian64(v);
      return true;
    }
    case WireFormatLite::WIRETYPE_FIXED32: {
      std::uint32_t v;
      if (!in.ReadLittleEndian32(&v)) return false;
      out.WriteLittleEndian32(v);
      return true;
    }
    case WireFormatLite::WIRETYPE_LENGTH_DELIMITED: {
      std::uint32_t n;
      std::string bytes;
      if (!in.ReadVarint32(&n) || !in.ReadString(&bytes, static_cast<int>(n))) return false;
      out.WriteVarint32(n);
      out.WriteString(bytes);
      return true;
    }
    default: return false;
  }
}

// GraphProto with each initializer cut down to its name (field 8 of TensorProto).
bool copy_graph_without_weights(pbio::CodedInputStream& in, pbio::CodedOutputStream& out) {
  while (const std::uint32_t tag = in.ReadTag()) {
    if (tag != WireFormatLite::MakeTag(5, WireFormatLite::WIRETYPE_LENGTH_DELIMITED)) {
      if (!copy_field(in, tag, out)) return false;
      continue;
    }
    std::uint32_t n;
    if (!in.ReadVarint32(&n)) return false;
    const auto limit = in.PushLimit(static_cast<int>(n));
    std::string name;
    while (const std::uint32_t t = in.ReadTag()) {
      if (t == WireFormatLite::MakeTag(8, WireFormatLite::WIRETYPE_LENGTH_DELIMITED)) {
        if (!WireFormatLite::ReadString(&in, &name)) return false;
      } else if (!WireFormatLite::SkipField(&in, t)) {
        return false;
      }
    }
    if (!in.ConsumedEntireMessage()) return false;
    in.PopLimit(limit);
    std::string tensor;
    {
      pbio::StringOutputStream s(&tensor);
      pbio::CodedOutputStream o(&s);
      write_bytes(o, 8, name);
    }
    write_bytes(out, 5, tensor);
  }
  return true;
}

// The ONNX model at `path` without its weights' data, read as a stream: the runtime needs only
// the declared inputs and outputs, and reading ViT-B/16's 346 MB of weights whole and then parsed
// (twice its size) set the peak of `npusim run MODEL.onnx`. nullopt: not readable this way.
std::optional<std::string> model_without_weights(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return std::nullopt;
  pbio::FileInputStream file(fd);
  file.SetCloseOnDelete(true);
  pbio::CodedInputStream in(&file);
  in.SetTotalBytesLimit(std::numeric_limits<int>::max());
  std::string model;
  {
    pbio::StringOutputStream s(&model);
    pbio::CodedOutputStream out(&s);
    while (const std::uint32_t tag = in.ReadTag()) {
      if (tag != WireFormatLite::MakeTag(7, WireFormatLite::WIRETYPE_LENGTH_DELIMITED)) {
        if (!copy_field(in, tag, out)) return std::nullopt;
        continue;
      }
      std::uint32_t n;
      if (!in.ReadVarint32(&n)) return std::nullopt;
      const auto limit = in.PushLimit(static_cast<int>(n));
      std::string graph;
      {
        pbio::StringOutputStream gs(&graph);
        pbio::CodedOutputStream g(&gs);
        if (!copy_graph_without_weights(in, g)) return std::nullopt;
      }
      if (!in.ConsumedEntireMessage()) return std::nullopt;
      in.PopLimit(limit);
      write_bytes(out, 7, graph);
    }
    if (!in.ConsumedEntireMessage() || file.GetErrno() != 0) return std::nullopt;
  }
  return model;
}

}  // namespace

OnnxModelInfo read_onnx_model_file_info(const std::string& path) {
  {
    std::ifstream head(path, std::ios::binary);
    if (!head) throw std::runtime_error(path + ": cannot open file: " + std::strerror(errno));
    std::vector<std::uint8_t> first(8);
    head.read(reinterpret_cast<char*>(first.data()), static_cast<std::streamsize>(first.size()));
    first.resize(static_cast<std::size_t>(head.gcount()));
    if (compiler::model_format(first) != compiler::ModelFormat::Tflite)
      if (const auto model = model_without_weights(path))
        return read_onnx_model_info(std::vector<std::uint8_t>(model->begin(), model->end()), path);
  }
  const auto bytes = isa::read_whole_file(path);
  if (!bytes) throw std::runtime_error(path + ": cannot open file: " + std::strerror(errno));
  if (compiler::model_format(*bytes) == compiler::ModelFormat::Tflite) return read_tflite_model_info(*bytes, path);
  return read_onnx_model_info(*bytes, path);
}

}  // namespace npu::runtime
