// Moving tensors between the host's ONNX view (row-major in the model's own axes: NCHW or NHWC,
// float32, ...) and the NPU's view (int8 with scale/zero point, fp16; NHWC or row-major), as the
// program's tensor table records per tensor (layout and host_layout) — and saying exactly what
// was done.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "isa/program.h"
#include "runtime/tensor.h"

namespace npu::runtime {

// One conversion or copy the runtime made, for the report:
// "input x: converted float32 NCHW → int8 NHWC (quantised, scale 0.0123, zp -3), 602112 bytes"
struct Conversion {
  std::string tensor;
  std::string role;      // "input", "output", "to npu", "to cpu"
  std::string from;      // "float32 NCHW"
  std::string to;        // "int8 NHWC"
  std::string detail;    // "quantised, scale 0.0123, zp -3"; empty for a plain copy
  std::uint64_t bytes = 0;  // bytes written at the destination
  bool converted = false;   // false: copied unchanged

  std::string text() const;
};

// The descriptor of an NPU tensor of the program (its DDR shape, layout and quantisation).
// For each element of the host's row-major tensor, its element index in the NPU tensor's bytes
// (NCHW -> NHWC, or a strided[...] view): empty when the two orders are the same dense bytes.
std::vector<std::uint64_t> npu_positions(const isa::TensorEntry& entry);

TensorDesc npu_tensor_desc(const isa::TensorEntry& entry);
// What the host sees of the same tensor: its host layout (entry.host_layout: NCHW for NHWC
// bytes, otherwise the bytes as stored) and `host_dtype`. Throws, naming the tensor, when the
// entry has no host layout or one the runtime cannot convert from its layout.
TensorDesc host_view_of(const isa::TensorEntry& entry, ElementType host_dtype);

// Host tensor (host layout) → bytes for DDR in the entry's dtype and layout. The host tensor's
// shape must already have been checked against host_view_of(entry).
std::vector<std::uint8_t> to_npu(const HostTensor& host, const isa::TensorEntry& entry, const std::string& role,
                                 Conversion* record);

// DDR bytes of an NPU tensor → host tensor in its host layout, dequantised/widened to `host_dtype`.
HostTensor from_npu(const std::vector<std::uint8_t>& bytes, const isa::TensorEntry& entry, ElementType host_dtype,
                    const std::string& role, Conversion* record);

// Element-wise conversion between host types (used when a CPU step wants another dtype).
HostTensor cast(const HostTensor& tensor, ElementType to);

// Quantisation the runtime applies to int8 inputs: q = clamp(round_half_even(x / scale) + zp).
std::int8_t quantize_int8(float x, float scale, std::int32_t zero_point);

}  // namespace npu::runtime
