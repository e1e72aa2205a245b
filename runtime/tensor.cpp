#include "runtime/tensor.h"

#include <cstring>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

namespace npu::runtime {

namespace {

struct TypeInfo {
  ElementType type;
  const char* name;
  const char* npy;
  std::size_t bytes;
  int onnx;  // onnx::TensorProto::DataType
};

constexpr TypeInfo kTypes[] = {
    {ElementType::Float32, "float32", "f4", 4, 1},  {ElementType::Float16, "float16", "f2", 2, 10},
    {ElementType::Float64, "float64", "f8", 8, 11}, {ElementType::Int8, "int8", "i1", 1, 3},
    {ElementType::UInt8, "uint8", "u1", 1, 2},      {ElementType::Int16, "int16", "i2", 2, 5},
    {ElementType::UInt16, "uint16", "u2", 2, 4},    {ElementType::Int32, "int32", "i4", 4, 6},
    {ElementType::UInt32, "uint32", "u4", 4, 12},   {ElementType::Int64, "int64", "i8", 8, 7},
    {ElementType::UInt64, "uint64", "u8", 8, 13},   {ElementType::Bool, "bool", "b1", 1, 9},
};

const TypeInfo& info(ElementType t) {
  for (const auto& i : kTypes)
    if (i.type == t) return i;
  throw std::logic_error("unknown ElementType");
}

std::uint64_t count_of(const std::vector<std::int64_t>& shape) {
  return std::accumulate(shape.begin(), shape.end(), std::uint64_t{1},
                         [](std::uint64_t a, std::int64_t d) { return a * static_cast<std::uint64_t>(d < 0 ? 0 : d); });
}

}  // namespace

std::string_view element_type_name(ElementType t) { return info(t).name; }
std::size_t element_bytes(ElementType t) { return info(t).bytes; }
std::string npy_descr(ElementType t) { return info(t).npy; }
int onnx_elem_type(ElementType t) { return info(t).onnx; }

std::optional<ElementType> element_type_from_npy(const std::string& descr) {
  for (const auto& i : kTypes)
    if (descr == i.npy) return i.type;
  return std::nullopt;
}

std::optional<ElementType> element_type_from_onnx(int elem_type) {
  for (const auto& i : kTypes)
    if (elem_type == i.onnx) return i.type;
  return std::nullopt;
}

std::uint64_t TensorDesc::element_count() const { return count_of(shape); }
std::uint64_t HostTensor::element_count() const { return count_of(shape); }

HostTensor make_host_tensor(ElementType dtype, std::vector<std::int64_t> shape) {
  HostTensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.bytes.assign(t.element_count() * element_bytes(dtype), 0);
  return t;
}

HostTensor from_npy(const container::NpyArray& array, const std::string& origin) {
  const auto dtype = element_type_from_npy(array.dtype);
  if (!dtype) throw std::runtime_error(fmt::format("{}: numpy dtype '{}' is not supported", origin, array.dtype));
  HostTensor t;
  t.dtype = *dtype;
  t.shape = array.shape;
  t.bytes = array.data;
  return t;
}

container::NpyArray to_npy(const HostTensor& tensor) {
  container::NpyArray a;
  a.dtype = npy_descr(tensor.dtype);
  a.shape = tensor.shape;
  a.data = tensor.bytes;
  return a;
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  if (shape.empty()) return "scalar";
  std::string s;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += 'x';
    s += shape[i] < 0 ? "?" : std::to_string(shape[i]);
  }
  return s;
}

std::string describe(const TensorDesc& desc) {
  std::string s = fmt::format("{}[{}]", element_type_name(desc.dtype), shape_text(desc.shape));
  if (!desc.layout.empty()) s += " " + desc.layout;
  return s;
}

HostTensor copy_view(const TensorView& view, std::size_t alignment_bytes, std::string* why) {
  const std::size_t elem = element_bytes(view.dtype);
  HostTensor out = make_host_tensor(view.dtype, view.shape);
  const std::size_t rank = view.shape.size();

  std::vector<std::int64_t> contiguous(rank);
  std::int64_t stride = static_cast<std::int64_t>(elem);
  for (std::size_t i = rank; i-- > 0;) {
    contiguous[i] = stride;
    stride *= view.shape[i];
  }
  const auto& strides = view.strides_bytes.empty() ? contiguous : view.strides_bytes;
  if (strides.size() != rank) throw std::runtime_error("tensor view: strides and shape differ in rank");

  std::string reason;
  if (strides != contiguous) reason = "non-contiguous strides";
  const auto misalignment = alignment_bytes > 1 ? reinterpret_cast<std::uintptr_t>(view.data) % alignment_bytes : 0;
  if (misalignment != 0)
    reason += fmt::format("{}misaligned by {} bytes (needs {})", reason.empty() ? "" : ", ", misalignment,
                          alignment_bytes);
  if (why) *why = reason;

  if (strides == contiguous) {
    std::memcpy(out.bytes.data(), view.data, out.bytes.size());
    return out;
  }
  // Walk the elements in C order with an odometer over the dimensions.
  std::vector<std::int64_t> index(rank, 0);
  const std::uint64_t n = out.element_count();
  for (std::uint64_t e = 0; e < n; ++e) {
    std::int64_t offset = 0;
    for (std::size_t d = 0; d < rank; ++d) offset += index[d] * strides[d];
    std::memcpy(out.bytes.data() + e * elem, view.data + offset, elem);
    for (std::size_t d = rank; d-- > 0;) {
      if (++index[d] < view.shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

}  // namespace npu::runtime
