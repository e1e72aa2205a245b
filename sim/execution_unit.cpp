#include "sim/execution_unit.h"

#include "sim/scratchpad.h"
#include "sim/scratchpad_banks.h"
#include "sim/sim_time.h"
#include "sim/thread_body.h"
#include "sim/simulator.h"
#include "sim/vector_unit.h"

namespace npu::sim {

ExecutionUnit::ExecutionUnit(sc_core::sc_module_name name, isa::Unit unit, RunState& state, DmaEngine& dma,
                             const MacArray& mac)
    : sc_module(name),
      sram_socket("sram_socket"),
      unit_(unit),
      id_(static_cast<int>(unit)),
      state_(state),
      dma_(dma),
      mac_(mac) {
  SC_HAS_PROCESS(ExecutionUnit);
  SC_THREAD(run);
  set_stack_size(512 * 1024);  // functional kernels run on this thread's stack
}

void ExecutionUnit::run() {
  run_thread_body([&] {
    if (!state_.options.timing_only && (unit_ == isa::Unit::Compute || unit_ == isa::Unit::Vector))
      sram_ = scratchpad_pointer(sram_socket);
    loop();
  }, [this](const char* what) { state_.fail(what); });
}

void ExecutionUnit::loop() {
  UnitQueue& q = state_.queues[id_];
  for (;;) {
    while (q.empty()) {
      q.unit_waiting = true;
      sc_core::wait(q.pushed);
      q.unit_waiting = false;
    }
    const UnitQueue::Entry e = q.front();
    const std::uint64_t now = now_cycles();
    if (e.ready_cycle > now) sc_core::wait(cycles(e.ready_cycle - now));
    q.pop();
    if (q.controller_waiting) q.popped.notify();
    const PlannedOp& op = state_.plan.ops[e.op];
    state_.unit_status[id_].op = e.op;
    const std::uint64_t taken = now_cycles();
    take_tokens(op);
    const std::uint64_t stall = now_cycles() - taken;
    if (unit_ == isa::Unit::Load || unit_ == isa::Unit::Store) {
      const std::uint64_t tokens_taken = now_cycles();
      dma_.submit(state_.plan.transfers[op.transfer]);  // waits while the channel is busy
      state_.stats.dma_issued(op, stall, now_cycles() - tokens_taken);
      continue;
    }
    const std::uint64_t start = now_cycles();
    if (state_.signals) state_.signals->unit(unit_, true);
    execute(op);
    const std::uint64_t conflict = bank_conflict(op, start);
    sc_core::wait(cycles(op.cycles + conflict));
    if (state_.signals) state_.signals->unit(unit_, false);
    state_.stats.executed(op, start, now_cycles(), stall, conflict);
    state_.finished(unit_, op.push);
  }
}

std::uint64_t ExecutionUnit::bank_conflict(const PlannedOp& op, std::uint64_t start) {
  // The instruction's scratchpad traffic, spread over its operands by their sizes.
  std::uint64_t range_bytes = 0;
  for (int i = 0; i < op.range_count; ++i) range_bytes += op.ranges[i].bytes;
  const double times =
      range_bytes ? static_cast<double>(op.sram_read_bytes + op.sram_write_bytes) / static_cast<double>(range_bytes)
                  : 0.0;
  access_.clear();
  for (int i = 0; i < op.range_count; ++i) access_.add(op.ranges[i].addr, op.ranges[i].bytes, times);
  return state_.banks.begin(unit_ == isa::Unit::Compute ? ScratchpadBanks::kCompute : ScratchpadBanks::kVector, start,
                            op.cycles, access_);
}

void ExecutionUnit::take_tokens(const PlannedOp& op) {
  TokenBoard& tokens = state_.tokens;
  for (int src = 0; src < isa::kQueueCount; ++src) {
    if (!(op.pop & (1u << src))) continue;
    while (tokens.count[src][id_] == 0) {
      state_.unit_status[id_].waiting_token_from = src;
      tokens.waiting[id_] = true;
      sc_core::wait(tokens.arrived[id_]);
      tokens.waiting[id_] = false;
    }
    state_.unit_status[id_].waiting_token_from = -1;
    --tokens.count[src][id_];
  }
}

void ExecutionUnit::execute(const PlannedOp& op) {
  if (state_.options.timing_only) return;
  const isa::Instruction& inst = state_.program.code[op.index];
  try {
    if (unit_ == isa::Unit::Compute)
      mac_.execute(inst, sram_);
    else
      execute_vector(inst, sram_);
  } catch (const SimError& e) {
    throw SimError(instruction_label(op.index, op.opcode) + ": " + e.what());
  }
}

}  // namespace npu::sim
