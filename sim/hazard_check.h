// Checks a run against the instructions' byte footprints (costmodel/footprint.h): when two
// instructions touch the same scratchpad or DDR bytes and one of them writes, the later one in
// program order must not start before the earlier one has finished. A violation means the
// dependency tokens (or the footprints they were derived from) let a race through; a functional
// run may then compute wrong values while timing-only runs look fine. `npusim sim
// --check-hazards` runs it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "isa/instruction.h"
#include "sim/simulator.h"

namespace npu::sim {

struct Hazard {
  std::uint64_t earlier = 0, later = 0;  // instruction indices, earlier < later in program order
  std::uint64_t earlier_end = 0, later_start = 0;
  std::string what;                      // "read after write of sram [a, b)", ...
};

// `trace` from a run with SimOptions::record_trace: the compute/vector/control events and the
// DMA-channel events give each instruction's [start, end). At most `limit` hazards, earliest
// `later` first.
std::vector<Hazard> find_hazards(const std::vector<isa::Instruction>& code, const std::vector<TraceEvent>& trace,
                                 std::size_t limit = 20);

}  // namespace npu::sim
