// Arithmetic in one form so the pattern passes and the NPU rules see one shape of each thing:
// Div by a constant becomes Mul by its reciprocal, Sub of a constant becomes Add of its
// negation, the constant operand of Add/Mul goes second, chains of Mul (or Add) by constants
// collapse into one, and Mul by 1 / Add of 0 / Max with -inf / Min with +inf (same shape) become
// Identity.
#include <cmath>
#include <limits>

#include "compiler/frontend/passes.h"
#include "compiler/frontend/pattern_match.h"
#include "compiler/reference/node_geometry.h"
#include "compiler/reference/tensor_kernels.h"

namespace npu::compiler {
namespace {

using namespace patterns;

std::string new_constant(Graph& g, const std::string& base, const Shape& shape, std::vector<float> values, int type) {
  std::string name = g.unique_name(base);
  Tensor& t = g.add_constant(name, shape, std::move(values));
  t.elem_type = type;
  return name;
}

bool float_node(const Graph& g, const Node& n) {
  return !n.outputs.empty() && g.has_tensor(n.outputs[0]) && is_float_type(g.tensor(n.outputs[0]).elem_type) &&
         g.tensor(n.outputs[0]).shape_known;
}

// x / c -> x * (1/c); x - c -> x + (-c). Returns whether it rewrote.
bool invert_constant_operand(Graph& g, Node& n) {
  if (!n.domain.empty() || (n.op_type != "Div" && n.op_type != "Sub") || n.inputs.size() != 2) return false;
  if (!float_node(g, n) || !g.is_constant(n.inputs[1]) || g.is_constant(n.inputs[0])) return false;
  const Tensor& c = g.tensor(n.inputs[1]);
  auto values = constant_values(c);
  const bool div = n.op_type == "Div";
  for (auto& v : values) {
    if (div && v == 0.0f) return false;
    v = div ? 1.0f / v : -v;
  }
  n.inputs[1] = new_constant(g, n.inputs[1] + (div ? "_reciprocal" : "_negated"), c.shape, std::move(values), c.elem_type);
  n.op_type = div ? "Mul" : "Add";
  return true;
}

bool constant_second(const Graph& g, Node& n) {
  if (!n.domain.empty() || (n.op_type != "Add" && n.op_type != "Mul") || n.inputs.size() != 2) return false;
  if (g.is_constant(n.inputs[0]) && !g.is_constant(n.inputs[1])) {
    std::swap(n.inputs[0], n.inputs[1]);
    return true;
  }
  return false;
}

// (x op a) op b -> x op (a op b) when the inner result has no other reader.
bool merge_chain(Graph& g, const Uses& uses, int i, std::set<int>& removed) {
  Node& outer = g.nodes[i];
  if (!outer.domain.empty() || (outer.op_type != "Add" && outer.op_type != "Mul") || outer.inputs.size() != 2) return false;
  if (!float_node(g, outer) || !g.is_constant(outer.inputs[1]) || g.is_constant(outer.inputs[0])) return false;
  int p = producer_of(g, outer.inputs[0], outer.op_type);
  if (p < 0 || removed.count(p) || uses.sole_reader(outer.inputs[0]) != i) return false;
  const Node& inner = g.nodes[p];
  if (inner.inputs.size() != 2 || !g.is_constant(inner.inputs[1]) || g.is_constant(inner.inputs[0])) return false;
  const Tensor& a = g.tensor(inner.inputs[1]);
  const Tensor& b = g.tensor(outer.inputs[1]);
  FloatTensor fa{a.shape, constant_values(a)}, fb{b.shape, constant_values(b)};
  const bool mul = outer.op_type == "Mul";
  Shape s = broadcast_shapes(a.shape, b.shape, g.source + ": node '" + outer.name + "'");
  FloatTensor ab = broadcast_binary<float, float, float>(fa, fb, s, [mul](float x, float y) { return mul ? x * y : x + y; });
  outer.inputs = {inner.inputs[0], new_constant(g, outer.inputs[1] + "_merged", ab.shape, std::move(ab.data), b.elem_type)};
  outer.fused_nodes.insert(outer.fused_nodes.begin(), inner.fused_nodes.begin(), inner.fused_nodes.end());
  removed.insert(p);
  return true;
}

// x * 1, x + 0, max(x, -inf) and min(x, +inf) (JAX's exports clamp so) whose constant does
// not broadcast x to a bigger shape: the input that passes through (0 or 1), or -1.
int neutral_operand(const Graph& g, const Node& n) {
  const bool bound = n.op_type == "Max" || n.op_type == "Min";
  if (!n.domain.empty() || !(bound || n.op_type == "Add" || n.op_type == "Mul") || n.inputs.size() != 2 || !float_node(g, n))
    return -1;
  // Add/Mul have their constant second by now; Max/Min may have it either side.
  const int c = g.is_constant(n.inputs[1]) ? 1 : (bound && g.is_constant(n.inputs[0]) ? 0 : -1);
  if (c < 0 || g.is_constant(n.inputs[1 - c])) return -1;
  const float inf = std::numeric_limits<float>::infinity();
  const float neutral = n.op_type == "Mul" ? 1.0f : n.op_type == "Add" ? 0.0f : n.op_type == "Max" ? -inf : inf;
  float v;
  if (!uniform_constant(g, n.inputs[c], v) || v != neutral) return -1;
  const Tensor& x = g.tensor(n.inputs[1 - c]);
  const bool same = x.shape_known && x.shape == g.tensor(n.outputs[0]).shape && x.elem_type == g.tensor(n.outputs[0]).elem_type;
  return same ? 1 - c : -1;
}

}  // namespace

std::string canonicalize_arithmetic(Graph& g) {
  int inverted = 0, swapped = 0, merged = 0, neutral = 0;
  for (auto& n : g.nodes) {
    swapped += constant_second(g, n);
    inverted += invert_constant_operand(g, n);
  }
  for (bool again = true; again;) {
    again = false;
    Uses uses(g);
    std::set<int> removed;
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
      if (removed.count(static_cast<int>(i))) continue;
      if (merge_chain(g, uses, static_cast<int>(i), removed)) {
        ++merged;
        again = true;
      }
    }
    erase_nodes(g, removed);
  }
  int bounds = 0;
  for (auto& n : g.nodes)
    if (const int x = neutral_operand(g, n); x >= 0) {
      (n.op_type == "Max" || n.op_type == "Min" ? bounds : neutral) += 1;
      n.op_type = "Identity";
      n.inputs = {n.inputs[static_cast<std::size_t>(x)]};
    }
  return std::to_string(inverted) + " Div/Sub by constants to Mul/Add, " + std::to_string(merged) +
         " constant chains merged, " + std::to_string(neutral) + " x*1/x+0 removed, " +
         (bounds ? std::to_string(bounds) + " max(x,-inf)/min(x,inf) removed, " : std::string()) + std::to_string(swapped) +
         " constants moved second";
}

}  // namespace npu::compiler
