#include "compiler/backend/partition.h"

#include <algorithm>
#include <map>
#include <set>

#include "compiler/backend/integer_boundary.h"
#include "compiler/backend/move_params.h"
#include "compiler/backend/op_registry.h"
#include "compiler/core/npu_ops.h"
#include "compiler/core/subgraph_capture.h"
#include "compiler/passes/passes.h"

namespace npu::compiler {
namespace {

bool is_float(int t) { return t == kFloat || t == kFloat16; }

std::string batch_one(const Graph& g, const Node& n) {
  for (const auto* names : {&n.inputs, &n.outputs})
    for (const auto& v : *names)
      if (!v.empty() && !g.is_constant(v) && g.tensor(v).shape.size() == 4 && g.tensor(v).shape[0] != 1)
        return "batch " + std::to_string(g.tensor(v).shape[0]) + " (the NPU's NHWC images are batch 1)";
  return "";
}

}  // namespace

std::string npu_rejection(const Graph& g, const Node& n, Precision precision) {
  const std::string& op = n.op_type;
  if (n.domain == kTfliteOnlyDomain && op == "IF")
    return "TFLite IF whose condition '" + (n.inputs.empty() ? std::string() : n.inputs[0]) +
           "' is known only at run time (fold it: --input-value for the input it comes from); LiteRT runs it";
  if (n.domain == kTfliteOnlyDomain && op == "WHILE")
    return "TFLite WHILE whose trip count is not known at compile time (cond comparing a counter with a constant, the "
           "body stepping it by a constant) or is over 256 (20000 nodes unrolled); LiteRT runs it";
  if (n.domain == kTfliteOnlyDomain) return "a TFLite op with no ONNX equivalent: only LiteRT runs it (npusim times it, cannot execute it)";
  if (!n.domain.empty() && n.domain != "npusim") return "domain '" + n.domain + "' is not an NPU op set";
  // Control flow the front end could not fold (frontend/if_folding.cpp, --input-value).
  if (op == "If")
    return "its condition '" + (n.inputs.empty() ? std::string() : n.inputs[0]) +
           "' is known only at run time (fold it: --input-value for the input it comes from)";
  if (op == "Loop")
    return "its trip count is not known at compile time, is over 256, or its condition can change, so it is not "
           "unrolled (the NPU runs straight-line programs; nor beyond 20000 nodes unrolled)";
  if (op == "Scan")
    return "its scanned axis is not static, or over 256 steps (20000 nodes) unrolled, so it is not unrolled (the NPU "
           "runs straight-line programs)";
  if (is_recurrent(n)) {
    const std::string why = recurrent_lowering_obstacle(g, n);
    return op + " not unrolled into NPU ops: " + (why.empty() ? std::string("(lowering off)") : why);
  }
  int activations = 0;
  for (const auto& in : n.inputs) {
    if (in.empty()) continue;
    const Tensor& t = g.tensor(in);
    if (!t.shape_known) return "input '" + in + "' has an unknown shape";
    if (t.is_constant) continue;  // weights and parameters (shapes, indices, pads) are compiled in
    // token ids: int32 in DDR (the runtime narrows int64), clipped into the table or not
    if ((is_row_gather(g, n) && in == n.inputs[1]) || (is_index_clip(g, n) && in == n.inputs[0])) {
      ++activations;
      continue;
    }
    if (!is_float(t.elem_type)) return std::string("input '") + in + "' is " + elem_type_name(t.elem_type) + ", the NPU takes float models";
    ++activations;
  }
  for (const auto& out : n.outputs) {
    if (out.empty()) continue;
    const Tensor& t = g.tensor(out);
    if (!t.shape_known) return "output '" + out + "' has an unknown shape";
    if (!is_float(t.elem_type) && !is_index_clip(g, n)) return std::string("output '") + out + "' is " + elem_type_name(t.elem_type);
    for (auto d : t.shape)
      if (d == 0) return "empty tensor";
  }
  if (n.inputs.empty() || n.inputs[0].empty()) return "no data input";
  if (activations == 0 && op != "FusedGemm") return "every input is a constant (nothing to run)";
  const bool int8 = precision == Precision::Int8;
  if (needs_nhwc(op)) {
    auto why = batch_one(g, n);
    if (!why.empty()) return why;
  }
  if (is_index_clip(g, n)) return "";
  const NpuOpFamily* family = npu_op_family(n);
  if (!family || !family->rejection) return "op " + op + " has no NPU instruction";
  return family->rejection(g, n, int8);
}

std::vector<Fallback> assign_devices(Graph& g, Precision precision, bool strict) {
  std::vector<Fallback> fallbacks;
  for (auto& n : g.nodes) {
    std::string why = npu_rejection(g, n, precision);
    n.device = why.empty() ? Node::Device::Npu : Node::Device::Cpu;
    n.fallback_reason = why;
    if (why.empty() && is_index_clip(g, n)) n.set_int(kIndexClip, 1);
    if (!why.empty()) {
      if (strict && !(precision == Precision::Int8 && at_integer_boundary(g, n)))
        throw CompileError(g.source + ": --strict: node '" + n.name + "' (" + n.op_type +
                           ") would fall back to the CPU: " + why);
      fallbacks.push_back({n.name, n.op_type, why});
    }
  }
  order_by_device(g);
  return fallbacks;
}

void order_by_device(Graph& g) {
  // Kahn's algorithm preferring the device we are on: fewer NPU<->CPU switches.
  std::map<std::string, int> producer;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    for (const auto& o : g.nodes[i].outputs) producer[o] = static_cast<int>(i);
  std::vector<int> pending(g.nodes.size(), 0);
  std::vector<std::vector<int>> users(g.nodes.size());
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    std::set<int> deps;
    for (const auto& in : values_read(g.nodes[i])) {
      auto it = producer.find(in);
      if (it != producer.end() && it->second != static_cast<int>(i)) deps.insert(it->second);
    }
    pending[i] = static_cast<int>(deps.size());
    for (int d : deps) users[d].push_back(static_cast<int>(i));
  }
  std::vector<int> ready, order;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    if (!pending[i]) ready.push_back(static_cast<int>(i));
  Node::Device current = g.nodes.empty() ? Node::Device::Npu : g.nodes[0].device;
  while (!ready.empty()) {
    auto pick = std::find_if(ready.begin(), ready.end(), [&](int i) { return g.nodes[i].device == current; });
    if (pick == ready.end()) pick = std::min_element(ready.begin(), ready.end());
    int i = *pick;
    ready.erase(pick);
    current = g.nodes[i].device;
    order.push_back(i);
    for (int u : users[i])
      if (--pending[u] == 0) ready.push_back(u);
  }
  std::vector<Node> sorted;
  for (int i : order) sorted.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(sorted);
}

