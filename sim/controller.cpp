#include "sim/controller.h"

#include <algorithm>

#include "sim/sim_time.h"
#include "sim/thread_body.h"

namespace npu::sim {

Controller::Controller(sc_core::sc_module_name name, RunState& state) : sc_module(name), state_(state) {
  SC_HAS_PROCESS(Controller);
  SC_THREAD(run);
}

void Controller::run() {
  run_thread_body([&] {
    dispatch();
  }, [this](const char* what) { state_.fail(what); });
}

void Controller::dispatch() {
  const std::uint64_t d = static_cast<std::uint64_t>(state_.config.controller.dispatch_cycles);
  std::uint64_t vt = now_cycles();  // end of the latest dispatch
  for (std::uint32_t i = 0; i < state_.plan.ops.size(); ++i) {
    const PlannedOp& op = state_.plan.ops[i];
    state_.controller_op = i;
    vt += d;
    if (op.unit == isa::Unit::Control) {
      const std::uint64_t now = now_cycles();
      if (vt > now) sc_core::wait(cycles(vt - now));
      state_.controller_draining = true;
      while (state_.inflight > 0) sc_core::wait(state_.drained);
      state_.controller_draining = false;
      const std::uint64_t start = vt;
      vt = now_cycles();
      state_.stats.control(op, start, vt);
      if (op.opcode == isa::Opcode::Halt) {
        state_.halted = true;
        state_.end_cycle = vt;
        // sc_stop() ends the run before the kernel traces the current time step: give the
        // VCD one more cycle so the final busy-signal values reach the file (the result
        // keeps end_cycle; nothing else is left to run).
        if (state_.signals) sc_core::wait(cycles(1));
        sc_core::sc_stop();
        return;
      }
      continue;
    }
    UnitQueue& q = state_.queues[static_cast<int>(op.unit)];
    // Full as seen now implies full at vt only if no pop happens in between; re-check on
    // every pop, and if the first room appears after vt, dispatch ends then.
    while (q.full()) {
      state_.controller_blocked_queue = static_cast<int>(op.unit);
      q.controller_waiting = true;
      sc_core::wait(q.popped);
      q.controller_waiting = false;
      state_.controller_blocked_queue = -1;
      vt = std::max(vt, now_cycles());
    }
    q.push({i, vt});
    ++state_.inflight;
    if (q.unit_waiting) q.pushed.notify();
  }
}

}  // namespace npu::sim
