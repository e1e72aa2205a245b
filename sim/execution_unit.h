// One of the four units (load, compute, vector, store) as an in-order SystemC thread:
// take the next instruction from the queue once it is dispatched, wait for its dependency
// tokens (time spent = stall cycles), then execute it:
//   compute/vector: functional arithmetic (unless timing-only), then wait its cycles;
//   load/store: hand the transfer to its DMA channel (tokens are given when it completes).
#pragma once
#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>

#include "sim/dma_engine.h"
#include "sim/mac_array.h"
#include "sim/run_state.h"
#include "sim/scratchpad_banks.h"

namespace npu::sim {

class ExecutionUnit : public sc_core::sc_module {
 public:
  // Compute and vector take the scratchpad's DMI pointer through this socket.
  tlm_utils::simple_initiator_socket<ExecutionUnit> sram_socket;

  ExecutionUnit(sc_core::sc_module_name name, isa::Unit unit, RunState& state, DmaEngine& dma,
                const MacArray& mac);

 private:
  void run();
  void loop();
  void take_tokens(const PlannedOp& op);
  void execute(const PlannedOp& op);
  // Cycles the instruction waits for scratchpad banks other units hold (scratchpad_banks.h).
  std::uint64_t bank_conflict(const PlannedOp& op, std::uint64_t start);

  isa::Unit unit_;
  int id_;
  RunState& state_;
  DmaEngine& dma_;
  const MacArray& mac_;
  std::uint8_t* sram_ = nullptr;  // null in timing-only runs
  ScratchpadBanks::Access access_;
};

}  // namespace npu::sim
