// What the timing core records per instruction and per DMA transfer.
#pragma once
#include <cstdint>

namespace npu::cost {

// What a finished transfer met on the way.
struct DmaOutcome {
  std::uint64_t bank_conflict_cycles = 0;  // its scratchpad side waited for banks
  std::uint64_t row_hits = 0, row_misses = 0;
  double turnaround_cycles = 0;
};

// When an instruction ran.
struct InstructionTiming {
  std::uint64_t start_cycle = 0;
  std::uint64_t end_cycle = 0;
  std::uint64_t stall_cycles = 0;         // waiting for tokens before start
  std::uint64_t channel_wait_cycles = 0;  // load/store: waiting for the DMA channel after the tokens
  std::uint64_t bank_conflict_cycles = 0; // stretched by scratchpad bank conflicts (included in the run time)
  // Load/store: what its DDR bursts found (banked and dram models) and the read/write
  // turnaround its chunks paid on the DRAM data bus (dram model), in cycles.
  std::uint64_t ddr_row_hits = 0, ddr_row_misses = 0;
  double ddr_turnaround_cycles = 0;
};

}  // namespace npu::cost
