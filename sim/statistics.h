// Counters behind every number the report shows, from the timing core's events: per-unit busy
// time (union of intervals with at least one instruction of the unit running), token stalls and
// DMA-channel waits, per-unit scratchpad traffic, per-DMA-channel traffic, MACs, and
// (record_trace only) the trace events. The per-instruction timing is the core's own record.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "costmodel/machine/instruction_timing.h"
#include "costmodel/program_plan.h"
#include "sim/simulator.h"
#include "sim/trace_recorder.h"

namespace npu::sim {

// Busy time of a resource that may run several activities at once (load/store over DMA
// channels): counts time with at least one active.
class BusyTracker {
 public:
  void begin(std::uint64_t cycle) {
    if (active_++ == 0) since_ = cycle;
  }
  // True when this ended a busy span [since(), cycle).
  bool end(std::uint64_t cycle) {
    if (--active_ != 0) return false;
    busy_ += cycle - since_;
    return true;
  }
  std::uint64_t since() const { return since_; }
  std::uint64_t busy_cycles() const { return busy_; }

 private:
  int active_ = 0;
  std::uint64_t since_ = 0, busy_ = 0;
};

class Statistics {
 public:
  Statistics(const isa::Program& program, const ProgramPlan& plan, const HardwareConfig& config,
             const SimOptions& options);

  // A compute or vector instruction ran [start, end) after waiting `stall` for tokens; the
  // run includes `bank_conflict` cycles waiting for scratchpad banks.
  void executed(const PlannedOp& op, std::uint64_t start, std::uint64_t end, std::uint64_t stall,
                std::uint64_t bank_conflict);
  // A DMA instruction was handed to its channel after waiting `stall` for tokens and then
  // `channel_wait` for the channel.
  void dma_issued(const PlannedOp& op, std::uint64_t stall, std::uint64_t channel_wait);
  void transfer_started(const DmaTransfer& t, std::uint64_t start);
  void transfer_finished(const DmaTransfer& t, std::uint64_t start, std::uint64_t end, const cost::DmaOutcome& outcome);
  // Barrier or halt: the controller waited [start, end) for the queues to drain.
  void control(const PlannedOp& op, std::uint64_t start, std::uint64_t end);

  // Everything except the DDR counters and the per-instruction timing; moves the trace out.
  void fill(SimResult& result, std::uint64_t end_cycle);

 private:
  UnitStats& unit(isa::Unit u) { return units_[static_cast<int>(u)]; }

  const ProgramPlan& plan_;
  const HardwareConfig& config_;
  UnitStats units_[isa::kQueueCount];
  BusyTracker busy_[isa::kQueueCount];
  std::vector<DmaChannelStats> channels_;
  std::vector<std::uint64_t> channel_busy_until_;  // pipelined channels overlap their transfers: count time once
  std::uint64_t int8_macs_ = 0, fp16_macs_ = 0;
  std::uint64_t vector_int_elements_ = 0, vector_float_elements_ = 0;
  std::unique_ptr<TraceRecorder> trace_;  // record_trace only
  // The load/store busy span being traced: transfers, bytes, first instruction.
  struct Span {
    std::uint64_t transfers = 0, bytes = 0;
    std::uint32_t first = 0;
  } span_[2];
};

}  // namespace npu::sim
