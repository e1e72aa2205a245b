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
// What it relies on: compute and vector run and finish their instructions in order. Long loads
// take DMA channel 0 and short ones channel 2 (stores: 1 and 3; the rule is in the .cpp), so a
// transfer can finish before the one issued ahead of it; the DMA engine still retires (gives tokens) in issue order
// per unit (sim/dma_engine.h), so a token from a transfer vouches for every earlier one of its
// unit. A transfer that touches the bytes of an earlier, unfinished transfer of its own unit
// (two loads into one buffer) pops a token from it. An opcode without a known footprint counts
// as reading and writing the whole scratchpad.
//
// Any push/pop masks the generators set are replaced; barriers stay (and order everything).
#pragma once
#include <cstddef>
#include <vector>

#include "costmodel/footprint.h"
#include "isa/instruction.h"

namespace npu::compiler {

struct TokenStats {
  std::size_t tokens = 0;  // push/pop pairs placed
};

// Rewrites the push/pop masks (and DMA channels) of code[first, end). `footprints` (optional):
// code[first + k]'s footprint at [k], for a caller that has them already (the layer interleave
// times hundreds of windows of the same instructions; neither the masks nor the channel change
// a footprint).
TokenStats derive_dependency_tokens(std::vector<isa::Instruction>& code, std::size_t first, std::size_t end,
                                    const std::vector<const cost::Footprint*>* footprints = nullptr);

}  // namespace npu::compiler
