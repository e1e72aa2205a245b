#include "report/placement_summary.h"

#include <algorithm>
#include <cmath>

#include "costmodel/dma_cost.h"
#include "runtime/host_time_model.h"
#include "costmodel/program_plan.h"

namespace npu::report {
namespace {

// Cycles of each NPU instruction (index -> unit and cycles), step by step: plan_program plans
// up to the first halt, so each step's code is planned on its own.
struct InstructionTime {
  isa::Unit unit = isa::Unit::Control;
  double cycles = 0;
};

std::vector<InstructionTime> instruction_times(const container::CompiledModel& m, const HardwareConfig& hw) {
  std::vector<InstructionTime> times(m.program.code.size());
  const double bytes_per_cycle = cost::ddr_bytes_per_cycle(hw);
  for (const auto& step : m.steps) {
    if (step.kind != container::Step::Kind::Npu || step.npu.end_instruction <= step.npu.first_instruction) continue;
    const cost::ProgramPlan plan =
        cost::plan_program(m.program.code, step.npu.first_instruction, step.npu.end_instruction, hw);
    for (const auto& op : plan.ops) {
      const std::size_t at = step.npu.first_instruction + op.index;
      if (at >= times.size()) continue;
      times[at].unit = op.unit;
      if (op.unit == isa::Unit::Load || op.unit == isa::Unit::Store) {
        const auto& t = plan.transfers.at(op.transfer);
        const auto ddr = static_cast<std::uint64_t>(bytes_per_cycle > 0 ? std::ceil(t.bus_bytes / bytes_per_cycle) : 0);
        times[at].cycles = static_cast<double>(cost::dma_transfer_cycles(ddr, cost::sram_port_cycles(t.bytes, hw.sram), t.bounce_cycles, hw.dma));
      } else {
        times[at].cycles = static_cast<double>(op.cycles);
      }
    }
  }
  return times;
}

}  // namespace

std::string base_op(const std::string& op) {
  std::string base = op.substr(0, op.find('+'));
  if (base == "FusedConv") return "Conv";
  if (base == "FusedGemm") return "Gemm";
  if (base == "FusedMatMul") return "MatMul";
  return base;
}

PlacementSummary summarize_placement(const container::CompiledModel& m, const HardwareConfig& hw) {
  PlacementSummary s;
  const auto times = instruction_times(m, hw);
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
      // the units overlap: the layer takes as long as its busiest one
      double dma = 0, compute = 0, vector = 0;
      for (const std::uint32_t i : container::owned_instructions(layer, times.size())) {
        const auto& t = times[i];
        if (t.unit == isa::Unit::Compute) compute += t.cycles;
        else if (t.unit == isa::Unit::Vector) vector += t.cycles;
        else if (t.unit == isa::Unit::Load || t.unit == isa::Unit::Store) dma += t.cycles;
      }
      s.npu_us += std::max({dma, compute, vector}) * hw.cycle_ns() / 1000.0;
    } else {
      ++p.cpu;
      auto r = reason_of.find(layer.name);
      ++p.reasons[r == reason_of.end() ? "(no reason recorded)" : r->second];
      if (!in_island) ++s.cpu_islands;
    }
    in_island = !npu;
  }
  std::uint64_t cpu_flops = 0;
  for (const auto& step : m.steps)
    if (step.kind == container::Step::Kind::Cpu) cpu_flops += step.cpu.flops;
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
