// The instruction controller: fetches the program in order, spends
// controller.dispatch_cycles on each instruction, and appends it to its unit's queue
// (blocking while that queue holds queue_depth instructions). Barrier and halt wait until
// every dispatched instruction has finished; halt then ends the simulation.
//
// Dispatch is tracked on a private clock that runs ahead of simulated time: instruction i
// is ready for its unit at dispatch_end(i) = max(dispatch_end(i-1) + dispatch_cycles,
// time its queue had room). The controller only waits (a SystemC event) when a queue is
// full or at barrier/halt, which gives the same times as waiting per instruction.
#pragma once
#include <systemc>

#include "sim/run_state.h"

namespace npu::sim {

class Controller : public sc_core::sc_module {
 public:
  Controller(sc_core::sc_module_name name, RunState& state);

 private:
  void run();
  void dispatch();
  RunState& state_;
};

}  // namespace npu::sim
