#include "costmodel/mac_cost.h"

namespace npu::cost {

MacArrayCost::MacArrayCost(const MacArrayConfig& config)
    : dataflow_(make_dataflow(config)), fp16_factor_(static_cast<std::uint64_t>(config.fp16_cycles_per_op)) {}

std::uint64_t MacArrayCost::gemm_cycles(std::uint64_t m, std::uint64_t n, std::uint64_t k, bool fp16) const {
  return dataflow_->gemm_cycles(m, n, k) * (fp16 ? fp16_factor_ : 1);
}

std::uint64_t MacArrayCost::conv_cycles(std::uint64_t groups, std::uint64_t m, std::uint64_t n, std::uint64_t k,
                                        bool fp16) const {
  return groups * gemm_cycles(m, n, k, fp16);
}

SramTraffic MacArrayCost::gemm_traffic(std::uint64_t m, std::uint64_t n, std::uint64_t k, bool fp16,
                                       bool accumulate) const {
  const OperandPasses p = dataflow_->operand_passes(m, n, k);
  const std::uint64_t es = fp16 ? 2 : 1, c = m * n * 4;
  return {m * k * es * p.a + k * n * es * p.b + (accumulate ? c : 0), c};
}

SramTraffic MacArrayCost::conv_traffic(std::uint64_t groups, std::uint64_t m, std::uint64_t n, std::uint64_t k,
                                       bool fp16, bool accumulate) const {
  const SramTraffic g = gemm_traffic(m, n, k, fp16, accumulate);
  return {g.read * groups, g.written * groups};
}

}  // namespace npu::cost
