// Loop nodes with a trip count known at compile time, and a condition that stays true, become
// their body repeated: each iteration's carried values feed the next, each scan output is the
// iterations' values stacked on a new first axis. Scan nodes over statically shaped inputs
// likewise, one step per slice of their scanned axis. The NPU runs straight-line programs.
#include <algorithm>
#include <optional>

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
  return g.add_int_constant(fresh, std::move(shape), std::move(ints), elem_type).name;
}

// A new value's name, unique in `g`.
std::string fresh_value(Graph& g, const std::string& base) {
  std::string name = base;
  for (int k = 1; g.tensors.count(name); ++k) name = base + "_" + std::to_string(k);
  g.tensors[name].name = name;
  return name;
}

// `parts` stacked along a new axis `axis` into `out`: one Unsqueeze each, then a Concat.
void stack(Graph& g, const Node& owner, const std::vector<std::string>& parts, std::int64_t axis,
           const std::string& base, const std::string& out, std::vector<Node>& nodes) {
  Node concat;
  concat.name = base;
  concat.op_type = "Concat";
  concat.set_int("axis", axis);  // Unsqueeze and Concat read a negative axis alike
  concat.outputs = {out};
  concat.fused_nodes = {owner.name};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    Node unsqueeze;
    unsqueeze.name = base + "/unsqueeze_" + std::to_string(i);
    unsqueeze.op_type = "Unsqueeze";
    unsqueeze.inputs = {parts[i]};
    if (g.opset >= 13) unsqueeze.inputs.push_back(constant(g, unsqueeze.name + "_axes", kInt64, {1}, {axis}));
    else unsqueeze.set_ints("axes", {axis});  // before opset 13 axes is an attribute
    const std::string expanded = fresh_value(g, unsqueeze.name);
    unsqueeze.outputs = {expanded};
    unsqueeze.fused_nodes = {owner.name};
    concat.inputs.push_back(expanded);
    nodes.push_back(std::move(unsqueeze));
  }
  nodes.push_back(std::move(concat));
}

// A Loop that can be unrolled: its trip count and the nodes unrolling adds.
struct LoopPlan {
  std::int64_t trips = 0, added = 0;
};

std::optional<LoopPlan> static_loop(const Graph& g, const Node& n) {
  if (n.op_type != "Loop" || !n.domain.empty() || n.inputs.size() < 2 || n.inputs[0].empty()) return std::nullopt;
  if (!g.is_constant(n.inputs[0])) return std::nullopt;
  const Tensor& m = g.tensor(n.inputs[0]);
  if (m.ints.size() != 1 || m.ints[0] < 1 || m.ints[0] > kMaxUnrolledIterations) return std::nullopt;
  if (!n.inputs[1].empty()) {
    if (!g.is_constant(n.inputs[1])) return std::nullopt;
    const Tensor& c = g.tensor(n.inputs[1]);
    if (c.ints.size() != 1 || c.ints[0] == 0) return std::nullopt;
  }
  const LoopPlan plan{m.ints[0], m.ints[0] * graph_attribute_nodes(n, "body")};
  if (plan.added > kMaxUnrolledNodes || !loop_body_condition_stays_true(n)) return std::nullopt;
  return plan;
}

