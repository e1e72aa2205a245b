// LayerNorm as exporters before opset 17 write it:
//   mean = ReduceMean(x, trailing axes); d = x - mean; var = ReduceMean(d^2) (Pow(d, 2) or d*d)
//   y = d / Sqrt(var + eps) [* gamma] [+ beta]
// becomes one LayerNormalization (opset 17) with axis = the first normalised axis; gamma and
// beta (broadcast over the normalised dims only) become its scale and bias.
#include <algorithm>

#include "compiler/frontend/passes.h"
#include "compiler/frontend/pattern_match.h"
#include "compiler/frontend/shape_inference.h"
#include "compiler/reference/tensor_kernels.h"

namespace npu::compiler {
namespace {

using namespace patterns;

// The normalised axes of a keepdims ReduceMean as [first, rank), or -1 if not trailing.
std::int64_t trailing_axis(const Graph& g, const Node& r) {
  const Tensor& x = g.tensor(r.inputs[0]);
  if (!x.shape_known || r.get_int("keepdims", 1) == 0 || r.inputs.size() != 1) return -1;
  auto axes = r.get_ints("axes");
  if (axes.empty()) return -1;
  const auto rank = static_cast<std::int64_t>(x.shape.size());
  for (auto& a : axes) a = a < 0 ? a + rank : a;
  std::sort(axes.begin(), axes.end());
  for (std::size_t i = 0; i < axes.size(); ++i)
    if (axes[i] != rank - static_cast<std::int64_t>(axes.size()) + static_cast<std::int64_t>(i)) return -1;
  return axes[0];
}

// `c` broadcast to the normalised shape, if it varies only along the normalised dims.
bool as_normalised(const Graph& g, const std::string& c, const Shape& x_shape, std::int64_t axis, std::vector<float>& out) {
  const Tensor& t = g.tensor(c);
  const auto rank = static_cast<std::int64_t>(x_shape.size());
  const auto cr = static_cast<std::int64_t>(t.shape.size());
  if (cr > rank) return false;
  for (std::int64_t d = 0; d < cr; ++d) {
    const std::int64_t xd = rank - cr + d;
    if (xd < axis && t.shape[d] != 1) return false;
    if (xd >= axis && t.shape[d] != 1 && t.shape[d] != x_shape[xd]) return false;
  }
  Shape norm(x_shape.begin() + axis, x_shape.end());
  Shape cs = t.shape;
  while (static_cast<std::int64_t>(cs.size()) > rank - axis) cs.erase(cs.begin());  // leading 1s
  FloatTensor src{cs, constant_values(t)};
  out = expand(src, norm).data;
  return true;
}

}  // namespace

std::string fuse_layernorm_pattern(Graph& g) {
  if (g.opset < 17) return "none (LayerNormalization needs opset 17)";
  int fused = 0;
  for (bool again = true; again;) {
    again = false;
    Uses uses(g);
    std::set<int> removed;
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
      if (removed.count(static_cast<int>(i))) continue;
      const Node& r1 = g.nodes[i];
      if (r1.op_type != "ReduceMean" || !r1.domain.empty() || r1.inputs.empty()) continue;
      const std::int64_t axis = trailing_axis(g, r1);
      if (axis < 0) continue;
      const std::string x = r1.inputs[0];
      if (!is_float_type(g.tensor(x).elem_type)) continue;
      std::vector<int> nodes = {static_cast<int>(i)};
      int sub = uses.sole_reader(r1.outputs[0]);
      if (sub < 0 || g.nodes[sub].op_type != "Sub" || g.nodes[sub].inputs != std::vector<std::string>{x, r1.outputs[0]})
        continue;
      nodes.push_back(sub);
      const std::string d = g.nodes[sub].outputs[0];
      const auto& readers = uses.readers(d);
      if (readers.size() != 2 || uses.count(d) != 2) continue;
      int sq = -1, div = -1;
      for (int k : readers) {
        const Node& n = g.nodes[k];
        float e;
        if ((n.op_type == "Pow" && n.inputs[0] == d && uniform_constant(g, n.inputs[1], e) && e == 2.0f) ||
            (n.op_type == "Mul" && n.inputs[0] == d && n.inputs[1] == d))
          sq = k;
        else if (n.op_type == "Div" && n.inputs[0] == d)
          div = k;
      }
      if (sq < 0 || div < 0) continue;
      nodes.push_back(sq);
      int r2 = uses.sole_reader(g.nodes[sq].outputs[0]);
      if (r2 < 0 || g.nodes[r2].op_type != "ReduceMean" || trailing_axis(g, g.nodes[r2]) != axis) continue;
      nodes.push_back(r2);
      int add = uses.sole_reader(g.nodes[r2].outputs[0]);
      float eps;
      std::string k;
      if (add < 0 || g.nodes[add].op_type != "Add" || variable_operand(g, g.nodes[add], &k) != g.nodes[r2].outputs[0] ||
          !uniform_constant(g, k, eps))
        continue;
      nodes.push_back(add);
      int sqrt = uses.sole_reader(g.nodes[add].outputs[0]);
      if (sqrt < 0 || g.nodes[sqrt].op_type != "Sqrt" || uses.sole_reader(g.nodes[sqrt].outputs[0]) != div ||
          g.nodes[div].inputs[1] != g.nodes[sqrt].outputs[0])
        continue;
      nodes.push_back(sqrt);
      nodes.push_back(div);
      const Shape& xs = g.tensor(x).shape;
      Shape norm(xs.begin() + axis, xs.end());
      std::vector<float> scale(static_cast<std::size_t>(shape_elements(norm)), 1.0f), bias(scale.size(), 0.0f);
      int last = div;
      int mul = uses.sole_reader(g.nodes[div].outputs[0]);
      if (mul >= 0 && g.nodes[mul].op_type == "Mul" && variable_operand(g, g.nodes[mul], &k) == g.nodes[div].outputs[0] &&
          as_normalised(g, k, xs, axis, scale)) {
        nodes.push_back(mul);
        last = mul;
      }
      int shift = uses.sole_reader(g.nodes[last].outputs[0]);
      if (shift >= 0 && g.nodes[shift].op_type == "Add" &&
          variable_operand(g, g.nodes[shift], &k) == g.nodes[last].outputs[0] && as_normalised(g, k, xs, axis, bias)) {
        nodes.push_back(shift);
        last = shift;
      }
      bool clash = false;
      for (int n : nodes) clash |= removed.count(n) != 0 || !g.nodes[n].domain.empty();
      if (clash) continue;
      Node ln;
      ln.name = g.nodes[last].name;
      ln.op_type = "LayerNormalization";
      std::string scale_name = g.unique_name(ln.name + "_scale");
      g.add_constant(scale_name, norm, std::move(scale));
      std::string bias_name = g.unique_name(ln.name + "_bias");
      g.add_constant(bias_name, norm, std::move(bias));
      ln.inputs = {x, scale_name, bias_name};
      ln.outputs = g.nodes[last].outputs;
      ln.set_int("axis", axis);
      ln.set_float("epsilon", eps);
      for (int n : nodes) {
        ln.fused_nodes.insert(ln.fused_nodes.end(), g.nodes[n].fused_nodes.begin(), g.nodes[n].fused_nodes.end());
        if (n != last) removed.insert(n);
      }
      g.nodes[last] = std::move(ln);
      ++fused;
      again = true;
    }
    erase_nodes(g, removed);
    g.sort_topologically();
  }
  return std::to_string(fused) + " LayerNormalization";
}

}  // namespace npu::compiler
