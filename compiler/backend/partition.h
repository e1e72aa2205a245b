// Which device runs each node, and why not the NPU when it cannot; then contiguous runs of
// one device become steps.
#pragma once
#include <string>
#include <vector>

#include "compiler/core/graph.h"

namespace npu::compiler {

// Empty when the NPU can run `node` at `precision`, else the reason it cannot (one phrase:
// "op LeakyRelu has no NPU instruction", "auto_pad ... ", "kernel 17 exceeds the 4-bit field").
std::string npu_rejection(const Graph& graph, const Node& node, Precision precision);

// Sets every node's device and fallback_reason, reorders nodes (still topological) so that
// each device's nodes run in as few contiguous runs as possible, and returns the fallbacks.
// strict: throws CompileError naming the first node that would fall back (int8: but for the
// conversions at the integer boundary, which integer_boundary.h may yet take).
std::vector<Fallback> assign_devices(Graph& graph, Precision precision, bool strict);
// The reordering alone, after a later pass moved nodes between devices.
void order_by_device(Graph& graph);

struct StepNodes {
  Node::Device device = Node::Device::Npu;
  std::vector<int> nodes;            // indices into graph.nodes, in order
  std::vector<std::string> inputs;   // values read from outside the step
  std::vector<std::string> outputs;  // values used after the step (or graph outputs)
};
std::vector<StepNodes> group_steps(const Graph& graph);

// Number of device switches between consecutive steps.
std::uint32_t count_transitions(const std::vector<StepNodes>& steps);

}  // namespace npu::compiler
