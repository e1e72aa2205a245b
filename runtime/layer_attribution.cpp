#include "layer_attribution.h"

#include <algorithm>
#include <limits>

namespace npu::runtime {

std::uint64_t dma_bytes(const isa::Instruction& inst) {
  if (inst.opcode != isa::Opcode::Load && inst.opcode != isa::Opcode::Store) return 0;
  return static_cast<std::uint64_t>(inst.get(isa::Field::len0)) * static_cast<std::uint64_t>(inst.get(isa::Field::count1)) *
         static_cast<std::uint64_t>(inst.get(isa::Field::count2)) * static_cast<std::uint64_t>(inst.get(isa::Field::count3));
}

std::string LayerTiming::bound() const {
  if (device != "npu") return "host";
  if (compute_cycles >= vector_cycles && compute_cycles >= dma_cycles) return "compute";
  return vector_cycles >= dma_cycles ? "vector" : "memory";
}

std::vector<LayerTiming> attribute_layers(const std::vector<compiler::LayerRecord>& layers,
                                          const isa::Program& program,
                                          const std::vector<sim::InstructionTiming>& timings) {
  std::vector<LayerTiming> rows;
  rows.reserve(layers.size());
  for (const auto& layer : layers) {
    LayerTiming row;
    row.name = layer.name;
    row.op = layer.op;
    row.device = layer.device;
    row.macs = layer.macs;
    row.planned_ddr_bytes = layer.planned_ddr_bytes;
    if (layer.device == "npu") {
      std::uint64_t first = std::numeric_limits<std::uint64_t>::max(), last = 0;
      const std::uint32_t end = std::min<std::uint32_t>(layer.end_instruction, static_cast<std::uint32_t>(program.code.size()));
      for (std::uint32_t i = layer.first_instruction; i < end; ++i) {
        const auto& inst = program.code[i];
        row.ddr_bytes += dma_bytes(inst);
        if (i >= timings.size()) continue;
        const auto& t = timings[i];
        const std::uint64_t duration = t.end_cycle - t.start_cycle;
        if (inst.unit() == isa::Unit::Compute) row.compute_cycles += duration;
        if (inst.unit() == isa::Unit::Vector) row.vector_cycles += duration;
        if (inst.unit() == isa::Unit::Load || inst.unit() == isa::Unit::Store) row.dma_cycles += duration;
        if (inst.unit() == isa::Unit::Control) continue;  // halt and friends mark no work
        first = std::min(first, t.start_cycle);
        last = std::max(last, t.end_cycle);
      }
      if (last >= first && first != std::numeric_limits<std::uint64_t>::max()) {
        row.cycles = last - first;
        row.start_cycle = first;
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace npu::runtime
