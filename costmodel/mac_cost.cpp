#include "costmodel/mac_cost.h"

#include <algorithm>

#include "hwconfig/design_costs.h"

namespace npu::cost {

bool flexible_mapping(const MacArrayConfig& config) { return config.mapping == MacArrayMapping::Flexible; }

MacArrayCost::MacArrayCost(const MacArrayConfig& config, int sram_access_cycles, int drain_latency_cycles)
    : dataflow_(make_dataflow(config)),
      fp16_factor_(static_cast<std::uint64_t>(config.fp16_cycles_per_op)),
      dequant_int8_cycles_(static_cast<std::uint64_t>(config.dequant_int8_cycles_per_fold)),
      dequant_int4_cycles_(static_cast<std::uint64_t>(config.dequant_int4_cycles_per_fold)),
      fold_wait_cycles_(static_cast<std::uint64_t>(std::max(1, sram_access_cycles) - 1)),
      overhead_cycles_(static_cast<std::uint64_t>(config.instruction_overhead_cycles)),
      drain_cycles_(static_cast<std::uint64_t>(std::max(0, drain_latency_cycles))),
      flexible_(flexible_mapping(config)),
      cols_(static_cast<std::uint64_t>(config.cols)),
      depthwise_columns_(config.depthwise_columns > 0 && config.depthwise_columns < config.cols
                             ? static_cast<std::uint64_t>(config.depthwise_columns)
                             : 0) {}

MacArrayCost::MacArrayCost(const HardwareConfig& config)
    : MacArrayCost(config.mac_array, sram_access_cycles(config), config.vector.latency_cycles) {}

std::uint64_t MacArrayCost::array_cycles(std::uint64_t m, std::uint64_t n, std::uint64_t k, bool fp16, bool swap,
                                         isa::WeightFormat b_format) const {
  const std::uint64_t array = (swap ? dataflow_->gemm_cycles(n, m, k) : dataflow_->gemm_cycles(m, n, k)) * (fp16 ? fp16_factor_ : 1);
  const std::uint64_t dequant = b_format == isa::WeightFormat::Same ? 0
                                : b_format == isa::WeightFormat::Int4 ? dequant_int4_cycles_ : dequant_int8_cycles_;
  const std::uint64_t per_fold = dequant + fold_wait_cycles_;
  if (per_fold == 0) return array;
  return array + per_fold * (swap ? dataflow_->folds(n, m, k) : dataflow_->folds(m, n, k));
}

std::uint64_t MacArrayCost::gemm_cycles(std::uint64_t m, std::uint64_t n, std::uint64_t k, bool fp16, bool swap,
                                        isa::WeightFormat b_format) const {
  return overhead_cycles_ + array_cycles(m, n, k, fp16, swap, b_format);
}

std::uint64_t MacArrayCost::conv_cycles(std::uint64_t groups, std::uint64_t m, std::uint64_t n, std::uint64_t k,
                                        bool fp16, ArrayMapping mapping, isa::WeightFormat b_format) const {
  if (mapping.depthwise) {
    // Channels beyond depthwise_columns wait for a later fold: as if each took cols / depthwise_columns
    // columns.
    std::uint64_t columns = groups * n;
    if (depthwise_columns_ != 0) columns = (columns + depthwise_columns_ - 1) / depthwise_columns_ * cols_;
    return overhead_cycles_ + array_cycles(m, columns, k, fp16, mapping.swap, b_format);
  }
  return overhead_cycles_ + groups * array_cycles(m, n, k, fp16, mapping.swap, b_format);
}

SramTraffic MacArrayCost::gemm_traffic(std::uint64_t m, std::uint64_t n, std::uint64_t k, bool fp16,
                                       bool accumulate, bool swap, const WeightStorage& b_storage) const {
  const std::uint64_t es = fp16 ? 2 : 1, c = m * n * 4;
  const std::uint64_t a_bytes = m * k * es, b_bytes = b_storage.value_bytes(k, n, es) + b_storage.scale_bytes(k, n);
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
  if (inst.opcode == isa::Opcode::Drain) return drain_cycles_;
  return cycles(ConvShape::of(inst));
}

}  // namespace npu::cost
