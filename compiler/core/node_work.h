// The work a node does, counted once for every stage that needs it: the MACs the layer records
// report, and the flops the host time model charges for nodes that run on the CPU (fallback
// steps, whole models run on the host).
#pragma once
#include <cstdint>

#include "compiler/core/graph.h"

namespace npu::compiler {

// MACs of a node (Conv, Gemm, MatMul, fused or not), 0 for others.
std::uint64_t node_macs(const Graph& graph, const Node& node);

// 2 flops per MAC (node_macs) plus one per output element: element-wise work and data
// movement cost the host about one operation per value written.
std::uint64_t node_host_flops(const Graph& graph, const Node& node);

}  // namespace npu::compiler
