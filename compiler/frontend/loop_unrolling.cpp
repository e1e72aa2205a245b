// Loop nodes with a trip count known at compile time, and a condition that stays true, become
// their body repeated: each iteration's carried values feed the next, each scan output is the
// iterations' values stacked on a new first axis. The NPU runs straight-line programs.
#include "compiler/frontend/onnx_io.h"
#include "compiler/frontend/passes.h"

namespace npu::compiler {
namespace {

// A loop this long, or this big unrolled, is left to the CPU: it would multiply the graph.
constexpr std::int64_t kMaxUnrolledIterations = 256;
constexpr std::int64_t kMaxUnrolledNodes = 20000;
constexpr std::int64_t kMaxGraphNodes = 100000;  // loops in unrolled loops unroll only up to this

std::string constant(Graph& g, const std::string& name, int elem_type, std::vector<std::int64_t> shape,
                     std::vector<std::int64_t> ints) {
  std::string fresh = name;
  for (int k = 1; g.tensors.count(fresh); ++k) fresh = name + "_" + std::to_string(k);
  Tensor& t = g.tensors[fresh];
  t.name = fresh;
  t.elem_type = elem_type;
  t.shape = std::move(shape);
  t.ints = std::move(ints);
  t.is_constant = true;
  t.shape_known = true;
  return fresh;
}

// The trip count when the loop can be unrolled, else -1.
std::int64_t static_trip_count(const Graph& g, const Node& n) {
  if (n.op_type != "Loop" || !n.domain.empty() || n.inputs.size() < 2 || n.inputs[0].empty()) return -1;
  if (!g.is_constant(n.inputs[0])) return -1;
  const Tensor& m = g.tensor(n.inputs[0]);
  if (m.ints.size() != 1 || m.ints[0] < 1 || m.ints[0] > kMaxUnrolledIterations) return -1;
  if (!n.inputs[1].empty()) {
    if (!g.is_constant(n.inputs[1])) return -1;
    const Tensor& c = g.tensor(n.inputs[1]);
    if (c.ints.size() != 1 || c.ints[0] == 0) return -1;
  }
  if (m.ints[0] * graph_attribute_nodes(n, "body") > kMaxUnrolledNodes) return -1;
  return loop_body_condition_stays_true(n) ? m.ints[0] : -1;
}

}  // namespace

int unroll_static_loops(Graph& g) {
  int unrolled = 0;
  std::vector<Node> nodes;
  nodes.reserve(g.nodes.size());
  std::int64_t graph_nodes = static_cast<std::int64_t>(g.nodes.size());
  for (auto& n : g.nodes) {
    const std::int64_t trips = static_trip_count(g, n);
    const std::int64_t added = trips < 0 ? 0 : trips * graph_attribute_nodes(n, "body");
    if (trips < 0 || graph_nodes + added > kMaxGraphNodes) {
      nodes.push_back(std::move(n));
      continue;
    }
    const std::size_t carried = n.inputs.size() - 2;
    if (n.outputs.size() < carried)
      throw CompileError(g.source + ": node '" + n.name + "' (Loop): " + std::to_string(carried) +
                         " loop-carried inputs but " + std::to_string(n.outputs.size()) + " outputs");
    const std::string always = constant(g, n.name + "/cond", kBool, {}, {1});
    std::vector<std::string> values(n.inputs.begin() + 2, n.inputs.end());
    std::vector<std::vector<std::string>> scans(n.outputs.size() - carried);
    for (std::int64_t i = 0; i < trips; ++i) {
      const std::string prefix = n.name + "/iter" + std::to_string(i);
      std::vector<std::string> bound = {constant(g, prefix + "/i", kInt64, {}, {i}), always};
      bound.insert(bound.end(), values.begin(), values.end());
      InlinedGraph body = import_graph_attribute(g, n, "body", bound, prefix);
      if (body.outputs.size() != 1 + n.outputs.size())
        throw CompileError(g.source + ": node '" + n.name + "' (Loop): its body has " +
                           std::to_string(body.outputs.size()) + " outputs, the node " +
                           std::to_string(n.outputs.size()) + " plus the condition");
      for (auto& b : body.nodes) nodes.push_back(std::move(b));
      values.assign(body.outputs.begin() + 1, body.outputs.begin() + 1 + static_cast<std::ptrdiff_t>(carried));
      for (std::size_t k = 0; k < scans.size(); ++k) scans[k].push_back(body.outputs[1 + carried + k]);
    }
    for (std::size_t k = 0; k < carried; ++k) {
      if (n.outputs[k].empty()) continue;
      Node id;
      id.name = n.name + "/final_" + std::to_string(k);
      id.op_type = "Identity";
      id.inputs = {values[k]};
      id.outputs = {n.outputs[k]};
      id.fused_nodes = {n.name};
      nodes.push_back(std::move(id));
    }
    const std::string axes = constant(g, n.name + "/axes", kInt64, {1}, {0});
    for (std::size_t k = 0; k < scans.size(); ++k) {
      const std::string& out = n.outputs[carried + k];
      if (out.empty()) continue;
      Node concat;
      concat.name = n.name + "/scan_" + std::to_string(k);
      concat.op_type = "Concat";
      concat.set_int("axis", 0);
      concat.outputs = {out};
      concat.fused_nodes = {n.name};
      for (std::size_t i = 0; i < scans[k].size(); ++i) {
        Node unsqueeze;
        unsqueeze.name = concat.name + "/unsqueeze_" + std::to_string(i);
        unsqueeze.op_type = "Unsqueeze";
        unsqueeze.inputs = {scans[k][i]};
        if (g.opset >= 13) unsqueeze.inputs.push_back(axes);  // before opset 13 axes is an attribute
        else unsqueeze.set_ints("axes", {0});
        std::string stacked = unsqueeze.name;
        for (int j = 1; g.tensors.count(stacked); ++j) stacked = unsqueeze.name + "_" + std::to_string(j);
        g.tensors[stacked].name = stacked;
        unsqueeze.outputs = {stacked};
        unsqueeze.fused_nodes = {n.name};
        concat.inputs.push_back(stacked);
        nodes.push_back(std::move(unsqueeze));
      }
      nodes.push_back(std::move(concat));
    }
    graph_nodes += added;
    ++unrolled;
  }
  g.nodes = std::move(nodes);
  if (unrolled) g.sort_topologically();
  return unrolled;
}

}  // namespace npu::compiler
