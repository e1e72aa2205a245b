#include "costmodel/mac_cost.h"

namespace npu::cost {

bool flexible_mapping(const MacArrayConfig& config) { return config.mapping == "flexible"; }

MacArrayCost::MacArrayCost(const MacArrayConfig& config)
    : dataflow_(make_dataflow(config)),
      fp16_factor_(static_cast<std::uint64_t>(config.fp16_cycles_per_op)),
      overhead_cycles_(static_cast<std::uint64_t>(config.instruction_overhead_cycles)) {}

std::uint64_t MacArrayCost::array_cycles(std::uint64_t m, std::uint64_t n, std::uint64_t k, bool fp16, bool swap) const {
  return (swap ? dataflow_->gemm_cycles(n, m, k) : dataflow_->gemm_cycles(m, n, k)) * (fp16 ? fp16_factor_ : 1);
}

std::uint64_t MacArrayCost::gemm_cycles(std::uint64_t m, std::uint64_t n, std::uint64_t k, bool fp16, bool swap) const {
  return overhead_cycles_ + array_cycles(m, n, k, fp16, swap);
}

std::uint64_t MacArrayCost::conv_cycles(std::uint64_t groups, std::uint64_t m, std::uint64_t n, std::uint64_t k,
                                        bool fp16, ArrayMapping mapping) const {
  if (mapping.depthwise) return overhead_cycles_ + array_cycles(m, groups * n, k, fp16, mapping.swap);
  return overhead_cycles_ + groups * array_cycles(m, n, k, fp16, mapping.swap);
}

SramTraffic MacArrayCost::gemm_traffic(std::uint64_t m, std::uint64_t n, std::uint64_t k, bool fp16,
                                       bool accumulate, bool swap) const {
  const std::uint64_t es = fp16 ? 2 : 1, c = m * n * 4;
  const std::uint64_t a_bytes = m * k * es, b_bytes = k * n * es;
  if (swap) {  // the exchanged gemm streams B^T as its A and A^T as its B
    const OperandPasses p = dataflow_->operand_passes(n, m, k);
    return {b_bytes * p.a + a_bytes * p.b + (accumulate ? c : 0), c};
  }
  const OperandPasses p = dataflow_->operand_passes(m, n, k);
  return {a_bytes * p.a + b_bytes * p.b + (accumulate ? c : 0), c};
}

SramTraffic MacArrayCost::conv_traffic(std::uint64_t groups, std::uint64_t m, std::uint64_t n, std::uint64_t k,
                                       bool fp16, bool accumulate, ArrayMapping mapping) const {
  if (mapping.depthwise) {
    const std::uint64_t es = fp16 ? 2 : 1, c = m * groups * n * 4;
    return {m * k * groups * es + k * groups * n * es + (accumulate ? c : 0), c};
  }
  const SramTraffic g = gemm_traffic(m, n, k, fp16, accumulate, mapping.swap);
  return {g.read * groups, g.written * groups};
}

std::uint64_t MacArrayCost::instruction_cycles(const isa::Instruction& inst) const {
  if (inst.opcode == isa::Opcode::Gemm) return cycles(GemmShape::of(inst));
  return cycles(ConvShape::of(inst));
}

}  // namespace npu::cost
