#include "compiler/reference/constant_evaluator.h"
#include "compiler/frontend/passes.h"

namespace npu::compiler {
namespace {

// Shape and Size need only a known shape; everything else needs every input constant.
bool foldable(const Graph& g, const Node& n) {
  if (!n.domain.empty() || n.inputs.empty()) return false;
  if (n.op_type == "Shape" || n.op_type == "Size")
    return !n.inputs[0].empty() && g.tensor(n.inputs[0]).shape_known;
  for (const auto& in : n.inputs)
    if (!in.empty() && !g.is_constant(in)) return false;
  return true;
}

}  // namespace

std::string fold_constants(Graph& g) {
  int folded = 0;
  std::vector<Node> kept;
  kept.reserve(g.nodes.size());
  std::vector<Tensor> outputs;
  for (auto& n : g.nodes) {
    if (!foldable(g, n) || !fold_node(g, n, outputs)) {
      kept.push_back(std::move(n));
      continue;
    }
    for (auto& t : outputs) {
      if (t.name.empty()) continue;
      Tensor& dst = g.tensor(t.name);
      t.order = dst.order;
      dst = std::move(t);
    }
    ++folded;
  }
  g.nodes = std::move(kept);
  return "folded " + std::to_string(folded) + " constant nodes";
}

}  // namespace npu::compiler
