// A program checked and decoded once before it is timed: every field the timing core
// (costmodel/machine) needs per instruction is precomputed here, so the core touches only small
// structs (that is what keeps it above a million instructions per second), and every
// address/shape error is reported before time 0 with the instruction's index. The simulator
// and the compiler's estimate plan a program with the same call.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "hwconfig/hardware_config.h"
#include "isa/program.h"

namespace npu::cost {

struct DmaTransfer {
  std::uint32_t index = 0;  // instruction index
  bool store = false;       // scratchpad -> DDR
  std::uint32_t channel = 0;  // already taken modulo dma.channels
  std::uint64_t ddr_addr = 0, sram_addr = 0;
  std::uint64_t len0 = 0, count1 = 1, count2 = 1, count3 = 1;
  std::uint64_t ddr_stride1 = 0, ddr_stride2 = 0, ddr_stride3 = 0;
  std::uint64_t sram_stride1 = 0, sram_stride2 = 0, sram_stride3 = 0;
  std::uint64_t bytes = 0;          // len0 * count1 * count2 * count3
  std::uint64_t bounce_cycles = 0;  // bounce_setup + ceil(bytes / bounce_bytes_per_cycle), or 0
  std::uint64_t bus_bytes = 0;      // whole DDR bursts of all runs (what the DDR models count); 0 when shared
  // Its DDR span is in the shared SRAM window (costmodel/shared_sram.h): the other side of the
  // transfer is the memory the engines share, with its own arbiter, not DDR.
  bool shared = false;
  std::uint8_t push = 0;            // tokens given when the transfer completes
  std::uint8_t engine = 0;          // the engine whose channel runs it
  // gather (a load whose runs are table rows picked by indices in the scratchpad): the table's
  // rows (0: not a gather) and where the int32 indices are. Timing walks run i at row
  // i % gather_rows (isa/instruction_set.def); the data path reads the index (sim/dma_engine).
  std::uint64_t gather_rows = 0, index_addr = 0;
  // mload (isa/instruction_set.def) of a group of engines [multicast_first, + multicast_count),
  // count > 1 (plan_engines resolves it, else it is a load): the group's `multicast_round`-th.
  // The group's first engine moves the bytes; the others' copies finish with its transfer.
  std::uint8_t multicast_first = 0, multicast_count = 0;
  std::uint32_t multicast_round = 0;
  bool multicast_follower() const { return multicast_count > 1 && engine != multicast_first; }
};

struct PlannedOp {
  isa::Opcode opcode = isa::Opcode::Halt;
  isa::Unit unit = isa::Unit::Control;
  std::uint8_t pop = 0, push = 0;
  std::uint32_t index = 0;     // instruction index (== code.size() for the implicit halt)
  std::uint8_t engine = 0;     // the engine whose stream holds it
  // sync: the engines that meet there, [sync_first, sync_first + sync_count) (plan_engines
  // resolves a count of 0 to every engine of the program).
  std::uint8_t sync_first = 0, sync_count = 0;
  std::uint32_t transfer = 0;  // DMA: index into ProgramPlan::transfers
  std::uint64_t cycles = 0;    // compute and vector: execution cycles
  std::uint64_t macs = 0;
  bool fp16 = false;
  // Scratchpad traffic (sim/README.md "Energy"): DMA the bytes moved, compute as the array
  // streams the operands (MacArrayCost::traffic), vector each operand once.
  std::uint64_t sram_read_bytes = 0, sram_write_bytes = 0;
  std::uint64_t vector_elements = 0;  // vector: elements processed (energy per element)
  bool vector_float = false;          // vector: fp16/fp32 elements (an FP lane's energy)
  // Compute and vector: the scratchpad ranges of its operands, for bank conflicts (the
  // traffic above is spread over them in proportion to their sizes). A range repeated by
  // the checks (an accumulator read and written) is kept once.
  struct SramRange {
    std::uint32_t addr = 0, bytes = 0;
  };
  static constexpr int kMaxRanges = 6;
  SramRange ranges[kMaxRanges];
  std::uint8_t range_count = 0;
};

struct ProgramPlan {
  std::vector<PlannedOp> ops;  // up to and including the first halt; a halt is appended if none
  std::uint32_t code_size = 0;  // instructions planned from (an appended halt has this index)
  std::vector<DmaTransfer> transfers;
  std::uint64_t sram_peak_bytes = 0;
};

struct PlanOptions {
  // A pop whose token no earlier instruction of the range pushes counts as satisfied (the
  // compiler estimates a step or a layer cut out of a program); otherwise it deadlocks.
  bool unmatched_pops_satisfied = false;
  // The compiler's trial placements may put operands outside the memories while it searches:
  // time them instead of refusing them (the scratchpad's banks wrap around past its capacity).
  bool trial = false;
  // A stream of a multi-engine program: instruction indices count from `index_base` (the
  // stream's start in the program), and the ops belong to `engine`.
  std::uint32_t index_base = 0;
  std::uint8_t engine = 0;
};

// Plans code[first, end) (instruction indices relative to `first`). Throws TimingError
// "instruction #12 (conv): ..." for the first invalid instruction.
ProgramPlan plan_program(const std::vector<isa::Instruction>& code, std::size_t first, std::size_t end,
                         const HardwareConfig& config, const PlanOptions& options = {});
// One plan per engine stream of `program` (Program::engine_starts; one for a one-engine program),
// indices counted from the program's start. Throws TimingError when the program has more streams
// than the config has engines, a stream does not end in halt, a sync's group lies outside the
// program or leaves out its own engine, or a group's members hold different numbers of its syncs.
std::vector<ProgramPlan> plan_engines(const isa::Program& program, const HardwareConfig& config);

// "instruction #12 (conv)"
std::string instruction_label(std::uint64_t index, isa::Opcode op);

}  // namespace npu::cost
