// The compiler's estimate of when every instruction of a program runs: the timing core
// (costmodel/machine) on the program's plan, the same run the simulator makes, so the
// estimate of a whole step equals the timing-only simulation cycle for cycle.
#pragma once
#include <cstdint>
#include <vector>

#include "hwconfig/hardware_config.h"
#include "isa/instruction.h"
#include "isa/program.h"

namespace npu::cost {

struct InstructionEstimate {
  double start_cycle = 0;  // DMA: when the transfer starts on its channel
  double end_cycle = 0;
};

struct ProgramEstimate {
  std::vector<InstructionEstimate> instructions;  // one per instruction of the range
  double cycles = 0;                              // when halt (or the implicit one at the end) finishes
};

// `exact` is the simulation's own run: the program planned and checked as the simulator does,
// the configured DDR model; a whole step's estimate equals the timing-only simulation.
// `trial` is for the thousands of candidate schedules the compiler compares, where the
// configured model would cost seconds: the DDR model's streaming approximation
// (costmodel/ddr/ddr_streaming.cpp), and a range cut out of a program may pop tokens pushed
// outside it and place operands outside the memories (PlanOptions).
enum class EstimateDetail { exact, trial };

// Estimates code[first, end). Instructions after a halt are not estimated (end_cycle 0).
// Throws TimingError for an instruction the detail's plan refuses, and MachineDeadlock when
// the range cannot reach its end.
ProgramEstimate estimate_program(const std::vector<isa::Instruction>& code, std::size_t first, std::size_t end,
                                 const HardwareConfig& config, EstimateDetail detail = EstimateDetail::trial);
inline ProgramEstimate estimate_program(const std::vector<isa::Instruction>& code, const HardwareConfig& config,
                                        EstimateDetail detail = EstimateDetail::trial) {
  return estimate_program(code, 0, code.size(), config, detail);
}

// A whole program, every engine stream of it (Program::engine_starts) on its engine: the
// simulation's own run, planned and checked as the simulator does. Returns the cycles of the
// last engine's halt; throws as above.
double estimate_engines(const isa::Program& program, const HardwareConfig& config);

}  // namespace npu::cost
