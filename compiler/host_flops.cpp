#include "compiler/host_flops.h"

#include <vector>

#include "compiler/pipeline.h"

namespace npu::compiler {

std::uint64_t model_host_flops(const std::string& onnx_path, const CompileOptions& options) {
  std::vector<PassSummary> passes;
  const Graph g = import_and_optimize(onnx_path, options, passes);
  std::uint64_t flops = 0;
  for (const auto& n : g.nodes) flops += node_host_flops(g, n);
  return flops;
}

}  // namespace npu::compiler
