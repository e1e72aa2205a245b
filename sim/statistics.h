// Counters behind every number the report shows, from the timing core's events: per engine and
// unit the busy time (union of intervals with at least one instruction of the unit running),
// token stalls and DMA-channel waits, scratchpad traffic, per-DMA-channel traffic, MACs, and
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
  // `plans`: one per engine (cost::plan_engines).
  Statistics(const isa::Program& program, const std::vector<ProgramPlan>& plans, const HardwareConfig& config,
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
  // Barrier, sync or halt: the controller waited [start, end) for the queues to drain (and the
  // other engines).
  void control(const PlannedOp& op, std::uint64_t start, std::uint64_t end);

  // Everything except the DDR counters and the per-instruction timing; moves the trace out.
  // `engine_ends`: each engine's halt.
  void fill(SimResult& result, std::uint64_t end_cycle, const std::vector<std::uint64_t>& engine_ends);

 private:
  struct PerEngine {
    UnitStats units[isa::kQueueCount];
    BusyTracker busy[isa::kQueueCount];
    std::vector<DmaChannelStats> channels;
    std::vector<std::uint64_t> channel_busy_until;  // pipelined channels overlap their transfers: count time once
    std::uint64_t int8_macs = 0, fp16_macs = 0;
    std::uint64_t ddr_read = 0, ddr_written = 0;
    std::uint64_t shared_read = 0, shared_written = 0;  // transfers in the shared SRAM window
    std::uint64_t multicast_read = 0;  // bytes its mloads received from another engine's transfer
    // The load/store busy span being traced: transfers, bytes, first instruction.
    struct Span {
      std::uint64_t transfers = 0, bytes = 0;
      std::uint32_t first = 0;
    } span[2];
  };
  UnitStats& unit(const PlannedOp& op) { return engines_[op.engine].units[static_cast<int>(op.unit)]; }
  const PlannedOp& op_of(const DmaTransfer& t) const;

  const std::vector<ProgramPlan>& plans_;
  const HardwareConfig& config_;
  std::vector<PerEngine> engines_;
  std::uint64_t vector_int_elements_ = 0, vector_float_elements_ = 0;
  std::unique_ptr<TraceRecorder> trace_;  // record_trace only
};

}  // namespace npu::sim
