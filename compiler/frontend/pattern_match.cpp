#include "compiler/frontend/pattern_match.h"

#include <algorithm>

namespace npu::compiler::patterns {

Uses::Uses(const Graph& g) : outputs_(g.outputs.begin(), g.outputs.end()) {
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    for (const auto& in : g.nodes[i].inputs)
      if (!in.empty()) {
        auto& r = readers_[in];
        if (r.empty() || r.back() != static_cast<int>(i)) r.push_back(static_cast<int>(i));
      }
}

int Uses::count(const std::string& v) const {
  auto it = readers_.find(v);
  return (it == readers_.end() ? 0 : static_cast<int>(it->second.size())) + (outputs_.count(v) ? 1 : 0);
}

int Uses::sole_reader(const std::string& v) const {
  auto it = readers_.find(v);
  if (it == readers_.end() || it->second.size() != 1 || outputs_.count(v)) return -1;
  return it->second[0];
}

const std::vector<int>& Uses::readers(const std::string& v) const {
  auto it = readers_.find(v);
  return it == readers_.end() ? none_ : it->second;
}

bool is_float_type(int t) { return t == kFloat || t == kFloat16 || t == kDouble; }

std::vector<float> constant_values(const Tensor& t) {
  if (!t.floats.empty() || t.ints.empty()) return t.floats;
  std::vector<float> v;
  for (auto i : t.ints) v.push_back(static_cast<float>(i));
  return v;
}

bool uniform_constant(const Graph& g, const std::string& name, float& v) {
  if (name.empty() || !g.is_constant(name)) return false;
  const Tensor& t = g.tensor(name);
  auto values = constant_values(t);
  if (values.empty()) return false;
  for (float x : values)
    if (x != values[0]) return false;
  v = values[0];
  return true;
}

bool has_onnx_op(const Graph& g, const std::string& op) {
  for (const Node& n : g.nodes)
    if (n.op_type == op && n.domain.empty()) return true;
  return false;
}

int producer_of(const Graph& g, const std::string& value, const std::string& op) {
  int p = g.producer(value);
  if (p < 0 || g.nodes[p].op_type != op || !g.nodes[p].domain.empty()) return -1;
  return p;
}

std::string variable_operand(const Graph& g, const Node& n, std::string* constant) {
  if (n.inputs.size() != 2 || n.inputs[0].empty() || n.inputs[1].empty()) return "";
  const bool c0 = g.is_constant(n.inputs[0]), c1 = g.is_constant(n.inputs[1]);
  if (c0 == c1) return "";
  if (constant) *constant = c0 ? n.inputs[0] : n.inputs[1];
  return c0 ? n.inputs[1] : n.inputs[0];
}

void erase_nodes(Graph& g, const std::set<int>& removed) {
  if (removed.empty()) return;
  std::vector<Node> kept;
  kept.reserve(g.nodes.size());
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    if (!removed.count(static_cast<int>(i))) kept.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(kept);
}

}  // namespace npu::compiler::patterns
