// What the host time model charges for a whole model run on the host (a stream's pre- and
// post-processing models, the CPU-only baseline a fallback is compared against); per node:
// core/node_work.h.
#pragma once
#include <cstdint>
#include <string>

#include "compiler/compile.h"
#include "compiler/core/graph.h"
#include "compiler/core/node_work.h"

namespace npu::compiler {

// node_host_flops summed over every node of an ONNX model after import and the graph passes
// (folding, fusion: the graph a CPU step would run), as if the whole model ran on the host.
// options.input_shapes fixes dynamic dims; throws CompileError as compile() does.
std::uint64_t model_host_flops(const std::string& onnx_path, const CompileOptions& options);

}  // namespace npu::compiler
