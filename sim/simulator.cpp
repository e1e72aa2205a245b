// simulate(): check and plan the program (costmodel/program_plan), elaborate a fresh SystemC
// design around the timing core, run it to halt, and collect the statistics. Errors raised
// while running are carried out of the kernel and rethrown here as one-line SimErrors.
#include "sim/simulator.h"

#include <cmath>
#include <memory>
#include <string>

#include "costmodel/program_plan.h"
#include "sim/coroutine_stack.h"
#include "sim/fresh_context.h"
#include "sim/npu_top.h"

namespace npu::sim {
namespace {

void check_config(const HardwareConfig& c) {
  // The struct may come straight from code (tests, sweeps) rather than the YAML loader.
  try {
    validate(c);
  } catch (const ConfigError& e) {
    throw SimError(std::string("invalid hardware config: ") + e.what());
  }
}

}  // namespace

SimResult simulate(const isa::Program& program, const HardwareConfig& config, DdrImage& ddr, const SimOptions& options) {
  check_config(config);
  std::vector<cost::ProgramPlan> plans;
  try {
    plans = cost::plan_engines(program, config);
  } catch (const cost::TimingError& e) {
    throw SimError(e.what());
  }

  ThreadStackBoundsRestorer asan_stack_bounds;  // acts after the context is gone
  FreshSystemcContext context;                  // outlives every SystemC object below
  SimResult result;
  {
    std::unique_ptr<NpuTop> top;
    try {
      top = std::make_unique<NpuTop>("npu", program, plans, config, options, ddr);
      ThreadStackBoundsRestorer asan_stack_bounds_after_run;
      sc_core::sc_start();
    } catch (const SimError&) {
      throw;
    } catch (const cost::TimingError& e) {
      throw SimError(e.what());
    } catch (const std::exception& e) {
      throw SimError(std::string("SystemC: ") + e.what());
    }
    if (!top->error().empty()) throw SimError(top->error());
    cost::Machine& machine = top->machine();
    if (!machine.halted()) throw SimError(machine.deadlock_message());
    std::vector<std::uint64_t> engine_ends;
    for (std::size_t e = 0; e < machine.engine_count(); ++e) engine_ends.push_back(machine.engine_end_cycle(e));
    top->stats().fill(result, machine.end_cycle(), engine_ends);
    result.instructions = machine.take_instruction_timings();
    result.ddr_bytes_read = top->ddr().bytes_read();
    result.ddr_bytes_written = top->ddr().bytes_written();
    result.ddr = machine.finish_ddr();
    result.ddr_bus_bytes = result.ddr.bus_bytes;
    result.ddr_row_misses = result.ddr.row_misses;
    result.shared_sram_bytes_read = top->shared_sram().bytes_read();
    result.shared_sram_bytes_written = top->shared_sram().bytes_written();
    if (const DdrCounters* shared = machine.shared_sram_counters())
      result.shared_sram_busy_cycles = static_cast<std::uint64_t>(std::ceil(shared->data_ns / config.cycle_ns() - 1e-6));
    if (config.energy) result.energy = energy_of(result, design_costs(config));
  }
  return result;
}

}  // namespace npu::sim
