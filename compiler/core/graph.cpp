#include "compiler/core/graph.h"

#include <algorithm>
#include <functional>
#include <set>

namespace npu::compiler {

const char* elem_type_name(int t) {
  switch (t) {
    case kFloat: return "float32";
    case kUint8: return "uint8";
    case kInt8: return "int8";
    case kInt32: return "int32";
    case kInt64: return "int64";
    case 5: return "int16";
    case 4: return "uint16";
    case kBool: return "bool";
    case kFloat16: return "float16";
    case kDouble: return "float64";
    default: return "other";
  }
}

std::int64_t Tensor::elements() const {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::int64_t Node::get_int(const std::string& a, std::int64_t fallback) const {
  auto it = attributes.find(a);
  return it == attributes.end() ? fallback : it->second.i;
}
float Node::get_float(const std::string& a, float fallback) const {
  auto it = attributes.find(a);
  return it == attributes.end() ? fallback : it->second.f;
}
std::string Node::get_string(const std::string& a, const std::string& fallback) const {
  auto it = attributes.find(a);
  return it == attributes.end() ? fallback : it->second.s;
}
std::vector<std::int64_t> Node::get_ints(const std::string& a,
                                         std::vector<std::int64_t> fallback) const {
  auto it = attributes.find(a);
  return it == attributes.end() ? fallback : it->second.ints;
}
void Node::set_int(const std::string& a, std::int64_t v) {
  Attribute at;
  at.kind = Attribute::Kind::Int;
  at.i = v;
  attributes[a] = at;
}
void Node::set_float(const std::string& a, float v) {
  Attribute at;
  at.kind = Attribute::Kind::Float;
  at.f = v;
  attributes[a] = at;
}
void Node::set_string(const std::string& a, const std::string& v) {
  Attribute at;
  at.kind = Attribute::Kind::String;
  at.s = v;
  attributes[a] = at;
}
void Node::set_ints(const std::string& a, const std::vector<std::int64_t>& v) {
  Attribute at;
  at.kind = Attribute::Kind::Ints;
  at.ints = v;
  attributes[a] = at;
}

void Node::set_floats(const std::string& a, const std::vector<float>& v) {
  Attribute at;
  at.kind = Attribute::Kind::Floats;
  at.floats = v;
  attributes[a] = at;
}

Tensor& Graph::tensor(const std::string& n) {
  auto it = tensors.find(n);
  if (it == tensors.end()) throw CompileError(source + ": unknown tensor '" + n + "'");
  return it->second;
}
const Tensor& Graph::tensor(const std::string& n) const {
  auto it = tensors.find(n);
  if (it == tensors.end()) throw CompileError(source + ": unknown tensor '" + n + "'");
  return it->second;
}
bool Graph::is_constant(const std::string& n) const {
  auto it = tensors.find(n);
  return it != tensors.end() && it->second.is_constant;
}
int Graph::producer(const std::string& t) const {
  if (t.empty()) return -1;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    for (const auto& o : nodes[i].outputs)
      if (o == t) return static_cast<int>(i);
  return -1;
}
std::vector<int> Graph::consumers(const std::string& t) const {
  std::vector<int> out;
  if (t.empty()) return out;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    for (const auto& in : nodes[i].inputs)
      if (in == t) {
        out.push_back(static_cast<int>(i));
        break;
      }
  return out;
}
bool Graph::is_graph_output(const std::string& t) const {
  return std::find(outputs.begin(), outputs.end(), t) != outputs.end();
}
namespace {

Tensor& fresh_constant(Graph& g, const std::string& n, std::vector<std::int64_t> shape, int elem_type) {
  Tensor& t = g.tensors[n];
  t = Tensor{};
  t.name = n;
  t.elem_type = elem_type;
  t.shape = std::move(shape);
  t.shape_known = true;
  t.is_constant = true;
  return t;
}

}  // namespace

Tensor& Graph::add_constant(const std::string& n, std::vector<std::int64_t> shape,
                            std::vector<float> values) {
  Tensor& t = fresh_constant(*this, n, std::move(shape), kFloat);
  t.floats = std::move(values);
  return t;
}
Tensor& Graph::add_int_constant(const std::string& n, std::vector<std::int64_t> shape,
                                std::vector<std::int64_t> values, int elem_type) {
  Tensor& t = fresh_constant(*this, n, std::move(shape), elem_type);
  t.ints = std::move(values);
  return t;
}
std::string Graph::unique_name(const std::string& base) const {
  std::set<std::string> used;
  for (const auto& n : nodes) used.insert(n.name);
  if (!tensors.count(base) && !used.count(base)) return base;
  for (int i = 1;; ++i) {
    std::string c = base + "_" + std::to_string(i);
    if (!tensors.count(c) && !used.count(c)) return c;
  }
}

std::string Graph::add_value(const std::string& base, int elem_type, std::optional<std::vector<std::int64_t>> shape) {
  const std::string name = unique_name(base);
  Tensor& t = tensors[name];
  t.name = name;
  t.elem_type = elem_type;
  if (shape) {
    t.shape = std::move(*shape);
    t.shape_known = true;
  }
  return name;
}

std::string Graph::add_int_vector(const std::string& base, std::vector<std::int64_t> values) {
  const auto size = static_cast<std::int64_t>(values.size());
  return add_int_constant(unique_name(base), {size}, std::move(values)).name;
}

Node Graph::derived_node(const std::string& op, const Node& from, const std::string& suffix, std::vector<std::string> inputs,
                         std::vector<std::string> outputs) const {
  Node n;
  n.name = unique_name(from.name + suffix);
  n.op_type = op;
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  n.fused_nodes = {from.name};
  return n;
}

void Graph::sort_topologically() {
  std::map<std::string, int> producer_of;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    for (const auto& o : nodes[i].outputs)
      if (!o.empty()) producer_of[o] = static_cast<int>(i);
  std::vector<int> state(nodes.size(), 0);  // 0 new, 1 visiting, 2 done
  std::vector<Node> sorted;
  sorted.reserve(nodes.size());
  std::function<void(int)> visit = [&](int i) {
    if (state[i] == 2) return;
    if (state[i] == 1) throw CompileError(source + ": graph has a cycle at node '" + nodes[i].name + "'");
    state[i] = 1;
    for (const auto& in : nodes[i].inputs) {
      auto it = producer_of.find(in);
      if (it != producer_of.end()) visit(it->second);
    }
    state[i] = 2;
    sorted.push_back(nodes[i]);
  };
  for (std::size_t i = 0; i < nodes.size(); ++i) visit(static_cast<int>(i));
  nodes = std::move(sorted);
}

bool is_channel_concat(const Graph& graph, const Node& node) {
  if (node.op_type != "Concat" || node.outputs.size() != 1 || node.inputs.empty()) return false;
  auto four_d = [&](const std::string& v) {
    return !v.empty() && graph.has_tensor(v) && graph.tensor(v).shape_known && graph.tensor(v).shape.size() == 4;
  };
  std::int64_t axis = node.get_int("axis", 0);
  if (axis < 0) axis += 4;
  return axis == 1 && four_d(node.outputs[0]) && std::all_of(node.inputs.begin(), node.inputs.end(), [&](const std::string& in) {
           return four_d(in) && !graph.is_constant(in);
         });
}

std::string shape_string(const std::vector<std::int64_t>& shape) {
  std::string s;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += "x";
    s += std::to_string(shape[i]);
  }
  return s.empty() ? "scalar" : s;
}

}  // namespace npu::compiler

namespace npu::compiler {

void check_tensor_sizes(const Graph& g, std::uint64_t max_bytes) {
  for (const auto& [name, t] : g.tensors) {
    unsigned __int128 bytes = 4;
    for (auto d : t.shape) {
      if (d > 0) bytes *= static_cast<std::uint64_t>(d);
      if (bytes > max_bytes) break;
    }
    if (bytes > max_bytes)
      throw CompileError(g.source + ": tensor '" + name + "' of shape " + shape_string(t.shape) +
                         " is larger than npusim handles (" + std::to_string(max_bytes >> 20) + " MiB as FP32)");
  }
}

}  // namespace npu::compiler
