#include "report/layer_attribution.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "costmodel/footprint.h"
#include "costmodel/shared_sram.h"

namespace npu::report {

namespace {

// Length of the union of [start, end) intervals.
std::uint64_t union_cycles(std::vector<std::pair<std::uint64_t, std::uint64_t>> spans) {
  std::sort(spans.begin(), spans.end());
  std::uint64_t total = 0, covered_to = 0;
  for (const auto& [start, end] : spans) {
    const std::uint64_t from = std::max(start, covered_to);
    if (end > from) total += end - from;
    covered_to = std::max(covered_to, end);
  }
  return total;
}

}  // namespace

std::string LayerTiming::bound() const {
  if (device != "npu") return "host";
  if (compute_cycles >= vector_cycles && compute_cycles >= dma_cycles) return "compute";
  return vector_cycles >= dma_cycles ? "vector" : "memory";
}

std::vector<LayerTiming> attribute_layers(const std::vector<container::LayerRecord>& layers,
                                          const isa::Program& program,
                                          const std::vector<sim::InstructionTiming>& timings,
                                          const std::vector<std::uint8_t>& engines) {
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
      std::vector<std::pair<std::uint64_t, std::uint64_t>> loads, stores;
      const std::vector<std::uint32_t> own = container::owned_instructions(layer, program.code.size());
      for (const std::uint32_t i : own) {
        const auto& inst = program.code[i];
        // Bytes to and from the shared SRAM are not DDR bytes (the run's summary counts them).
        const std::uint64_t bytes = cost::ddr_transfer_bytes(inst, i < engines.size() ? engines[i] : 0);
        row.ddr_bytes += bytes;
        (inst.opcode == isa::Opcode::Store ? row.ddr_bytes_written : row.ddr_bytes_read) += bytes;
        if (i >= timings.size()) continue;
        const auto& t = timings[i];
        const std::uint64_t duration = t.end_cycle - t.start_cycle;
        row.stall_cycles += t.stall_cycles;
        row.channel_wait_cycles += t.channel_wait_cycles;
        row.bank_conflict_cycles += t.bank_conflict_cycles;
        row.ddr_row_hits += t.ddr_row_hits;
        row.ddr_row_misses += t.ddr_row_misses;
        row.ddr_turnaround_cycles += t.ddr_turnaround_cycles;
        switch (inst.unit()) {
          case isa::Unit::Compute: row.compute_cycles += duration; break;
          case isa::Unit::Vector: row.vector_cycles += duration; break;
          case isa::Unit::Load: loads.emplace_back(t.start_cycle, t.end_cycle); row.dma_cycles += duration; break;
          case isa::Unit::Store: stores.emplace_back(t.start_cycle, t.end_cycle); row.dma_cycles += duration; break;
          default: break;
        }
        if (inst.unit() == isa::Unit::Control) continue;  // halt and friends mark no work
        first = std::min(first, t.start_cycle);
        last = std::max(last, t.end_cycle);
      }
      row.traffic = region_traffic(program, own, engines);
      for (const auto& t : row.traffic)
        (t.compulsory ? row.compulsory_ddr_bytes : row.spill_ddr_bytes) += t.bytes_read + t.bytes_written;
      row.load_cycles = union_cycles(std::move(loads));
      row.store_cycles = union_cycles(std::move(stores));
      if (last >= first && first != std::numeric_limits<std::uint64_t>::max()) {
        row.cycles = last - first;
        row.start_cycle = first;
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<std::uint8_t> engine_of_instructions(const container::CompiledModel& model) {
  std::vector<std::uint8_t> engines(model.program.code.size(), 0);
  for (const container::Step& step : model.steps) {
    const auto& starts = step.npu.engine_starts;
    if (step.kind != container::Step::Kind::Npu) continue;
    for (std::size_t e = 0; e < starts.size(); ++e) {
      const std::uint32_t end = e + 1 < starts.size() ? starts[e + 1] : step.npu.end_instruction;
      for (std::uint32_t i = starts[e]; i < end && i < engines.size(); ++i) engines[i] = static_cast<std::uint8_t>(e);
    }
  }
  return engines;
}

}  // namespace npu::report
