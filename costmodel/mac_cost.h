// Cycles and scratchpad traffic of the MAC array's instructions: the configured dataflow's
// closed form per gemm (dataflow.h), the fp16 rate, and a conv as its per-group gemm times
// groups. Two mappings change only the timing (the arithmetic is the same): `swap` holds the
// activations stationary and streams the weights (the gemm with m and n exchanged), and
// `depthwise` runs a conv with one input and one output channel per group as one gemm with
// the channels across the array's columns and the window's taps across its rows. The
// simulator times gemm/conv instructions with this; the compiler's tiler estimates tiles with
// the same calls.
#pragma once
#include <cstdint>
#include <memory>

#include "costmodel/dataflow.h"
#include "costmodel/mac_shapes.h"
#include "hwconfig/hardware_config.h"

namespace npu::cost {

// Scratchpad bytes one compute instruction moves, as the array streams its operands.
struct SramTraffic {
  std::uint64_t read = 0, written = 0;
};

// Whether the config's array offers the swap and depthwise mappings (mac_array.mapping).
bool flexible_mapping(const MacArrayConfig& config);

class MacArrayCost {
 public:
  // sram_access_cycles: cycles from a scratchpad read request to its data (sram.access_cycles).
  // drain_latency_cycles: the output stage's pipeline depth (vector.latency_cycles).
  explicit MacArrayCost(const MacArrayConfig& config, int sram_access_cycles = 1,
                        int drain_latency_cycles = VectorConfig{}.latency_cycles);
  // The array, the config's scratchpad access time (hwconfig sram_access_cycles) and its
  // vector pipeline latency.
  explicit MacArrayCost(const HardwareConfig& config);
  // Every gemm/conv instruction costs mac_array.instruction_overhead_cycles plus its array
  // cycles (below), once per instruction however many groups a conv has.
  // folds * per-fold cycles (dataflow), times fp16_cycles_per_op for fp16; swap: the
  // dataflow's gemm of n x k by k x m. Weight-only B (int8/int4): the fp16 gemm plus the
  // dequantiser's mac_array.dequant_int8/int4_cycles_per_fold per fold. Plus
  // (sram_access_cycles - 1) per fold: each fold's first operand read waits for the scratchpad
  // (the dataflows' closed forms assume data in the cycle it is asked for).
  std::uint64_t gemm_cycles(std::uint64_t m, std::uint64_t n, std::uint64_t k, bool fp16, bool swap = false,
                            isa::WeightFormat b_format = isa::WeightFormat::Same) const;
  // A conv is its per-group gemm (m = out_h*out_w, k = kh*kw*in_c/groups, n = out_c/groups)
  // run `groups` times; depthwise (k = kh*kw, n = 1): one gemm with n = groups.
  std::uint64_t conv_cycles(std::uint64_t groups, std::uint64_t m, std::uint64_t n, std::uint64_t k, bool fp16,
                            ArrayMapping mapping = {}, isa::WeightFormat b_format = isa::WeightFormat::Same) const;
  // read = A bytes * passes.a + B bytes * passes.b (+ C when accumulating), written = C, with
  // C as int32/fp32 accumulators (swap: the passes of the exchanged gemm); weight-only B at its
  // packed size, its scales read once per pass of B. Conv: the per-group
  // gemm (A is the im2col view, padded positions included) times groups; depthwise: every
  // column streams its own channel's im2col view once, the weights are read once.
  SramTraffic gemm_traffic(std::uint64_t m, std::uint64_t n, std::uint64_t k, bool fp16, bool accumulate,
                           bool swap = false, const WeightStorage& b_storage = {}) const;
  SramTraffic conv_traffic(std::uint64_t groups, std::uint64_t m, std::uint64_t n, std::uint64_t k, bool fp16,
                           bool accumulate, ArrayMapping mapping = {}) const;
  // The same for a decoded instruction.
  std::uint64_t cycles(const GemmShape& s) const {
    return gemm_cycles(s.m, s.n, s.k, s.fp16, s.swap, s.b_storage.format);
  }
  std::uint64_t cycles(const ConvShape& s) const {
    return conv_cycles(s.groups, s.gemm_m(), s.gemm_n(), s.gemm_k(), s.fp16, s.mapping);
  }
  SramTraffic traffic(const GemmShape& s) const {
    return gemm_traffic(s.m, s.n, s.k, s.fp16, s.accumulate, s.swap, s.b_storage);
  }
  SramTraffic traffic(const ConvShape& s) const {
    return conv_traffic(s.groups, s.gemm_m(), s.gemm_n(), s.gemm_k(), s.fp16, s.accumulate, s.mapping);
  }
  // Whether the array offers the swap and depthwise mappings (mac_array.mapping: flexible).
  bool flexible() const { return flexible_; }
  // The drain of a conv/gemm's accumulators through the array's output stage (bias and
  // requantisation as they leave the array): its pipeline latency only. The stage takes
  // mac_array.cols results per cycle, and no dataflow makes them faster than that (WS and IS
  // spend at least out_elements / cols cycles streaming, OS at least R per fold of R x C).
  std::uint64_t drain_cycles() const { return drain_cycles_; }
  // A gemm, conv or drain instruction's cycles.
  std::uint64_t instruction_cycles(const isa::Instruction& inst) const;
  const DataflowModel& dataflow() const { return *dataflow_; }

 private:
  // One gemm on the array, without the instruction's overhead.
  std::uint64_t array_cycles(std::uint64_t m, std::uint64_t n, std::uint64_t k, bool fp16, bool swap,
                             isa::WeightFormat b_format) const;

  std::unique_ptr<DataflowModel> dataflow_;
  std::uint64_t fp16_factor_;
  std::uint64_t dequant_int8_cycles_, dequant_int4_cycles_;
  std::uint64_t fold_wait_cycles_;  // sram_access_cycles - 1
  std::uint64_t overhead_cycles_;
  std::uint64_t drain_cycles_;
  bool flexible_;
  std::uint64_t cols_;
  std::uint64_t depthwise_columns_;  // 0: every column
};

}  // namespace npu::cost
