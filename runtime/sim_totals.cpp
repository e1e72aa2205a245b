#include "runtime/sim_totals.h"

namespace npu::runtime {

namespace {

void add_unit(sim::UnitStats& a, const sim::UnitStats& b) {
  a.instructions += b.instructions;
  a.busy_cycles += b.busy_cycles;
  a.stall_cycles += b.stall_cycles;
  a.channel_wait_cycles += b.channel_wait_cycles;
  a.sram_bytes_read += b.sram_bytes_read;
  a.sram_bytes_written += b.sram_bytes_written;
  a.bank_conflict_cycles += b.bank_conflict_cycles;
}

void add_ddr(sim::DdrCounters& a, const sim::DdrCounters& b) {
  a.bus_bytes += b.bus_bytes;
  a.row_hits += b.row_hits;
  a.row_misses += b.row_misses;
  a.row_conflicts += b.row_conflicts;
  a.refreshes += b.refreshes;
  a.refresh_ns += b.refresh_ns;
  a.turnaround_ns += b.turnaround_ns;
  a.data_ns += b.data_ns;
  a.active_ns += b.active_ns;
  a.bank_busy_ns += b.bank_busy_ns;
}

void add_channel(sim::DmaChannelStats& a, const sim::DmaChannelStats& b) {
  a.transfers += b.transfers;
  a.bytes += b.bytes;
  a.bus_bytes += b.bus_bytes;
  a.busy_cycles += b.busy_cycles;
  a.bounce_copies += b.bounce_copies;
}

// A step's counter starts at 0 and ends at 0 (sim/trace_recorder.cpp); between steps the
// held value is therefore 0 already, and a sample repeating the last value adds nothing.
void add_bandwidth(std::vector<sim::CounterSample>& total, const std::vector<sim::CounterSample>& step,
                   std::uint64_t timeline_cycle) {
  for (auto s : step) {
    s.cycle += timeline_cycle;
    if (!total.empty() && total.back().gbps == s.gbps) continue;
    if (!total.empty() && total.back().cycle == s.cycle) {
      total.back() = s;  // same instant: the later step's value holds from here
      continue;
    }
    total.push_back(s);
  }
}

}  // namespace

void add_step(sim::SimResult& total, const sim::SimResult& step, std::uint32_t first_instruction,
              std::uint64_t timeline_cycle) {
  total.cycles += step.cycles;
  total.macs += step.macs;
  total.int8_macs += step.int8_macs;
  total.fp16_macs += step.fp16_macs;
  total.mac_array_busy_cycles += step.mac_array_busy_cycles;
  total.ddr_bytes_read += step.ddr_bytes_read;
  total.ddr_bytes_written += step.ddr_bytes_written;
  total.ddr_bus_bytes += step.ddr_bus_bytes;
  total.ddr_row_misses += step.ddr_row_misses;
  add_ddr(total.ddr, step.ddr);
  total.shared_sram_bytes_read += step.shared_sram_bytes_read;
  total.shared_sram_bytes_written += step.shared_sram_bytes_written;
  total.shared_sram_busy_cycles += step.shared_sram_busy_cycles;
  total.sram_bytes_read += step.sram_bytes_read;
  total.sram_bytes_written += step.sram_bytes_written;
  total.vector_int_elements += step.vector_int_elements;
  total.vector_float_elements += step.vector_float_elements;
  if (step.sram_peak_bytes > total.sram_peak_bytes) total.sram_peak_bytes = step.sram_peak_bytes;
  add_unit(total.load, step.load);
  add_unit(total.compute, step.compute);
  add_unit(total.vector, step.vector);
  add_unit(total.store, step.store);
  if (total.dma_channels.size() < step.dma_channels.size()) total.dma_channels.resize(step.dma_channels.size());
  for (std::size_t i = 0; i < step.dma_channels.size(); ++i) add_channel(total.dma_channels[i], step.dma_channels[i]);
  if (total.engines.size() < step.engines.size()) total.engines.resize(step.engines.size());
  for (std::size_t e = 0; e < step.engines.size(); ++e) {
    sim::SimResult::Engine& a = total.engines[e];
    const sim::SimResult::Engine& b = step.engines[e];
    add_unit(a.load, b.load);
    add_unit(a.compute, b.compute);
    add_unit(a.vector, b.vector);
    add_unit(a.store, b.store);
    if (a.dma_channels.size() < b.dma_channels.size()) a.dma_channels.resize(b.dma_channels.size());
    for (std::size_t i = 0; i < b.dma_channels.size(); ++i) add_channel(a.dma_channels[i], b.dma_channels[i]);
    a.macs += b.macs;
    a.ddr_bytes_read += b.ddr_bytes_read;
    a.ddr_bytes_written += b.ddr_bytes_written;
    a.shared_sram_bytes_read += b.shared_sram_bytes_read;
    a.shared_sram_bytes_written += b.shared_sram_bytes_written;
    a.multicast_bytes_read += b.multicast_bytes_read;
    a.end_cycle = timeline_cycle + b.end_cycle;
  }
  if (total.instructions.size() < first_instruction + step.instructions.size())
    total.instructions.resize(first_instruction + step.instructions.size());
  for (std::size_t i = 0; i < step.instructions.size(); ++i) {
    auto t = step.instructions[i];
    t.start_cycle += timeline_cycle;
    t.end_cycle += timeline_cycle;
    total.instructions[first_instruction + i] = t;
  }
  for (auto e : step.trace) {
    e.start_cycle += timeline_cycle;
    e.instruction_index += first_instruction;
    total.trace.push_back(std::move(e));
  }
  add_bandwidth(total.ddr_bandwidth, step.ddr_bandwidth, timeline_cycle);
}

void finish_totals(sim::SimResult& total, const HardwareConfig& config) {
  total.clock_mhz = config.clock.frequency_mhz;
  total.latency_us = static_cast<double>(total.cycles) / config.clock.frequency_mhz;
  total.peak_tops = config.peak_tops();
  total.achieved_tops = total.latency_us > 0 ? 2.0 * static_cast<double>(total.macs) / (total.latency_us * 1e6) : 0.0;
  const double slots = static_cast<double>(config.total_macs()) * static_cast<double>(total.cycles);
  total.mac_utilization = slots > 0 ? static_cast<double>(total.macs) / slots : 0.0;
  if (config.energy) total.energy = sim::energy_of(total, design_costs(config));
  else total.energy.reset();
}

}  // namespace npu::runtime
