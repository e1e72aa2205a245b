// State shared by the controller, the four units and the DMA channels of one run: the unit
// queues, the dependency-token counters, the count of unfinished instructions (for barrier
// and halt), statistics, and what each process is waiting for (for deadlock reports).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <systemc>

#include "sim/busy_signals.h"
#include "sim/program_plan.h"
#include "sim/scratchpad_banks.h"
#include "sim/statistics.h"

namespace npu::sim {

// One unit's instruction queue (bounded ring). `ready_cycle` is when the controller finished
// dispatching the entry: the controller runs ahead of simulated time and only stops when a
// queue is full or at barrier/halt, so it costs no SystemC event per instruction.
class UnitQueue {
 public:
  struct Entry {
    std::uint32_t op;
    std::uint64_t ready_cycle;
  };
  explicit UnitQueue(std::size_t depth) : ring_(depth) {}
  bool empty() const { return size_ == 0; }
  bool full() const { return size_ == ring_.size(); }
  const Entry& front() const { return ring_[head_]; }
  void push(const Entry& e) { ring_[(head_ + size_++) % ring_.size()] = e; }
  void pop() {
    head_ = (head_ + 1) % ring_.size();
    --size_;
  }

  sc_core::sc_event pushed, popped;  // notified only when the other side waits (flags below)
  bool unit_waiting = false, controller_waiting = false;

 private:
  std::vector<Entry> ring_;
  std::size_t head_ = 0, size_ = 0;
};

// count[src][dst]: tokens unit src gave unit dst and dst has not consumed yet.
struct TokenBoard {
  std::uint64_t count[isa::kQueueCount][isa::kQueueCount] = {};
  sc_core::sc_event arrived[isa::kQueueCount];
  bool waiting[isa::kQueueCount] = {};

  void give(int src, std::uint8_t mask) {
    for (int dst = 0; dst < isa::kQueueCount; ++dst)
      if (mask & (1u << dst)) {
        ++count[src][dst];
        if (waiting[dst]) arrived[dst].notify();
      }
  }
};

struct RunState {
  RunState(const isa::Program& program, const ProgramPlan& plan, const HardwareConfig& config,
           const SimOptions& options)
      : program(program),
        plan(plan),
        config(config),
        options(options),
        stats(program, plan, config, options),
        banks(config.sram),
        queues{UnitQueue(config.controller.queue_depth), UnitQueue(config.controller.queue_depth),
               UnitQueue(config.controller.queue_depth), UnitQueue(config.controller.queue_depth)} {}

  const isa::Program& program;
  const ProgramPlan& plan;
  const HardwareConfig& config;
  const SimOptions& options;
  Statistics stats;
  ScratchpadBanks banks;  // bank conflicts between compute, vector and the DMA port
  BusySignals* signals = nullptr;  // VCD busy lines, only when SimOptions::vcd_path is set
  UnitQueue queues[isa::kQueueCount];
  TokenBoard tokens;

  // Dispatched and not finished (queued, waiting for tokens, running or transferring).
  std::uint64_t inflight = 0;
  sc_core::sc_event drained;
  bool controller_draining = false;

  // An instruction finished: give its tokens, maybe release a barrier.
  void finished(isa::Unit unit, std::uint8_t push) {
    tokens.give(static_cast<int>(unit), push);
    if (--inflight == 0 && controller_draining) drained.notify();
  }

  // For deadlock reports.
  struct UnitStatus {
    int waiting_token_from = -1;
    std::uint32_t op = 0;
  } unit_status[isa::kQueueCount];
  int controller_blocked_queue = -1;
  std::uint32_t controller_op = 0;

  bool halted = false;
  std::uint64_t end_cycle = 0;
  std::string error;  // first error raised inside a process

  void fail(const std::string& message) {
    if (error.empty()) error = message;
    sc_core::sc_stop();
  }
};

}  // namespace npu::sim
