#include "report/placement_summary.h"

#include <algorithm>

#include "runtime/host_time_model.h"

namespace npu::report {

std::string base_op(const std::string& op) {
  std::string base = op.substr(0, op.find('+'));
  if (base == "FusedConv") return "Conv";
  if (base == "FusedGemm") return "Gemm";
  if (base == "FusedMatMul") return "MatMul";
  return base;
}

PlacementSummary summarize_placement(const container::CompiledModel& m, const HardwareConfig& hw) {
  PlacementSummary s;
  std::map<std::string, std::string> reason_of;
  for (const auto& f : m.fallbacks) reason_of[f.node] = f.reason;
  std::map<std::string, OpPlacement> by_op;
  bool in_island = false;
  for (const auto& layer : m.layers) {
    ++s.layers;
    s.macs += layer.macs;
    OpPlacement& p = by_op[base_op(layer.op)];
    p.op = base_op(layer.op);
    const bool npu = layer.device == "npu";
    if (npu) {
      ++s.npu_layers;
      s.npu_macs += layer.macs;
      ++p.npu;
    } else {
      ++p.cpu;
      auto r = reason_of.find(layer.name);
      ++p.reasons[r == reason_of.end() ? "(no reason recorded)" : r->second];
      if (!in_island) ++s.cpu_islands;
    }
    in_island = !npu;
  }
  std::uint64_t cpu_flops = 0, npu_cycles = 0;
  for (const auto& step : m.steps)
    if (step.kind == container::Step::Kind::Cpu) cpu_flops += step.cpu.flops;
    else npu_cycles += step.npu.estimated_cycles;
  s.npu_us = static_cast<double>(npu_cycles) * hw.cycle_ns() / 1000.0;
  s.cpu_us = runtime::cpu_compute_us(cpu_flops, hw.host);
  s.transitions = m.npu_cpu_transitions;
  s.transition_us = s.transitions * hw.host.transition_us;
  std::uint64_t crossing_bytes = 0;
  for (const auto& t : m.program.tensors) {
    const bool io = std::find(m.model_inputs.begin(), m.model_inputs.end(), t.name) != m.model_inputs.end() ||
                    std::find(m.model_outputs.begin(), m.model_outputs.end(), t.name) != m.model_outputs.end();
    if (!io && (t.role == isa::TensorRole::Input || t.role == isa::TensorRole::Output)) crossing_bytes += t.size_bytes;
  }
  s.transfer_us = runtime::transfer_us(crossing_bytes, hw.host);
  for (auto& [op, p] : by_op) s.ops.push_back(std::move(p));
  std::stable_sort(s.ops.begin(), s.ops.end(), [](const OpPlacement& a, const OpPlacement& b) {
    return a.npu + a.cpu > b.npu + b.cpu;
  });
  return s;
}

}  // namespace npu::report
