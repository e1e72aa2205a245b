#include "compiler/core/node_work.h"

#include <algorithm>

namespace npu::compiler {

std::uint64_t node_macs(const Graph& g, const Node& n) {
  const std::string& op = n.op_type;
  if (op != "Conv" && op != "FusedConv" && op != "Gemm" && op != "FusedGemm" && op != "MatMul") return 0;
  if (n.inputs.size() < 2 || n.outputs.empty()) return 0;
  if (op == "MatMul") {  // y [.., M, N] from a k-long reduction per element
    const Tensor& a = g.tensor(n.inputs[0]);
    const Tensor& y = g.tensor(n.outputs[0]);
    if (!a.shape_known || !y.shape_known || a.shape.empty()) return 0;
    return static_cast<std::uint64_t>(y.elements() * a.shape.back());
  }
  const Tensor& w = g.tensor(n.inputs[1]);
  const Tensor& y = g.tensor(n.outputs[0]);
  if (!w.shape_known || !y.shape_known) return 0;
  if (op == "Conv" || op == "FusedConv") {
    std::int64_t per_output = w.elements() / std::max<std::int64_t>(w.shape[0], 1);
    return static_cast<std::uint64_t>(y.elements() * per_output);
  }
  const Tensor& x = g.tensor(n.inputs[0]);
  std::int64_t k = x.shape.empty() ? 1 : x.shape.back();
  return static_cast<std::uint64_t>(y.elements() * k);
}

std::uint64_t node_host_flops(const Graph& g, const Node& n) {
  std::uint64_t elements = 0;
  for (const auto& o : n.outputs)
    if (!o.empty() && g.tensor(o).shape_known) elements += static_cast<std::uint64_t>(g.tensor(o).elements());
  return 2 * node_macs(g, n) + elements;
}

}  // namespace npu::compiler
