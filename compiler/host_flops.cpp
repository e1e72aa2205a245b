#include "compiler/host_flops.h"

#include <vector>

#include "compiler/codegen.h"
#include "compiler/pipeline.h"

namespace npu::compiler {

std::uint64_t node_host_flops(const Graph& g, const Node& n) {
  std::uint64_t elements = 0;
  for (const auto& o : n.outputs)
    if (!o.empty() && g.tensor(o).shape_known) elements += static_cast<std::uint64_t>(g.tensor(o).elements());
  return 2 * node_macs(g, n) + elements;
}

std::uint64_t model_host_flops(const std::string& onnx_path, const CompileOptions& options) {
  std::vector<PassSummary> passes;
  const Graph g = import_and_optimize(onnx_path, options, passes);
  std::uint64_t flops = 0;
  for (const auto& n : g.nodes) flops += node_host_flops(g, n);
  return flops;
}

}  // namespace npu::compiler
