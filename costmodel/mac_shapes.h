// The operands of a gemm or conv instruction as the MAC array reads them: decoded once here so
// the simulator (timing, checks, kernels) and the compiler's estimates see the same shapes.
#pragma once
#include <cstdint>

#include "isa/instruction.h"
#include "isa/operands.h"

namespace npu::cost {

// Output size of a window sweep: (in + pads - dilation*(kernel-1) - 1) / stride + 1, or 0 when
// the dilated window does not fit the padded input (the ISA table's window_out).
std::uint64_t window_out_dim(std::uint64_t in, std::uint64_t pads, std::uint64_t kernel, std::uint64_t dilation,
                             std::uint64_t stride);

// The instruction's swap and depthwise fields (isa/instruction_set.def): timing only.
struct ArrayMapping {
  bool swap = false;
  bool depthwise = false;
};

// How gemm's B is stored (fields b_format, b_group): as A's type, or int8 / packed int4 with
// fp16 scales per column and group of rows (fp16 A), or packed int4 without scales (int8 A). The
// packed sizes are the ISA table's size rules (isa/operands.h: weight_bytes, weight_scale_bytes);
// the MAC array's traffic, the compiler's tiler and its weight blocks ask for them here.
struct WeightStorage {
  isa::WeightFormat format = isa::WeightFormat::Same;
  std::uint64_t group = 0;  // rows of B per scale row; 0: all k rows (one scale per column)
  // false with int8 A (int4 B sign-extended): the column's scale is the drain's requantisation,
  // so no scale rows are stored or read.
  bool scaled = true;
  bool quantized() const { return format != isa::WeightFormat::Same; }
  bool has_scales() const { return quantized() && scaled; }
  std::uint64_t group_rows(std::uint64_t k) const { return isa::weight_group_rows(group, k); }
  std::uint64_t scale_rows(std::uint64_t k) const { return has_scales() ? (k + group_rows(k) - 1) / group_rows(k) : 0; }
  // Bytes of the k x n values (int4: two per byte, the last byte half used when k*n is odd);
  // elem_bytes 2 is fp16 A, 1 int8.
  std::uint64_t value_bytes(std::uint64_t k, std::uint64_t n, std::uint64_t elem_bytes) const {
    return isa::weight_bytes(format, k, n, elem_bytes == 2 ? isa::MacDType::Fp16 : isa::MacDType::Int8);
  }
  std::uint64_t scale_bytes(std::uint64_t k, std::uint64_t n) const {
    return has_scales() ? isa::weight_scale_bytes(group, k, n) : 0;
  }
};

struct GemmShape {
  std::uint64_t m = 0, n = 0, k = 0;
  bool fp16 = false, accumulate = false, swap = false;
  std::uint64_t a_addr = 0, b_addr = 0, c_addr = 0;
  bool b_transposed = false;                        // B stored n x k
  std::int64_t a_zero_point = 0, b_zero_point = 0;  // int8: subtracted from the operands
  WeightStorage b_storage;                          // weight-only quantisation of B
  std::uint64_t b_scale_addr = 0;
  static GemmShape of(const isa::Instruction& inst);
};

struct ConvShape {
  std::uint64_t in_h = 0, in_w = 0, in_c = 0, out_c = 0, kernel_h = 1, kernel_w = 1;
  std::uint64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  std::uint64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0, groups = 1;
  std::uint64_t out_h = 0, out_w = 0;  // 0 when the dilated window does not fit the padded input
  std::int64_t pad_value = 0;
  bool fp16 = false, accumulate = false;
  ArrayMapping mapping;
  std::uint64_t in_addr = 0, w_addr = 0, out_addr = 0;
  std::uint64_t in_stride = 0;  // elements between input pixels; 0: in_c
  std::uint64_t pixel_stride() const { return in_stride ? in_stride : in_c; }
  // Scratchpad elements the input tile spans (the last pixel's channels end it).
  std::uint64_t in_span() const { return in_h * in_w != 0 ? (in_h * in_w - 1) * pixel_stride() + in_c : 0; }
  std::uint64_t in_c_per_group() const { return in_c / groups; }
  std::uint64_t out_c_per_group() const { return out_c / groups; }
  // The equivalent gemm per group (what the array actually runs).
  std::uint64_t gemm_m() const { return out_h * out_w; }
  std::uint64_t gemm_k() const { return kernel_h * kernel_w * in_c_per_group(); }
  std::uint64_t gemm_n() const { return out_c_per_group(); }
  std::uint64_t macs() const { return groups * gemm_m() * gemm_k() * gemm_n(); }
  static ConvShape of(const isa::Instruction& inst);
};

}  // namespace npu::cost
