// Builds SimResult::trace and SimResult::ddr_bandwidth while a run with record_trace goes on
// (Statistics owns one only then, so untraced runs pay nothing for it):
//   compute / vector / control tracks: one event per instruction, [start, end);
//   dma<N> tracks: one event per transfer on channel N, [start, end) (a pipelined channel's
//     overlapping transfers go on lanes "dma<N> (2)", ...);
//   load / store tracks: one event per busy span, the union of the unit's transfers over all
//     channels (transfers on different channels overlap, and a thread track of overlapping
//     non-nested events does not render), so each track's durations sum to its busy cycles;
//   DDR bandwidth: each transfer's bus bytes spread evenly over its [start, end), summed over
//     the transfers in flight: a step function whose integral is the total bus bytes.
#pragma once
#include <cstdint>
#include <map>
#include <vector>

#include "costmodel/program_plan.h"
#include "sim/simulator.h"

namespace npu::sim {

using cost::DmaTransfer;
using cost::PlannedOp;
using cost::ProgramPlan;

class TraceRecorder {
 public:
  // `plans`: one per engine.
  TraceRecorder(const isa::Program& program, const std::vector<ProgramPlan>& plans, const HardwareConfig& config,
                const std::vector<InstructionLabel>& labels);

  void instruction(const PlannedOp& op, const char* track, std::uint64_t start, std::uint64_t end);
  void transfer(const DmaTransfer& t, std::uint64_t start, std::uint64_t end);
  // A busy span of the load or store unit: `transfers` transfers moving `bytes` in total,
  // the first of them instruction `first`.
  void span(int engine, bool store, std::uint64_t start, std::uint64_t end, std::uint64_t transfers, std::uint64_t bytes,
            std::uint32_t first);

  void take(SimResult& result);  // moves the events out; computes the bandwidth steps

 private:
  TraceEvent& add(const PlannedOp& op, const char* track, std::uint64_t start, std::uint64_t end);
  void describe(const PlannedOp& op, TraceEvent& e) const;
  std::vector<CounterSample> bandwidth() const;

  struct Interval {
    std::uint64_t start, end, bus_bytes;
  };
  const isa::Program& program_;
  const std::vector<ProgramPlan>& plans_;
  const HardwareConfig& config_;
  const std::vector<InstructionLabel>& labels_;
  std::vector<TraceEvent> events_;
  std::vector<Interval> transfers_;
  std::map<std::pair<int, std::string>, std::uint64_t> lane_end_;  // per engine and DMA track: end of its latest transfer
};

}  // namespace npu::sim
