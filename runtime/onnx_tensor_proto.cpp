// ONNX TensorProto (.pb) → HostTensor, with ONNX's own protobuf schema (libonnx).
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include "runtime/tensor_file.h"

namespace npu::runtime {

namespace {

// Typed repeated fields store small integer types widened to int32 (fp16 as its bit
// pattern), as onnx.numpy_helper does.
template <typename Repeated>
void copy_widened(const Repeated& values, HostTensor& t, const std::string& origin) {
  if (static_cast<std::uint64_t>(values.size()) != t.element_count())
    throw std::runtime_error(fmt::format("{}: TensorProto holds {} values for shape {}", origin, values.size(),
                                         shape_text(t.shape)));
  const std::size_t elem = element_bytes(t.dtype);
  for (int i = 0; i < values.size(); ++i) {
    const auto v = values.Get(i);
    switch (t.dtype) {
      case ElementType::Float32: { const float f = static_cast<float>(v); std::memcpy(&t.bytes[i * elem], &f, 4); break; }
      case ElementType::Float64: { const double d = static_cast<double>(v); std::memcpy(&t.bytes[i * elem], &d, 8); break; }
      default: {
        // Integers: the low `elem` bytes of the little-endian value are the element.
        const auto wide = static_cast<std::uint64_t>(v);
        std::memcpy(&t.bytes[i * elem], &wide, elem);
      }
    }
  }
}

}  // namespace

TensorFile parse_onnx_tensor(const std::string& bytes, const std::string& origin) {
  onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes))
    throw std::runtime_error(origin + ": neither a .npy file nor an ONNX TensorProto");
  if (proto.has_data_location() && proto.data_location() == onnx::TensorProto::EXTERNAL)
    throw std::runtime_error(origin + ": TensorProto with external data is not supported");
  const auto dtype = element_type_from_onnx(proto.data_type());
  if (!dtype)
    throw std::runtime_error(fmt::format("{}: TensorProto element type {} is not supported (not a numeric tensor)",
                                         origin, proto.data_type()));
  std::vector<std::int64_t> shape(proto.dims().begin(), proto.dims().end());
  // Count before allocating: other protos (SequenceProto, OptionalProto) parse as TensorProtos
  // with nonsense dims, and a file must never make us allocate what it does not hold.
  std::uint64_t count = 1;
  for (auto d : shape) {
    if (d < 0) throw std::runtime_error(fmt::format("{}: TensorProto has a negative dimension {}", origin, d));
    if (d > 0 && count > (std::uint64_t{1} << 40) / static_cast<std::uint64_t>(d))
      throw std::runtime_error(fmt::format("{}: TensorProto shape {} is implausibly large", origin, shape_text(shape)));
    count *= static_cast<std::uint64_t>(d);
  }
  const std::uint64_t bytes_needed = count * element_bytes(*dtype);
  const std::uint64_t values = proto.has_raw_data() ? proto.raw_data().size() / element_bytes(*dtype)
                               : std::max<std::uint64_t>({static_cast<std::uint64_t>(proto.float_data_size()),
                                                          static_cast<std::uint64_t>(proto.int32_data_size()),
                                                          static_cast<std::uint64_t>(proto.int64_data_size()),
                                                          static_cast<std::uint64_t>(proto.double_data_size()),
                                                          static_cast<std::uint64_t>(proto.uint64_data_size())});
  if (proto.has_raw_data() ? proto.raw_data().size() != bytes_needed : values != count)
    throw std::runtime_error(fmt::format(
        "{}: TensorProto holds {} for shape {} of {} (needs {}); only plain tensors are supported, not sequences "
        "or optionals",
        origin, proto.has_raw_data() ? fmt::format("raw_data of {} bytes", proto.raw_data().size())
                                     : fmt::format("{} values", values),
        shape_text(shape), element_type_name(*dtype),
        proto.has_raw_data() ? fmt::format("{} bytes", bytes_needed) : fmt::format("{} values", count)));
  TensorFile file{make_host_tensor(*dtype, shape), proto.name()};
  HostTensor& t = file.tensor;

  if (proto.has_raw_data()) {
    if (!t.bytes.empty()) std::memcpy(t.bytes.data(), proto.raw_data().data(), t.bytes.size());
    return file;
  }
  switch (*dtype) {
    case ElementType::Float32: {
      if (static_cast<std::uint64_t>(proto.float_data_size()) != t.element_count())
        throw std::runtime_error(fmt::format("{}: TensorProto holds {} floats for shape {}", origin,
                                             proto.float_data_size(), shape_text(shape)));
      if (!t.bytes.empty()) std::memcpy(t.bytes.data(), proto.float_data().data(), t.bytes.size());  // empty: null data
      break;
    }
    case ElementType::Float64: copy_widened(proto.double_data(), t, origin); break;
    case ElementType::Int64: copy_widened(proto.int64_data(), t, origin); break;
    case ElementType::UInt32:
    case ElementType::UInt64: copy_widened(proto.uint64_data(), t, origin); break;
    default: copy_widened(proto.int32_data(), t, origin); break;  // int8..int32, uint8/16, bool, fp16 bits
  }
  return file;
}

}  // namespace npu::runtime