// A Scan over statically shaped inputs: per step, each scan input's slice (Slice + Reshape away
// the scanned axis) feeds the body with the carried states; scan outputs are stacked along their
// axis (Reshape + Concat), in reverse where their direction says so.
bool unroll_scan(Graph& g, const Node& n, std::vector<Node>& nodes, std::int64_t& graph_nodes) {
  const std::int64_t scan_inputs = n.get_int("num_scan_inputs", -1);
  const std::int64_t states = static_cast<std::int64_t>(n.inputs.size()) - scan_inputs;
  if (scan_inputs < 1 || states < 0) return false;
  const auto in_axes = n.get_ints("scan_input_axes", std::vector<std::int64_t>(static_cast<std::size_t>(scan_inputs), 0));
  const auto in_dirs = n.get_ints("scan_input_directions", std::vector<std::int64_t>(static_cast<std::size_t>(scan_inputs), 0));
  const std::int64_t scan_outputs = static_cast<std::int64_t>(n.outputs.size()) - states;
  if (scan_outputs < 0) return false;
  const auto out_axes = n.get_ints("scan_output_axes", std::vector<std::int64_t>(static_cast<std::size_t>(scan_outputs), 0));
  const auto out_dirs = n.get_ints("scan_output_directions", std::vector<std::int64_t>(static_cast<std::size_t>(scan_outputs), 0));
  if (static_cast<std::int64_t>(in_axes.size()) != scan_inputs || static_cast<std::int64_t>(in_dirs.size()) != scan_inputs ||
      static_cast<std::int64_t>(out_axes.size()) != scan_outputs || static_cast<std::int64_t>(out_dirs.size()) != scan_outputs)
    return false;
  std::int64_t steps = -1;
  std::vector<std::vector<std::int64_t>> shapes;
  std::vector<std::int64_t> axes;
  for (std::int64_t k = 0; k < scan_inputs; ++k) {
    const std::string& v = n.inputs[static_cast<std::size_t>(states + k)];
    if (v.empty() || !g.tensor(v).shape_known) return false;
    const auto& shape = g.tensor(v).shape;
    std::int64_t axis = in_axes[static_cast<std::size_t>(k)];
    if (axis < 0) axis += static_cast<std::int64_t>(shape.size());
    if (axis < 0 || axis >= static_cast<std::int64_t>(shape.size())) return false;
    if (steps >= 0 && shape[static_cast<std::size_t>(axis)] != steps) return false;
    steps = shape[static_cast<std::size_t>(axis)];
    shapes.push_back(shape);
    axes.push_back(axis);
  }
  const std::int64_t added = steps * graph_attribute_nodes(n, "body");
  if (steps < 1 || steps > kMaxUnrolledIterations || added > kMaxUnrolledNodes || graph_nodes + added > kMaxGraphNodes)
    return false;
  std::vector<std::string> carried(n.inputs.begin(), n.inputs.begin() + states);
  std::vector<std::vector<std::string>> stacked(static_cast<std::size_t>(scan_outputs));
  for (std::int64_t i = 0; i < steps; ++i) {
    const std::string prefix = n.name + "/step" + std::to_string(i);
    std::vector<std::string> bound = carried;
    for (std::int64_t k = 0; k < scan_inputs; ++k) {
      const std::int64_t t = in_dirs[static_cast<std::size_t>(k)] ? steps - 1 - i : i;
      const std::size_t kk = static_cast<std::size_t>(k);
      std::vector<std::int64_t> dropped;  // the slice's shape without the scanned axis
      for (std::size_t d = 0; d < shapes[kk].size(); ++d)
        if (static_cast<std::int64_t>(d) != axes[kk]) dropped.push_back(shapes[kk][d]);
      const std::string sliced = fresh_value(g, prefix + "/in" + std::to_string(k) + "_slice");
      Node slice;
      slice.name = prefix + "/in" + std::to_string(k) + "_slice";
      slice.op_type = "Slice";
      slice.inputs = {n.inputs[static_cast<std::size_t>(states + k)], constant(g, slice.name + "_starts", kInt64, {1}, {t}),
                      constant(g, slice.name + "_ends", kInt64, {1}, {t + 1}),
                      constant(g, slice.name + "_axes", kInt64, {1}, {axes[kk]})};
      slice.outputs = {sliced};
      slice.fused_nodes = {n.name};
      nodes.push_back(std::move(slice));
      const std::string reshaped = fresh_value(g, sliced + "_squeezed");
      Node reshape;
      reshape.name = prefix + "/in" + std::to_string(k) + "_squeeze";
      reshape.op_type = "Reshape";
      reshape.inputs = {sliced, constant(g, reshape.name + "_shape", kInt64, {static_cast<std::int64_t>(dropped.size())}, dropped)};
      reshape.outputs = {reshaped};
      reshape.fused_nodes = {n.name};
      nodes.push_back(std::move(reshape));
      bound.push_back(reshaped);
    }
    InlinedGraph body = import_graph_attribute(g, n, "body", bound, prefix);
    if (static_cast<std::int64_t>(body.outputs.size()) != states + scan_outputs)
      throw CompileError(g.source + ": node '" + n.name + "' (Scan): its body has " + std::to_string(body.outputs.size()) +
                         " outputs, the node " + std::to_string(n.outputs.size()));
    for (auto& b : body.nodes) nodes.push_back(std::move(b));
    carried.assign(body.outputs.begin(), body.outputs.begin() + states);
    for (std::int64_t k = 0; k < scan_outputs; ++k)
      stacked[static_cast<std::size_t>(k)].push_back(body.outputs[static_cast<std::size_t>(states + k)]);
  }
  rename_to_outputs(n, carried, {n.outputs.begin(), n.outputs.begin() + states}, "final", nodes);
  for (std::int64_t k = 0; k < scan_outputs; ++k) {
    const std::size_t kk = static_cast<std::size_t>(k);
    const std::string& out = n.outputs[static_cast<std::size_t>(states + k)];
    if (out.empty()) continue;
    auto& parts = stacked[kk];
    if (out_dirs[kk]) std::reverse(parts.begin(), parts.end());
    stack(g, n, parts, out_axes[kk], n.name + "/scan_" + std::to_string(k), out, nodes);
  }
  graph_nodes += added;
  return true;
}

}  // namespace

int unroll_static_loops(Graph& g) {
  int unrolled = 0;
  std::vector<Node> nodes;
  nodes.reserve(g.nodes.size());
  std::int64_t graph_nodes = static_cast<std::int64_t>(g.nodes.size());
  for (auto& n : g.nodes) {
    if (n.op_type == "Scan" && n.domain.empty() && g.opset >= 9) {
      if (unroll_scan(g, n, nodes, graph_nodes)) ++unrolled;
      else nodes.push_back(std::move(n));
      continue;
    }
    const std::optional<LoopPlan> plan = static_loop(g, n);
    if (!plan || graph_nodes + plan->added > kMaxGraphNodes) {
      nodes.push_back(std::move(n));
      continue;
    }
    const std::int64_t trips = plan->trips;
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
    rename_to_outputs(n, values, {n.outputs.begin(), n.outputs.begin() + static_cast<std::ptrdiff_t>(carried)}, "final",
                      nodes);
    for (std::size_t k = 0; k < scans.size(); ++k)
      if (!n.outputs[carried + k].empty())
        stack(g, n, scans[k], 0, n.name + "/scan_" + std::to_string(k), n.outputs[carried + k], nodes);
    graph_nodes += plan->added;
    ++unrolled;
  }
  g.nodes = std::move(nodes);
  if (unrolled) g.sort_topologically();
  return unrolled;
}

}  // namespace npu::compiler
