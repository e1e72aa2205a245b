// What the host time model charges for nodes that run on the CPU: the compiler counts it once
// here, for CPU fallback steps and for whole models run on the host (a stream's pre- and
// post-processing models, the CPU-only baseline a fallback is compared against).
#pragma once
#include <cstdint>
#include <string>

#include "compiler/compile.h"
#include "compiler/graph.h"

namespace npu::compiler {

// 2 flops per MAC (node_macs) plus one per output element: element-wise work and data
// movement cost the host about one operation per value written.
std::uint64_t node_host_flops(const Graph& graph, const Node& node);

// node_host_flops summed over every node of an ONNX model after import and the graph passes
// (folding, fusion: the graph a CPU step would run), as if the whole model ran on the host.
// options.input_shapes fixes dynamic dims; throws CompileError as compile() does.
std::uint64_t model_host_flops(const std::string& onnx_path, const CompileOptions& options);

}  // namespace npu::compiler
