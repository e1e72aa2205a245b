// Decomposed activations as one node each, so fusion and the NPU rules see the function:
//   x * sigmoid(x)                               -> SiLU      (npusim:SiLU)
//   x * HardSigmoid(x; 1/6, 1/2), x * relu6(x + 3) / 6, x * clip(x/6 + 1/2, 0, 1)
//                                                -> HardSwish (ONNX, opset 14+)
//   x * 0.5 * (1 + erf(x / sqrt 2))              -> Gelu      (npusim:Gelu)
//   0.5 x (1 + tanh(sqrt(2/pi)(x + 0.044715 x^3))) -> GeluTanh  (npusim:GeluTanh)
//   x * tanh(softplus(x))                        -> Mish      (npusim:Mish)
// (ONNX has Gelu and Mish only from opsets 18/20; the npusim ops are model-local functions on
// export, see onnx_functions.h.) Products are matched however the exporter associated them:
// a Mul tree whose inner results have no other reader is one product of factors.
#include <cmath>

#include "compiler/frontend/passes.h"
#include "compiler/frontend/pattern_match.h"

namespace npu::compiler {
namespace {

using namespace patterns;

bool near(float a, float b, float rel = 1e-4f) { return std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b)); }

// A product: its non-constant factors, the product of its scalar constants, the Mul nodes.
struct Product {
  std::vector<std::string> factors;
  float scale = 1.0f;
  std::vector<int> muls;
};

bool collect(const Graph& g, const Uses& uses, int mul, const std::set<int>& taken, Product& p) {
  p.muls.push_back(mul);
  for (const auto& in : g.nodes[mul].inputs) {
    float v;
    if (g.is_constant(in)) {
      if (!uniform_constant(g, in, v)) return false;
      p.scale *= v;
      continue;
    }
    int q = producer_of(g, in, "Mul");
    if (q >= 0 && !taken.count(q) && uses.sole_reader(in) == mul && g.nodes[q].inputs.size() == 2) {
      if (!collect(g, uses, q, taken, p)) return false;
      continue;
    }
    p.factors.push_back(in);
  }
  return true;
}

class Matcher {
 public:
  Matcher(Graph& g, const Uses& uses, std::set<int>& taken, std::set<int>& removed)
      : g_(g), uses_(uses), taken_(taken), removed_(removed) {}

  // Tries every pattern with `root` (a Mul) as the product's root.
  std::string match(int root) {
    Product p;
    if (!collect(g_, uses_, root, taken_, p) || p.factors.size() != 2) return "";
    for (int k = 0; k < 2; ++k) {
      const std::string& x = p.factors[k];
      const std::string& f = p.factors[1 - k];
      std::vector<int> inner;  // pattern nodes besides the product
      std::string name;
      float unit = 1.0f;  // the product's constant the function itself has; the rest scales it
      if (chain(f, {"Sigmoid"}, x, inner)) name = "SiLU";
      else if (chain(f, {"Tanh", "Softplus"}, x, inner)) name = "Mish";
      else if (g_.opset >= 14 && hard_swish(f, x, unit, inner)) name = "HardSwish";
      else if (gelu_erf(f, x, inner)) name = "Gelu", unit = 0.5f;
      else if (gelu_tanh(f, x, inner)) name = "GeluTanh", unit = 0.5f;
      if (name.empty() || p.scale == 0.0f) continue;
      rewrite(root, p, inner, x, name, p.scale / unit);
      return name;
    }
    return "";
  }

 private:
  // value = ops[0](ops[1](...(x))) with every intermediate read once; the nodes go to `inner`.
  bool chain(const std::string& value, const std::vector<std::string>& ops, const std::string& x, std::vector<int>& inner) {
    std::string v = value;
    std::vector<int> found;
    for (const auto& op : ops) {
      int p = producer_of(g_, v, op);
      if (p < 0 || taken_.count(p) || g_.nodes[p].inputs.empty() || uses_.count(v) != 1) return false;
      found.push_back(p);
      v = g_.nodes[p].inputs[0];
    }
    if (v != x) return false;
    inner.insert(inner.end(), found.begin(), found.end());
    return true;
  }

