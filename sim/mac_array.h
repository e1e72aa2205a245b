// The MAC array: gemm and conv instructions. Timing comes from the cost model (the configured
// dataflow's closed form per tile, and the instruction's mapping); the arithmetic is the same
// for every dataflow and mapping:
//   int8 x int8 -> int32 accumulators (two's-complement wrap-around on overflow), gemm's
//   operands minus their zero points ((a - za) * (b - zb), exact in int32 per product),
//   fp16 x fp16 -> fp32 accumulators (each product is exact in fp32; sums in k order);
//   weight-only B (int8 / packed int4, b_format) is dequantised to fp16 first, then as fp16.
#pragma once
#include <cstdint>
#include <memory>

#include "costmodel/mac_cost.h"
#include "costmodel/mac_shapes.h"
#include "hwconfig/hardware_config.h"
#include "isa/instruction.h"

namespace npu::sim {

using cost::ConvShape;
using cost::GemmShape;
using cost::SramTraffic;

class MacArray {
 public:
  explicit MacArray(const MacArrayConfig& config) : cost_(config) {}
  // With the config's scratchpad access time (sram.access_cycles / sram.timing).
  explicit MacArray(const HardwareConfig& config) : cost_(config) {}
  // Whether the array offers the swap and depthwise mappings (mac_array.mapping: flexible).
  bool flexible() const { return cost_.flexible(); }
  // Timing and traffic from the cost model (costmodel/mac_cost.h).
  std::uint64_t gemm_cycles(const GemmShape& s) const { return cost_.cycles(s); }
  std::uint64_t conv_cycles(const ConvShape& s) const { return cost_.cycles(s); }
  std::uint64_t drain_cycles() const { return cost_.drain_cycles(); }
  SramTraffic gemm_traffic(const GemmShape& s) const { return cost_.traffic(s); }
  SramTraffic conv_traffic(const ConvShape& s) const { return cost_.traffic(s); }
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
