// Tensors the runtime hands around: a descriptor (what a tensor is and where it lives) and
// host tensors (contiguous bytes in C order, ONNX semantics: NCHW, the model's own dtype).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "container/npy_file.h"

namespace npu::runtime {

// Element types a host tensor can hold: those of ONNX that have a numpy equivalent.
enum class ElementType : std::uint8_t {
  Float32, Float16, Float64, Int8, UInt8, Int16, UInt16, Int32, UInt32, Int64, UInt64, Bool
};

std::string_view element_type_name(ElementType t);  // numpy's name: "float32", "int64", ...
std::size_t element_bytes(ElementType t);
std::string npy_descr(ElementType t);               // "f4", "i8", "b1", ...
std::optional<ElementType> element_type_from_npy(const std::string& descr);
int onnx_elem_type(ElementType t);                  // onnx::TensorProto::DataType value
std::optional<ElementType> element_type_from_onnx(int elem_type);

enum class TensorDevice : std::uint8_t { Host, Npu };

// What a tensor is and where it lives; the runtime checks user tensors against these.
struct TensorDesc {
  std::string name;
  ElementType dtype = ElementType::Float32;
  std::vector<std::int64_t> shape;        // in `layout` order; -1: any size
  std::string layout;                     // "NCHW", "NHWC", "NC", ... ("" when rank < 2)
  std::vector<std::int64_t> strides_bytes;  // empty: contiguous C order
  std::size_t alignment_bytes = 1;        // required alignment of the first element
  TensorDevice device = TensorDevice::Host;
  float scale = 0.0f;                     // int8 NPU tensors: real = scale * (q - zero_point)
  std::int32_t zero_point = 0;
  bool constrained = true;                // false: nothing is known (no step reads it); anything goes

  std::uint64_t element_count() const;
  std::uint64_t size_bytes() const { return element_count() * element_bytes(dtype); }
};

// A tensor in host memory, contiguous in C order. Model inputs and outputs are these.
struct HostTensor {
  ElementType dtype = ElementType::Float32;
  std::vector<std::int64_t> shape;
  std::vector<std::uint8_t> bytes;

  std::uint64_t element_count() const;
  template <typename T> const T* data() const { return reinterpret_cast<const T*>(bytes.data()); }
  template <typename T> T* data() { return reinterpret_cast<T*>(bytes.data()); }
};

HostTensor make_host_tensor(ElementType dtype, std::vector<std::int64_t> shape);
HostTensor from_npy(const container::NpyArray& array, const std::string& origin);  // throws for unknown dtypes
container::NpyArray to_npy(const HostTensor& tensor);

// "1x3x224x224" ("scalar" for rank 0; -1 dims print as "?").
std::string shape_text(const std::vector<std::int64_t>& shape);
// "float32[1x3x224x224] NCHW": how error messages and notes describe a tensor.
std::string describe(const TensorDesc& desc);

// Memory owned by someone else (a numpy array, a driver buffer): maybe strided, maybe
// misaligned. The runtime works on contiguous host tensors and says when it had to copy.
struct TensorView {
  ElementType dtype = ElementType::Float32;
  std::vector<std::int64_t> shape;
  const std::uint8_t* data = nullptr;
  std::vector<std::int64_t> strides_bytes;  // empty: contiguous C order
};

// Copies a view into a contiguous host tensor. `why` gets the reason when the layout of the
// view itself forced the copy ("non-contiguous strides", "misaligned by 2 bytes"), empty
// when the view was already contiguous and aligned to `alignment_bytes`.
HostTensor copy_view(const TensorView& view, std::size_t alignment_bytes, std::string* why);

}  // namespace npu::runtime
