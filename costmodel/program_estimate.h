// The compiler's estimate of when every instruction of a program runs, without SystemC: the
// simulator's scheduling rules (sim/README.md "Timing rules": in-order dispatch into bounded
// per-unit queues, in-order units, dependency tokens, one transfer per DMA channel at a time,
// barrier/halt drain) applied in one pass over the program, with each instruction's duration
// from the same cost-model calls the simulator uses (mac_cost, vector_cost, dma_cost). The
// DDR is one shared resource: a transfer's bus bytes occupy it at the NPU's share of the
// bandwidth, so loads and stores that overlap in time slow each other down. Under round-robin
// arbitration a transfer that arrives while the bus is booked shares it (1/(n+1) with n other
// DMA channels busy) rather than waiting for all of the booked work, as the arbiter's chunks
// alternate; a DMA transfer's tokens are given once every earlier transfer of its unit has
// finished (they retire in issue order).
//
// The pass needs every token's producer to come earlier in program order than its consumer,
// which is how the compiler emits programs; a pop with no earlier push is taken as satisfied
// (the simulator would report a deadlock).
#pragma once
#include <cstdint>
#include <vector>

#include "hwconfig/hardware_config.h"
#include "isa/instruction.h"

namespace npu::cost {

struct InstructionEstimate {
  double start_cycle = 0;  // DMA: when the transfer starts on its channel
  double end_cycle = 0;
};

struct ProgramEstimate {
  std::vector<InstructionEstimate> instructions;  // one per instruction of the range
  double cycles = 0;                              // when the last instruction (or halt) ends
};

// Estimates code[first, end). Instructions after a halt are not estimated (end_cycle 0).
ProgramEstimate estimate_program(const std::vector<isa::Instruction>& code, std::size_t first, std::size_t end,
                                 const HardwareConfig& config);
inline ProgramEstimate estimate_program(const std::vector<isa::Instruction>& code, const HardwareConfig& config) {
  return estimate_program(code, 0, code.size(), config);
}

}  // namespace npu::cost
