// A mixed program (double-buffered loads, gemms, requants, stores, all with tokens, DMA on
// several channels) and a timing comparison, shared by the run and trace tests.
#pragma once
#include "tests/sim/sim_test_util.h"

namespace simtest {

// A mixed program: double-buffered loads, gemms, vector ops, stores, all with tokens.
inline Program mixed_program(int tiles) {
  std::vector<Instruction> code;
  for (int i = 0; i < tiles; ++i) {
    const std::uint64_t buf = (i % 2) * 8192;
    code.push_back(load(0x10000 + (i % 7) * 8200, buf, 8192, i % 3, i >= 2 ? kCompute : 0, kCompute));
    code.push_back(gemm(buf, 16384, 32768 + (i % 2) * 16384, 64, 32, 64, i % 4 == 3, false, kLoad,
                        static_cast<std::uint8_t>(kLoad | kVector)));
    auto rq = make(Opcode::Requantize, kCompute | (i >= 2 ? kStore : 0), kStore);
    rq.set(Field::src_addr, 32768 + (i % 2) * 16384);
    rq.set(Field::param_addr, 20480);
    rq.set(Field::dst_addr, 65536 + (i % 2) * 4096);
    rq.set(Field::count, 2048);
    rq.set(Field::channels, 32);
    rq.set(Field::clamp_min, -128);
    rq.set(Field::clamp_max, 127);
    code.push_back(rq);
    code.push_back(store(0x200000 + i * 2048 + (i % 5), 65536 + (i % 2) * 4096, 2048, 1, kVector, kVector));
  }
  code.push_back(halt());
  return program(code);
}

inline bool same_timing(const npu::sim::SimResult& a, const npu::sim::SimResult& b) {
  if (a.cycles != b.cycles || a.instructions.size() != b.instructions.size()) return false;
  for (std::size_t i = 0; i < a.instructions.size(); ++i)
    if (a.instructions[i].start_cycle != b.instructions[i].start_cycle ||
        a.instructions[i].end_cycle != b.instructions[i].end_cycle ||
        a.instructions[i].stall_cycles != b.instructions[i].stall_cycles)
      return false;
  return a.load.busy_cycles == b.load.busy_cycles && a.compute.busy_cycles == b.compute.busy_cycles &&
         a.vector.busy_cycles == b.vector.busy_cycles && a.store.busy_cycles == b.store.busy_cycles &&
         a.ddr_bus_bytes == b.ddr_bus_bytes && a.macs == b.macs && a.load.stall_cycles == b.load.stall_cycles;
}

// Every counter the report and the energy use, besides the timing.
inline bool same_counters(const npu::sim::SimResult& a, const npu::sim::SimResult& b) {
  auto unit_eq = [](const npu::sim::UnitStats& x, const npu::sim::UnitStats& y) {
    return x.instructions == y.instructions && x.busy_cycles == y.busy_cycles && x.stall_cycles == y.stall_cycles &&
           x.channel_wait_cycles == y.channel_wait_cycles && x.sram_bytes_read == y.sram_bytes_read &&
           x.sram_bytes_written == y.sram_bytes_written && x.bank_conflict_cycles == y.bank_conflict_cycles;
  };
  if (!same_timing(a, b) || !unit_eq(a.load, b.load) || !unit_eq(a.compute, b.compute) ||
      !unit_eq(a.vector, b.vector) || !unit_eq(a.store, b.store))
    return false;
  if (a.dma_channels.size() != b.dma_channels.size()) return false;
  for (std::size_t i = 0; i < a.dma_channels.size(); ++i) {
    const auto &x = a.dma_channels[i], &y = b.dma_channels[i];
    if (x.transfers != y.transfers || x.bytes != y.bytes || x.bus_bytes != y.bus_bytes ||
        x.busy_cycles != y.busy_cycles || x.bounce_copies != y.bounce_copies)
      return false;
  }
  for (std::size_t i = 0; i < a.instructions.size(); ++i) {
    const auto &x = a.instructions[i], &y = b.instructions[i];
    if (x.channel_wait_cycles != y.channel_wait_cycles || x.bank_conflict_cycles != y.bank_conflict_cycles ||
        x.ddr_row_hits != y.ddr_row_hits || x.ddr_row_misses != y.ddr_row_misses ||
        x.ddr_turnaround_cycles != y.ddr_turnaround_cycles)
      return false;
  }
  if (a.ddr.row_hits != b.ddr.row_hits || a.ddr.row_conflicts != b.ddr.row_conflicts ||
      a.ddr.refreshes != b.ddr.refreshes || a.ddr.turnaround_ns != b.ddr.turnaround_ns ||
      a.ddr.active_ns != b.ddr.active_ns || a.ddr.bank_busy_ns != b.ddr.bank_busy_ns)
    return false;
  if (a.energy.has_value() != b.energy.has_value()) return false;
  if (a.energy && (a.energy->total_uj != b.energy->total_uj || a.energy->ddr_uj != b.energy->ddr_uj ||
                   a.energy->sram_uj != b.energy->sram_uj))
    return false;
  return a.int8_macs == b.int8_macs && a.fp16_macs == b.fp16_macs && a.ddr_bytes_read == b.ddr_bytes_read &&
         a.ddr_bytes_written == b.ddr_bytes_written && a.ddr_row_misses == b.ddr_row_misses &&
         a.sram_bytes_read == b.sram_bytes_read && a.sram_bytes_written == b.sram_bytes_written &&
         a.sram_peak_bytes == b.sram_peak_bytes;
}

}  // namespace simtest
