// Dependency tokens from data hazards: instead of a barrier between layers, every instruction
// waits for exactly the earlier instructions whose scratchpad or DDR bytes it depends on.
//
// The pass walks an NPU step in program order. For each instruction it takes its footprint
// (costmodel/footprint.h) and finds, per unit, the latest earlier instruction it conflicts
// with (read after write, write after read, write after write, on the scratchpad or in DDR).
// If that instruction is not already known to be finished when this one starts (in-order
// units; transitively through the tokens placed so far), the producer pushes a token to this
// instruction's unit and this instruction pops it. Tokens always point forward in program
// order and are matched in order per (producer, consumer) pair, so the program cannot
// deadlock and the counts balance.
//
// What it relies on: a unit runs and finishes its instructions in order. For compute and vector
// that is the hardware; for DMA it holds because the pass puts every load on channel 0 and
// every store on channel 1 (one transfer at a time per channel). An opcode without a known
// footprint counts as reading and writing the whole scratchpad.
//
// Any push/pop masks the generators set are replaced; barriers stay (and order everything).
#pragma once
#include <cstddef>
#include <vector>

#include "isa/instruction.h"

namespace npu::compiler {

struct TokenStats {
  std::size_t tokens = 0;  // push/pop pairs placed
};

// Rewrites the push/pop masks (and DMA channels) of code[first, end).
TokenStats derive_dependency_tokens(std::vector<isa::Instruction>& code, std::size_t first, std::size_t end);

}  // namespace npu::compiler
