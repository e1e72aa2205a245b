// Cycles and scratchpad traffic of the MAC array's instructions: the configured dataflow's
// closed form per gemm (dataflow.h), the fp16 rate, and a conv as its per-group gemm times
// groups. The simulator times gemm/conv instructions with this; the compiler's tiler
// estimates tiles with the same calls.
#pragma once
#include <cstdint>
#include <memory>

#include "costmodel/dataflow.h"
#include "hwconfig/hardware_config.h"

namespace npu::cost {

// Scratchpad bytes one compute instruction moves, as the array streams its operands.
struct SramTraffic {
  std::uint64_t read = 0, written = 0;
};

class MacArrayCost {
 public:
  explicit MacArrayCost(const MacArrayConfig& config);
  // folds * per-fold cycles (dataflow), times fp16_cycles_per_op for fp16.
  std::uint64_t gemm_cycles(std::uint64_t m, std::uint64_t n, std::uint64_t k, bool fp16) const;
  // A conv is its per-group gemm (m = out_h*out_w, k = kh*kw*in_c/groups, n = out_c/groups)
  // run `groups` times.
  std::uint64_t conv_cycles(std::uint64_t groups, std::uint64_t m, std::uint64_t n, std::uint64_t k, bool fp16) const;
  // read = A bytes * passes.a + B bytes * passes.b (+ C when accumulating), written = C, with
  // C as int32/fp32 accumulators. Conv: the per-group gemm (A is the im2col view, padded
  // positions included) times groups.
  SramTraffic gemm_traffic(std::uint64_t m, std::uint64_t n, std::uint64_t k, bool fp16, bool accumulate) const;
  SramTraffic conv_traffic(std::uint64_t groups, std::uint64_t m, std::uint64_t n, std::uint64_t k, bool fp16,
                           bool accumulate) const;
  const DataflowModel& dataflow() const { return *dataflow_; }

 private:
  std::unique_ptr<DataflowModel> dataflow_;
  std::uint64_t fp16_factor_;
};

}  // namespace npu::cost
