// The back end's layout pass (layout.cpp): a memory order per NPU value, Relayout copies where
// an operand's order is wrong, a host layout per value that crosses to the host.
#pragma once
#include <string>

#include "compiler/core/graph.h"

namespace npu::compiler {

// A memory order per NPU value (passes/layout.cpp) and a host layout per value that crosses to
// the host. Needs devices assigned (partition.h). Counts the NCHW<->NHWC conversions the
// runtime will do at the NPU boundary.
std::string convert_layout(Graph& graph, int& transposes);

}  // namespace npu::compiler
