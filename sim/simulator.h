// Entry point of the SystemC NPU model: run one program on one hardware config.
#pragma once
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "hardware_config.h"
#include "program.h"

namespace npu::sim {

// DDR contents, sparse (pages allocated on first write), owned by the caller so the
// runtime can place inputs before and read outputs after a run.
class DdrImage {
 public:
  static constexpr std::uint64_t kPageBytes = 1 << 16;
  void write(std::uint64_t addr, const void* src, std::uint64_t bytes);
  void read(std::uint64_t addr, void* dst, std::uint64_t bytes) const;  // unwritten bytes read 0
  void place(const isa::Program& program);  // writes every data segment
 private:
  std::map<std::uint64_t, std::vector<std::uint8_t>> pages_;
  std::uint8_t* page(std::uint64_t index);
};

struct SimOptions {
  bool timing_only = false;     // skip arithmetic and data movement; cycles are identical
  bool record_trace = false;    // fill SimResult::trace
  bool record_instructions = true;  // fill SimResult::instructions
};

struct UnitStats {
  std::uint64_t instructions = 0;
  std::uint64_t busy_cycles = 0;   // cycles with at least one instruction of this unit running
  std::uint64_t stall_cycles = 0;  // cycles spent waiting for dependency tokens
};

struct DmaChannelStats {
  std::uint64_t transfers = 0;
  std::uint64_t bytes = 0;
  std::uint64_t busy_cycles = 0;
  std::uint64_t bounce_copies = 0;
};

// When each instruction ran; lets the runtime attribute time to layers.
struct InstructionTiming {
  std::uint64_t start_cycle = 0;
  std::uint64_t end_cycle = 0;
  std::uint64_t stall_cycles = 0;  // waiting for tokens before start
};

struct TraceEvent {
  std::string track;   // "load", "compute", "vector", "store", "dma0", ...
  std::string name;    // mnemonic
  std::uint64_t start_cycle = 0;
  std::uint64_t duration_cycles = 0;
  std::uint64_t instruction_index = 0;
  std::map<std::string, std::int64_t> args;  // bytes, m/n/k, ...
};

struct SimResult {
  std::uint64_t cycles = 0;
  double clock_mhz = 0;
  double latency_us = 0;
  std::uint64_t macs = 0;            // useful multiply-accumulates executed by the array
  std::uint64_t int8_macs = 0;
  std::uint64_t fp16_macs = 0;
  std::uint64_t mac_array_busy_cycles = 0;
  double peak_tops = 0;
  double achieved_tops = 0;          // 2 * macs / time
  double mac_utilization = 0;        // macs / (array MACs * cycles)
  std::uint64_t ddr_bytes_read = 0;      // bytes requested by DMA
  std::uint64_t ddr_bytes_written = 0;
  std::uint64_t ddr_bus_bytes = 0;       // whole bursts moved, including misalignment waste
  std::uint64_t ddr_row_misses = 0;
  std::uint64_t sram_bytes_read = 0;
  std::uint64_t sram_bytes_written = 0;
  std::uint64_t sram_peak_bytes = 0;     // highest scratchpad address touched + 1
  UnitStats load, compute, vector, store;
  std::vector<DmaChannelStats> dma_channels;
  std::vector<InstructionTiming> instructions;
  std::vector<TraceEvent> trace;
};

// Bad program or config at run time (SRAM overflow, misalignment, deadlock, ...): one line
// naming the instruction index and mnemonic.
struct SimError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Each call elaborates a fresh SystemC design, so it may be called many times per process;
// calls must not overlap (the SystemC kernel is process-global: one simulate() at a time).
// Throws SimError for a bad program, bad config (validate() fails) or deadlock. Timing
// rules: sim/README.md.
SimResult simulate(const isa::Program& program, const HardwareConfig& config, DdrImage& ddr,
                   const SimOptions& options = {});

}  // namespace npu::sim
