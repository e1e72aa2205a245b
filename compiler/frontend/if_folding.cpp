// If nodes whose condition is known at compile time (a constant, or computed from shapes and
// constants by folding) give way to the branch they take: exporters emit them for a choice a
// fixed input shape already settles (a sample rate, an input size), and left in place one such
// node keeps the whole graph on the CPU.
#include "compiler/frontend/onnx_io.h"
#include "compiler/frontend/passes.h"

namespace npu::compiler {

int fold_known_ifs(Graph& g) {
  int folded = 0;
  std::vector<Node> nodes;
  nodes.reserve(g.nodes.size());
  for (auto& n : g.nodes) {
    const bool known = n.op_type == "If" && n.domain.empty() && !n.inputs.empty() && !n.inputs[0].empty() &&
                       g.is_constant(n.inputs[0]);
    if (!known) {
      nodes.push_back(std::move(n));
      continue;
    }
    const Tensor& cond = g.tensor(n.inputs[0]);
    if (cond.ints.size() + cond.floats.size() != 1)
      throw CompileError(g.source + ": node '" + n.name + "' (If): condition '" + n.inputs[0] + "' has " +
                         std::to_string(cond.ints.size() + cond.floats.size()) + " elements, not one");
    const bool then_branch = cond.ints.empty() ? cond.floats[0] != 0.0f : cond.ints[0] != 0;
    InlinedGraph branch = import_graph_attribute(g, n, then_branch ? "then_branch" : "else_branch", {}, n.name);
    if (branch.outputs.size() != n.outputs.size())
      throw CompileError(g.source + ": node '" + n.name + "' (If): its " + (then_branch ? "then" : "else") +
                         " branch has " + std::to_string(branch.outputs.size()) + " outputs, the node " +
                         std::to_string(n.outputs.size()));
    for (auto& b : branch.nodes) nodes.push_back(std::move(b));
    rename_to_outputs(n, branch.outputs, n.outputs, then_branch ? "then_output" : "else_output", nodes);
    ++folded;
  }
  g.nodes = std::move(nodes);
  // A branch reads outer values the If node did not list as inputs: order by the real edges.
  if (folded) g.sort_topologically();
  return folded;
}

}  // namespace npu::compiler
