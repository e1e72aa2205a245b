// Cycles of the vector unit's instructions: latency + passes x ceil(elements / lanes), with
// the elements and passes of each instruction as the timing column of isa/instruction_set.def
// says. The simulator times vector instructions with this; the compiler estimates with it.
#pragma once
#include <cstdint>

#include "hwconfig/hardware_config.h"
#include "isa/instruction.h"

namespace npu::cost {

// The pool instruction's window geometry (its element count sets its cycles).
struct PoolShape {
  std::uint64_t in_h = 0, in_w = 0, channels = 0, kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1;
  std::uint64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  std::uint64_t out_h = 0, out_w = 0;  // 0 when the window does not fit the padded input
  static PoolShape of(const isa::Instruction& inst);
};

// Cycles per the timing column of the ISA table; functions cost their enum's passes
// (isa::enum_passes: act, binary, qbinary, reduce).
std::uint64_t vector_cycles(const isa::Instruction& inst, const VectorConfig& config);
// The same for an instruction whose length is its `count` field (every vector opcode except
// pool and softmax), from the opcode and count alone: what the tilers estimate epilogues with.
std::uint64_t vector_cycles(isa::Opcode op, std::uint64_t count, const VectorConfig& config);
// Lane groups of `outer` independent reductions over `length` elements spaced `inner` apart
// (reduce, softmax): contiguous (inner = 1) fills the lanes along the reduction, otherwise
// the lanes take `inner` neighbouring reductions side by side.
std::uint64_t reduction_groups(std::uint64_t outer, std::uint64_t length, std::uint64_t inner, std::uint64_t lanes);
// Elements the instruction processes (trace argument).
std::uint64_t vector_elements(const isa::Instruction& inst);

}  // namespace npu::cost
