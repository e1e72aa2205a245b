#include "costmodel/program_estimate.h"

#include "costmodel/machine/machine.h"
#include "costmodel/program_plan.h"

namespace npu::cost {

ProgramEstimate estimate_program(const std::vector<isa::Instruction>& code, std::size_t first, std::size_t end,
                                 const HardwareConfig& config, EstimateDetail detail) {
  PlanOptions options;
  // The simulation's own run plans (and checks) the program as the simulator does; a trial
  // range is a piece of a program being searched for.
  options.unmatched_pops_satisfied = detail == EstimateDetail::trial;
  options.trial = detail == EstimateDetail::trial;
  const ProgramPlan plan = plan_program(code, first, end, config, options);
  MachineOptions machine_options;
  machine_options.streaming_ddr = detail == EstimateDetail::trial;
  Machine machine(plan, config, nullptr, machine_options);
  machine.run();
  ProgramEstimate out;
  out.cycles = static_cast<double>(machine.end_cycle());
  const std::vector<InstructionTiming> timings = machine.take_instruction_timings();
  out.instructions.reserve(timings.size());
  for (const InstructionTiming& t : timings)
    out.instructions.push_back({static_cast<double>(t.start_cycle), static_cast<double>(t.end_cycle)});
  return out;
}

double estimate_engines(const isa::Program& program, const HardwareConfig& config) {
  const std::vector<ProgramPlan> plans = plan_engines(program, config);
  std::vector<const ProgramPlan*> pointers;
  for (const ProgramPlan& p : plans) pointers.push_back(&p);
  MachineOptions options;
  options.record_instructions = false;
  Machine machine(pointers, config, nullptr, options);
  machine.run();
  return static_cast<double>(machine.end_cycle());
}

}  // namespace npu::cost