  // value = op(v, c) with a uniform constant c, read once; returns v and c.
  bool with_constant(const char* op, const std::string& value, std::string& v, float& c, std::vector<int>& inner) {
    int p = producer_of(g_, value, op);
    if (p < 0 || taken_.count(p) || uses_.count(value) != 1) return false;
    std::string k;
    v = variable_operand(g_, g_.nodes[p], &k);
    if (v.empty() || !uniform_constant(g_, k, c)) return false;
    inner.push_back(p);
    return true;
  }
  bool add_constant(const std::string& value, std::string& v, float& c, std::vector<int>& inner) {
    return with_constant("Add", value, v, c, inner);
  }
  bool mul_constant(const std::string& value, std::string& v, float& c, std::vector<int>& inner) {
    return with_constant("Mul", value, v, c, inner);
  }

  // x * f with f = HardSigmoid(x; 1/6, 1/2), or f = clip(a x + b, 0, hi) with a/hi = 1/6 and
  // b/hi = 1/2 (relu6(x + 3) and clip(x/6 + 1/2, 0, 1)), which is HardSwish(x) times `unit` = hi.
  bool hard_swish(const std::string& f, const std::string& x, float& unit, std::vector<int>& inner) {
    int p = producer_of(g_, f, "HardSigmoid");
    if (p >= 0 && !taken_.count(p) && uses_.count(f) == 1 && g_.nodes[p].inputs[0] == x &&
        near(g_.nodes[p].get_float("alpha", 0.2f), 1.0f / 6.0f) && near(g_.nodes[p].get_float("beta", 0.5f), 0.5f)) {
      inner.push_back(p);
      return true;
    }
    int c = producer_of(g_, f, "Clip");
    if (c < 0 || taken_.count(c) || uses_.count(f) != 1) return false;
    const Node& clip = g_.nodes[c];
    if (clip.inputs.size() != 1 || !clip.has("min") || !clip.has("max")) return false;  // bounds as attributes
    const float lo = clip.get_float("min", 0), hi = clip.get_float("max", 0);
    if (lo != 0.0f || !(hi > 0)) return false;
    std::vector<int> found = {c};
    std::string v;
    float a = 1.0f, b = 0.0f;
    if (!add_constant(clip.inputs[0], v, b, found)) return false;
    std::string scaled;
    if (v != x && !(mul_constant(v, scaled, a, found) && scaled == x)) return false;
    if (!near(a / hi, 1.0f / 6.0f) || !near(b / hi, 0.5f)) return false;
    unit = 1.0f / hi;
    inner.insert(inner.end(), found.begin(), found.end());
    return true;
  }

  // f = 1 + erf(x * 1/sqrt(2))
  bool gelu_erf(const std::string& f, const std::string& x, std::vector<int>& inner) {
    std::vector<int> found;
    std::string v, u;
    float one, k;
    if (!add_constant(f, v, one, found) || !near(one, 1.0f)) return false;
    int e = producer_of(g_, v, "Erf");
    if (e < 0 || taken_.count(e) || uses_.count(v) != 1) return false;
    found.push_back(e);
    if (!mul_constant(g_.nodes[e].inputs[0], u, k, found) || u != x || !near(k, 0.70710678f)) return false;
    inner.insert(inner.end(), found.begin(), found.end());
    return true;
  }

  // f = 1 + tanh(k0 * (x + k1 * x^3)), x^3 as Pow(x, 3) or x*x*x.
  bool gelu_tanh(const std::string& f, const std::string& x, std::vector<int>& inner) {
    std::vector<int> found;
    std::string v, w;
    float one, k0, k1;
    if (!add_constant(f, v, one, found) || !near(one, 1.0f)) return false;
    int t = producer_of(g_, v, "Tanh");
    if (t < 0 || taken_.count(t) || uses_.count(v) != 1) return false;
    found.push_back(t);
    if (!mul_constant(g_.nodes[t].inputs[0], w, k0, found) || !near(k0, 0.7978845608f)) return false;
    int s = producer_of(g_, w, "Add");  // x + k1 * x^3
    if (s < 0 || taken_.count(s) || uses_.count(w) != 1 || g_.nodes[s].inputs.size() != 2) return false;
    found.push_back(s);
    const Node& sum = g_.nodes[s];
    std::string cube_scaled = sum.inputs[0] == x ? sum.inputs[1] : sum.inputs[1] == x ? sum.inputs[0] : "";
    std::string cube;
    if (cube_scaled.empty() || !mul_constant(cube_scaled, cube, k1, found) || !near(k1, 0.044715f)) return false;
    if (!is_cube(cube, x, found)) return false;
    inner.insert(inner.end(), found.begin(), found.end());
    return true;
  }

