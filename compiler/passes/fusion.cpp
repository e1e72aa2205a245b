// Fuses a compute layer with its epilogue so the epilogue runs on the vector unit straight
// from the accumulators, without writing the intermediate tensor to DDR and reading it back.
#include <limits>
#include <map>
#include <set>

#include "compiler/passes/passes.h"

namespace npu::compiler {
namespace {

struct Activation {
  std::string name;
  float alpha = 0.0f, beta = 0.0f;
  std::vector<int> nodes;  // nodes it consumes (1, or 2 for SiLU)
  std::string output;
};

int sole_consumer(const Graph& g, const std::string& value) {
  auto c = g.consumers(value);
  if (c.size() != 1 || g.is_graph_output(value)) return -1;
  return c[0];
}

bool const_scalar(const Graph& g, const std::string& name, float& v) {
  if (name.empty() || !g.is_constant(name)) return false;
  const Tensor& t = g.tensor(name);
  if (t.elements() != 1) return false;
  v = t.floats.empty() ? static_cast<float>(t.ints.at(0)) : t.floats[0];
  return true;
}

// The activation applied to `value` by its consumers, when it is its only use.
bool match_activation(const Graph& g, const std::string& value, const std::set<int>& taken, Activation& act) {
  auto cons = g.consumers(value);
  if (g.is_graph_output(value) || cons.empty()) return false;
  if (cons.size() == 2) {  // SiLU: Mul(x, Sigmoid(x))
    int s = g.nodes[cons[0]].op_type == "Sigmoid" ? cons[0] : cons[1];
    int m = s == cons[0] ? cons[1] : cons[0];
    const Node& sig = g.nodes[s];
    const Node& mul = g.nodes[m];
    if (sig.op_type != "Sigmoid" || mul.op_type != "Mul" || taken.count(s) || taken.count(m)) return false;
    if (sole_consumer(g, sig.outputs[0]) != m) return false;
    bool operands = (mul.inputs[0] == value && mul.inputs[1] == sig.outputs[0]) ||
                    (mul.inputs[1] == value && mul.inputs[0] == sig.outputs[0]);
    if (!operands) return false;
    act = {"SiLU", 0, 0, {s, m}, mul.outputs[0]};
    return true;
  }
  if (cons.size() != 1 || taken.count(cons[0])) return false;
  const Node& n = g.nodes[cons[0]];
  act.nodes = {cons[0]};
  act.output = n.outputs[0];
  // The activation-patterns pass writes its matches as single npusim nodes (SiLU, Gelu forms, Mish).
  if (!n.domain.empty() && n.domain != "npusim") return false;
  if (n.domain == "npusim" && n.op_type != "SiLU" && n.op_type != "Mish" && n.op_type != "GeluTanh" && n.op_type != "Gelu")
    return false;
  if (n.op_type == "Relu" || n.op_type == "Sigmoid" || n.op_type == "HardSwish" || n.op_type == "Tanh" ||
      n.op_type == "SiLU" || n.op_type == "Mish" || n.op_type == "GeluTanh") {
    act.name = n.op_type;
    return true;
  }
  if (n.op_type == "Gelu") {
    const std::string approx = n.get_string("approximate", "none");
    if (approx != "none" && approx != "tanh") return false;
    act.name = approx == "tanh" ? "GeluTanh" : "Gelu";
    return true;
  }
  if (n.op_type == "Elu") {
    act.name = n.op_type;
    act.alpha = n.get_float("alpha", 1.0f);
    return true;
  }
  if (n.op_type == "HardSigmoid") {
    act.name = n.op_type;
    act.alpha = n.get_float("alpha", 0.2f);
    act.beta = n.get_float("beta", 0.5f);
    return true;
  }
  if (n.op_type == "LeakyRelu") {
    act.name = n.op_type;
    act.alpha = n.get_float("alpha", 0.01f);
    return true;
  }
  if (n.op_type == "Clip") {
    act.name = "Clip";
    act.alpha = n.has("min") ? n.get_float("min", 0) : -std::numeric_limits<float>::infinity();
    act.beta = n.has("max") ? n.get_float("max", 0) : std::numeric_limits<float>::infinity();
    if (n.inputs.size() > 1 && !n.inputs[1].empty() && !const_scalar(g, n.inputs[1], act.alpha)) return false;
    if (n.inputs.size() > 2 && !n.inputs[2].empty() && !const_scalar(g, n.inputs[2], act.beta)) return false;
    return true;
  }
  return false;
}

// Gemm/MatMul as X[M,K] @ W[K,N] + B[N] with W and B owned by the fused node.
bool normalize_gemm(Graph& g, Node& n, const std::string& out_bias_add, std::string& bias) {
  if (n.inputs.size() < 2 || !g.is_constant(n.inputs[1])) return false;
  const Tensor& x = g.tensor(n.inputs[0]);
  const Tensor& w = g.tensor(n.inputs[1]);
  bool gemm = n.op_type == "Gemm";
  // Gemm is 2-D; MatMul by constant [K, N] weights works on rows of K in any rank ([1, T, D]).
  if (!x.shape_known || x.shape.size() < 2 || (gemm && x.shape.size() != 2) || w.shape.size() != 2 || w.floats.empty())
    return false;
  if (gemm && n.get_int("transA", 0) != 0) return false;
  bool trans_b = gemm && n.get_int("transB", 0) != 0;
  float alpha = gemm ? n.get_float("alpha", 1.0f) : 1.0f, beta = gemm ? n.get_float("beta", 1.0f) : 1.0f;
  std::int64_t K = trans_b ? w.shape[1] : w.shape[0], N = trans_b ? w.shape[0] : w.shape[1];
  std::vector<float> kn(static_cast<std::size_t>(K * N));
  if (trans_b) {
    for (std::int64_t k = 0; k < K; ++k)
      for (std::int64_t j = 0; j < N; ++j) kn[k * N + j] = alpha * w.floats[j * K + k];
  } else {  // one flat pass (with the transpose's choice inside, ViT-B/16's 86 M weights went one at a time)
    for (std::size_t i = 0; i < kn.size(); ++i) kn[i] = alpha * w.floats[i];
  }
  std::vector<float> b(static_cast<std::size_t>(N), 0.0f);
  std::string bias_source = gemm && n.inputs.size() > 2 ? n.inputs[2] : out_bias_add;
  if (!bias_source.empty()) {
    if (!g.is_constant(bias_source)) return false;
    const Tensor& bt = g.tensor(bias_source);
    if (bt.floats.size() == 1) b.assign(N, bt.floats[0] * beta);
    else if (static_cast<std::int64_t>(bt.floats.size()) == N && bt.shape.back() == N)
      for (std::int64_t j = 0; j < N; ++j) b[j] = bt.floats[j] * beta;
    else return false;  // a per-row bias is not a channel bias
  }
  std::string wname = g.unique_name(n.name + "_weight_kn");
  g.add_constant(wname, {K, N}, std::move(kn));
  bias = g.unique_name(n.name + "_bias");
  g.add_constant(bias, {N}, std::move(b));
  n.inputs = {n.inputs[0], wname, bias};
  n.attributes.clear();
  return true;
}

}  // namespace

std::string fuse_layers(Graph& g) {
  std::set<int> removed;
  std::map<std::string, int> patterns;
  int fused = 0;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    if (removed.count(static_cast<int>(i))) continue;
    Node& n = g.nodes[i];
    if (!n.domain.empty()) continue;
    bool conv = n.op_type == "Conv" && n.inputs.size() >= 2 && g.is_constant(n.inputs[1]) &&
                g.tensor(n.inputs[1]).shape.size() == 4;
    bool gemm = n.op_type == "Gemm" || n.op_type == "MatMul";
    if (!conv && !gemm) continue;
    std::string out = n.outputs[0];
    std::string pattern = conv ? "Conv" : n.op_type;
    std::vector<std::string> fused_names = n.fused_nodes;
    std::set<int> taken;
    // MatMul + Add(constant bias)
    std::string bias_add;
    if (n.op_type == "MatMul") {
      int c = sole_consumer(g, out);
      if (c >= 0 && g.nodes[c].op_type == "Add" && g.nodes[c].domain.empty()) {
        const Node& add = g.nodes[c];
        std::string other = add.inputs[0] == out ? add.inputs[1] : add.inputs[0];
        if (g.is_constant(other)) {
          bias_add = other;
          taken.insert(c);
        }
      }
    }
    std::string bias;
    if (gemm) {
      Node copy = n;
      if (!normalize_gemm(g, copy, bias_add, bias)) continue;
      n = copy;
      if (!bias_add.empty()) {
        int c = *taken.begin();
        fused_names.push_back(g.nodes[c].name);
        out = g.nodes[c].outputs[0];
        pattern += "+Add";
      }
    }
    Node fusedn = n;
    // Names of the values the fused node no longer materialises; calibration measures them on
    // the graph before fusion to quantise the epilogue's intermediate steps.
    fusedn.set_string("acc_value", out);
    fusedn.domain = "npusim";
    fusedn.op_type = conv ? "FusedConv" : "FusedGemm";
    fusedn.inputs.resize(4);
    Activation act;
    if (match_activation(g, out, taken, act)) {
      fusedn.set_string("activation", act.name);
      fusedn.set_float("act_alpha", act.alpha);
      fusedn.set_float("act_beta", act.beta);
      for (int k : act.nodes) {
        taken.insert(k);
        fused_names.push_back(g.nodes[k].name);
      }
      out = act.output;
      fusedn.set_string("act_value", out);
      pattern += "+" + act.name;
    }
    // Residual: Add(out, r) with r computed elsewhere, same shape.
    int c = sole_consumer(g, out);
    if (c >= 0 && !taken.count(c) && g.nodes[c].op_type == "Add" && g.nodes[c].domain.empty() &&
        g.nodes[c].inputs.size() == 2) {
      const Node& add = g.nodes[c];
      std::string other = add.inputs[0] == out ? add.inputs[1] : add.inputs[0];
      const Tensor& ot = g.tensor(other);
      const Tensor& mine = g.tensor(out);
      if (!ot.is_constant && other != out && ot.shape_known && mine.shape_known && ot.shape == mine.shape) {
        fusedn.inputs[3] = other;
        taken.insert(c);
        fused_names.push_back(add.name);
        out = add.outputs[0];
        pattern += "+Add";
        Activation post;
        if (match_activation(g, out, taken, post) && (post.name == "Relu" || post.name == "Clip")) {
          fusedn.set_string("post_activation", post.name);
          fusedn.set_float("post_alpha", post.alpha);
          fusedn.set_float("post_beta", post.beta);
          for (int k : post.nodes) {
            taken.insert(k);
            fused_names.push_back(g.nodes[k].name);
          }
          out = post.output;
          pattern += "+" + post.name;
        }
      }
    }
    if (gemm) fusedn.inputs[2] = bias;
    fusedn.outputs = {out};
    fusedn.fused_nodes = fused_names;
    fusedn.set_string("pattern", pattern);
    g.nodes[i] = fusedn;
    removed.insert(taken.begin(), taken.end());
    ++patterns[pattern];
    if (!taken.empty()) ++fused;
  }
  std::vector<Node> kept;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    if (!removed.count(static_cast<int>(i))) kept.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(kept);
  g.sort_topologically();
  std::string detail = "fused " + std::to_string(fused) + " layers with epilogues";
  for (const auto& [p, count] : patterns) detail += ", " + p + " x" + std::to_string(count);
  return detail;
}

}  // namespace npu::compiler