std::vector<StepNodes> group_steps(const Graph& g) {
  std::vector<StepNodes> steps;
  // A node only LiteRT runs is a CPU step of its own (its executor runs that one op).
  auto alone = [&](std::size_t i) { return g.nodes[i].domain == kTfliteOnlyDomain; };
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    if (steps.empty() || steps.back().device != g.nodes[i].device || alone(i) || (i > 0 && alone(i - 1))) {
      steps.emplace_back();
      steps.back().device = g.nodes[i].device;
    }
    steps.back().nodes.push_back(static_cast<int>(i));
  }
  std::vector<std::vector<std::string>> reads(g.nodes.size());
  std::map<std::string, std::vector<int>> readers;  // value -> the nodes that read it
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    reads[i] = values_read(g.nodes[i]);
    for (const auto& v : reads[i]) readers[v].push_back(static_cast<int>(i));
  }
  for (auto& s : steps) {
    std::set<int> inside(s.nodes.begin(), s.nodes.end());
    std::set<std::string> produced, seen;
    for (int i : s.nodes)
      for (const auto& o : g.nodes[i].outputs) produced.insert(o);
    for (int i : s.nodes) {
      for (const auto& in : reads[i])  // captured outer-scope values included
        if (!produced.count(in) && !g.is_constant(in) && seen.insert(in).second)
          s.inputs.push_back(in);
      for (const auto& o : g.nodes[i].outputs) {
        if (o.empty()) continue;
        bool outside = g.is_graph_output(o);
        const auto r = readers.find(o);
        if (r != readers.end())
          for (int c : r->second) outside |= !inside.count(c);
        if (outside) s.outputs.push_back(o);
      }
    }
  }
  return steps;
}

std::uint32_t count_transitions(const std::vector<StepNodes>& steps) {
  std::uint32_t t = 0;
  for (std::size_t i = 1; i < steps.size(); ++i) t += steps[i].device != steps[i - 1].device;
  return t;
}

}  // namespace npu::compiler
