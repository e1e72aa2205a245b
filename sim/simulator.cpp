// simulate(): check and decode the program, elaborate a fresh SystemC design, run it to
// halt, and collect the statistics. Errors raised inside SystemC processes are carried out
// through RunState::error and rethrown here as one-line SimErrors.
#include "sim/simulator.h"

#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/fresh_context.h"
#include "sim/mac_array.h"
#include "sim/npu_top.h"
#include "sim/program_plan.h"
#include "sim/run_state.h"
#include "sim/sim_time.h"

namespace npu::sim {
namespace {

// Why the simulation ran out of events before halt: who waits for what.
std::string deadlock_message(const RunState& s) {
  std::vector<std::string> parts;
  for (int u = 0; u < isa::kQueueCount; ++u) {
    const auto& st = s.unit_status[u];
    if (st.waiting_token_from < 0) continue;
    const PlannedOp& op = s.plan.ops[st.op];
    parts.push_back(fmt::format("{} unit waits for a token from {} at {}", isa::unit_name(static_cast<isa::Unit>(u)),
                                isa::unit_name(static_cast<isa::Unit>(st.waiting_token_from)),
                                instruction_label(op.index, op.opcode)));
  }
  const PlannedOp& cop = s.plan.ops[s.controller_op];
  if (s.controller_blocked_queue >= 0)
    parts.push_back(fmt::format("controller cannot dispatch {}: the {} queue is full",
                                instruction_label(cop.index, cop.opcode),
                                isa::unit_name(static_cast<isa::Unit>(s.controller_blocked_queue))));
  else if (s.controller_draining)
    parts.push_back(fmt::format("controller waits at {} for {} unfinished instructions",
                                cop.index < s.program.code.size() ? instruction_label(cop.index, cop.opcode)
                                                                  : std::string("the end of the program"),
                                s.inflight));
  if (parts.empty()) parts.push_back("no process can make progress");
  return fmt::format("deadlock at cycle {}: {}", s.end_cycle, fmt::join(parts, "; "));
}

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
  const MacArray mac(config);
  const ProgramPlan plan = plan_program(program, config, mac);

  FreshSystemcContext context;  // outlives every SystemC object below
  SimResult result;
  {
    RunState state(program, plan, config, options);
    std::unique_ptr<NpuTop> top;
    try {
      top = std::make_unique<NpuTop>("npu", state, mac, ddr);
      sc_core::sc_start();
    } catch (const SimError&) {
      throw;
    } catch (const std::exception& e) {
      throw SimError(std::string("SystemC: ") + e.what());
    }
    if (!state.error.empty()) throw SimError(state.error);
    if (!state.halted) {
      state.end_cycle = now_cycles();
      throw SimError(deadlock_message(state));
    }
    state.stats.fill(result, state.end_cycle);
    const DdrTarget& d = top->ddr();
    result.ddr_bytes_read = d.bytes_read();
    result.ddr_bytes_written = d.bytes_written();
    top->ddr().model().finish(static_cast<double>(state.end_cycle) * config.cycle_ns());
    result.ddr = d.model().counters();
    result.ddr_bus_bytes = result.ddr.bus_bytes;
    result.ddr_row_misses = result.ddr.row_misses;
    if (config.energy) result.energy = energy_of(result, design_costs(config));
  }
  return result;
}

}  // namespace npu::sim
