// A channel Concat of NHWC values when the step keeps its output or some of its parts on chip
// (step_schedule.h): each part goes into the output's pixels where the output lies, scratchpad
// to scratchpad with the ISA's copy (a part on chip) or through a staging slot (a part in DDR);
// an output kept in DDR only takes the parts on chip with strided stores. No byte crosses the
// DDR that need not: DenseNet concatenates every earlier feature map of a block before each
// layer, and copied them all through DDR.
#pragma once
#include <string>

#include "compiler/backend/codegen_context.h"

namespace npu::compiler {

// Whether a move node can read (an input) or write (its output) `value` on chip: the inputs and
// output of a 4-D channel Concat of computed values; nothing else a move does.
bool move_on_chip(const Graph& graph, const Node& node, const std::string& value);

// Whether `node` (a move) reads or writes a value the step keeps on chip.
bool moves_values_on_chip(const CodegenContext& ctx, const Node& node);

// The code of such a Concat; a CompileError (so the scheduler finds no plan with the value on
// chip) for one it cannot do: an engine's part, a KV-cache Concat written in place, parts or an
// output not stored as dense NHWC pixels of one element size.
LayerCode generate_concat_on_chip(CodegenContext& ctx, const Node& node);

}  // namespace npu::compiler
