// The MAC array: gemm and conv instructions. Timing comes from the cost model (the configured
// dataflow's closed form per tile); the arithmetic is the same for every dataflow:
//   int8 x int8 -> int32 accumulators (two's-complement wrap-around on overflow), gemm's
//   operands minus their zero points ((a - za) * (b - zb), exact in int32 per product),
//   fp16 x fp16 -> fp32 accumulators (each product is exact in fp32; sums in k order).
#pragma once
#include <cstdint>
#include <memory>

#include "costmodel/mac_cost.h"
#include "hwconfig/hardware_config.h"
#include "isa/instruction.h"

namespace npu::sim {

struct GemmShape {
  std::uint64_t m = 0, n = 0, k = 0;
  bool fp16 = false, accumulate = false;
  std::uint64_t a_addr = 0, b_addr = 0, c_addr = 0;
  bool b_transposed = false;  // B stored n x k
  std::int64_t a_zero_point = 0, b_zero_point = 0;  // int8: subtracted from the operands
  static GemmShape of(const isa::Instruction& inst);
};

struct ConvShape {
  std::uint64_t in_h = 0, in_w = 0, in_c = 0, out_c = 0, kernel_h = 1, kernel_w = 1;
  std::uint64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  std::uint64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0, groups = 1;
  std::uint64_t out_h = 0, out_w = 0;  // 0 when the dilated window does not fit the padded input
  std::int64_t pad_value = 0;
  bool fp16 = false, accumulate = false;
  std::uint64_t in_addr = 0, w_addr = 0, out_addr = 0;
  std::uint64_t in_c_per_group() const { return in_c / groups; }
  std::uint64_t out_c_per_group() const { return out_c / groups; }
  // The equivalent gemm per group (what the array actually runs).
  std::uint64_t gemm_m() const { return out_h * out_w; }
  std::uint64_t gemm_k() const { return kernel_h * kernel_w * in_c_per_group(); }
  std::uint64_t gemm_n() const { return out_c_per_group(); }
  std::uint64_t macs() const { return groups * gemm_m() * gemm_k() * gemm_n(); }
  static ConvShape of(const isa::Instruction& inst);
};

using cost::SramTraffic;

class MacArray {
 public:
  explicit MacArray(const MacArrayConfig& config) : cost_(config) {}
  // Timing and traffic from the cost model (costmodel/mac_cost.h).
  std::uint64_t gemm_cycles(const GemmShape& s) const;
  std::uint64_t conv_cycles(const ConvShape& s) const;
  SramTraffic gemm_traffic(const GemmShape& s) const;
  SramTraffic conv_traffic(const ConvShape& s) const;
  // Functional execution on the scratchpad bytes (addresses already validated).
  void execute(const isa::Instruction& inst, std::uint8_t* sram) const;

 private:
  cost::MacArrayCost cost_;
};

// Kernels (mac_kernels.cpp).
void gemm_int8(const GemmShape& s, std::uint8_t* sram);
void gemm_fp16(const GemmShape& s, std::uint8_t* sram);
void conv_int8(const ConvShape& s, std::uint8_t* sram);
void conv_fp16(const ConvShape& s, std::uint8_t* sram);

}  // namespace npu::sim
