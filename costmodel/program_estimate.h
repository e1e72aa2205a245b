// The compiler's estimate of when every instruction of a program runs: the timing core
// (costmodel/machine) on the program's plan, the same run the simulator makes, so the
// estimate of a whole step equals the timing-only simulation cycle for cycle.
//
// A range cut out of a program (a layer's code during the tiling search) may pop tokens whose
// producer lies outside it: such a pop counts as satisfied (PlanOptions::unmatched_pops_satisfied).
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
  double cycles = 0;                              // when halt (or the implicit one at the end) finishes
};

// How closely the DDR is modelled: `exact` is the simulation's own model (a whole step's
// estimate then equals the timing-only simulation); `trial` its streaming approximation
// (costmodel/ddr/ddr_streaming.cpp), for the thousands of candidate schedules the compiler
// compares, where the configured model would cost seconds.
enum class EstimateDetail { exact, trial };

// Estimates code[first, end). Instructions after a halt are not estimated (end_cycle 0).
// Trial placements may put operands outside the memories (PlanOptions::trial); throws
// TimingError for an instruction the simulator would refuse otherwise, and MachineDeadlock
// when the range cannot reach its end.
ProgramEstimate estimate_program(const std::vector<isa::Instruction>& code, std::size_t first, std::size_t end,
                                 const HardwareConfig& config, EstimateDetail detail = EstimateDetail::trial);
inline ProgramEstimate estimate_program(const std::vector<isa::Instruction>& code, const HardwareConfig& config,
                                        EstimateDetail detail = EstimateDetail::trial) {
  return estimate_program(code, 0, code.size(), config, detail);
}

}  // namespace npu::cost