  bool is_cube(const std::string& v, const std::string& x, std::vector<int>& found) {
    if (uses_.count(v) != 1) return false;
    int p = producer_of(g_, v, "Pow");
    float e;
    if (p >= 0 && !taken_.count(p) && g_.nodes[p].inputs[0] == x && uniform_constant(g_, g_.nodes[p].inputs[1], e) && e == 3.0f) {
      found.push_back(p);
      return true;
    }
    int m = producer_of(g_, v, "Mul");
    if (m < 0 || taken_.count(m)) return false;
    Product prod;
    if (!collect(g_, uses_, m, taken_, prod) || prod.scale != 1.0f || prod.factors.size() != 3) return false;
    for (const auto& f : prod.factors)
      if (f != x) return false;
    found.insert(found.end(), prod.muls.begin(), prod.muls.end());
    return true;
  }

  // The root becomes the activation; a product constant beyond the function's own becomes a
  // Mul after it (appended: indices stay valid; the pass sorts at the end).
  void rewrite(int root, const Product& p, const std::vector<int>& inner, const std::string& x, const std::string& name,
               float extra_scale) {
    Node& r = g_.nodes[root];
    std::vector<std::string> fused;
    for (int i : inner) {
      taken_.insert(i);
      fused.insert(fused.end(), g_.nodes[i].fused_nodes.begin(), g_.nodes[i].fused_nodes.end());
    }
    for (int i : p.muls) {
      taken_.insert(i);
      if (i != root) fused.insert(fused.end(), g_.nodes[i].fused_nodes.begin(), g_.nodes[i].fused_nodes.end());
    }
    removed_.insert(inner.begin(), inner.end());
    for (int i : p.muls)
      if (i != root) removed_.insert(i);
    r.op_type = name;
    r.domain = name == "HardSwish" ? "" : "npusim";
    r.inputs = {x};
    r.attributes.clear();
    r.fused_nodes.insert(r.fused_nodes.end(), fused.begin(), fused.end());
    if (near(extra_scale, 1.0f, 1e-6f)) return;
    Node mul;
    mul.name = g_.unique_name(r.name + "_scale");
    mul.op_type = "Mul";
    mul.outputs = r.outputs;
    const Tensor& y = g_.tensor(r.outputs[0]);
    std::string act_out = g_.unique_name(r.name + "_" + name);
    g_.tensors[act_out] = y;
    g_.tensors[act_out].name = act_out;
    r.outputs = {act_out};
    std::string k = g_.unique_name(r.name + "_scale_value");
    g_.add_constant(k, {}, {extra_scale}).elem_type = y.elem_type;
    mul.inputs = {act_out, k};
    mul.fused_nodes = {mul.name};
    g_.nodes.push_back(std::move(mul));
  }

  Graph& g_;
  const Uses& uses_;
  std::set<int>& taken_;
  std::set<int>& removed_;
};

}  // namespace

std::string fuse_activation_patterns(Graph& g) {
  std::map<std::string, int> counts;
  for (bool again = true; again;) {
    again = false;
    Uses uses(g);
    std::set<int> taken, removed;
    Matcher m(g, uses, taken, removed);
    // Outermost products first: the root of x * relu6(x + 3) / 6 is the last Mul; an inner Mul
    // is tried on its own only when the product around it matched nothing.
    const std::size_t count = g.nodes.size();
    for (std::size_t i = count; i-- > 0;) {
      const Node& n = g.nodes[i];
      if (taken.count(static_cast<int>(i)) || n.op_type != "Mul" || !n.domain.empty() || n.inputs.size() != 2 ||
          n.inputs[0] == n.inputs[1])
        continue;
      if (!is_float_type(g.tensor(n.outputs[0]).elem_type)) continue;
      std::string name = m.match(static_cast<int>(i));
      if (!name.empty()) {
        ++counts[name];
        again = true;
      }
    }
    erase_nodes(g, removed);
    g.sort_topologically();
  }
  std::string detail;
  for (const auto& [name, count] : counts) detail += (detail.empty() ? "" : ", ") + name + " x" + std::to_string(count);
  return detail.empty() ? "none found" : detail;
}

}  // namespace npu::compiler
