// BatchNormalization (inference) is a per-channel scale and shift: it becomes a Mul and an Add
// by per-channel constants, and those (and any other per-channel Mul/Add by constants) fold
// into a neighbouring layer where that is exact:
//   after Conv / ConvTranspose / Gemm / MatMul (their only reader): weights and bias absorb them;
//   before a Conv without padding (its only reader): the weights absorb the scale along input
//   channels and the bias absorbs the shift (sum of weights x shift).
// What cannot fold stays a Mul and an Add, which the NPU's elementwise rules may take.
#include <algorithm>
#include <cmath>
#include <utility>

#include "compiler/core/subgraph_capture.h"
#include "compiler/frontend/pattern_match.h"
#include "compiler/passes/passes.h"
#include "compiler/reference/node_geometry.h"
#include "compiler/reference/tensor_kernels.h"

namespace npu::compiler {
namespace {

using namespace patterns;

void add_fused_names(Node& into, const Node& from, bool front) {
  std::vector<std::string> fresh;
  for (const auto& name : from.fused_nodes)
    if (std::find(into.fused_nodes.begin(), into.fused_nodes.end(), name) == into.fused_nodes.end()) fresh.push_back(name);
  into.fused_nodes.insert(front ? into.fused_nodes.begin() : into.fused_nodes.end(), fresh.begin(), fresh.end());
}

// How many times each value is read (node inputs and subgraph captures), for own_constant.
using ReadCounts = std::map<std::string, int>;
ReadCounts read_counts(const Graph& g) {
  ReadCounts reads;
  for (const auto& n : g.nodes)
    for (const auto& v : values_read(n)) ++reads[v];
  return reads;
}

// A private copy of a constant, so folding never changes a weight another node shares. A weight
// read once, by the folding layer, and not a graph output, has its values moved instead of
// copied: the original, unread from here on, goes with dead-node removal, and a copy of every
// folded weight was a second copy of the model (100 MB for ResNet-50).
Tensor& own_constant(Graph& g, const std::string& name, const ReadCounts& reads, std::string& renamed) {
  renamed = g.unique_name(name + "_folded");
  Tensor& source = g.tensor(name);
  const auto read = reads.find(name);
  const bool sole = read != reads.end() && read->second == 1 && !g.is_graph_output(name);
  Tensor copy;
  if (sole) {
    std::vector<float> floats = std::move(source.floats);
    source.floats.clear();
    copy = source;
    copy.floats = std::move(floats);
  } else {
    copy = source;
  }
  copy.name = renamed;
  if (copy.floats.empty())
    for (auto v : copy.ints) copy.floats.push_back(static_cast<float>(v));
  copy.ints.clear();
  Tensor& owned = g.tensors[renamed];
  owned = std::move(copy);
  return owned;
}

// c as one value per channel of x along `axis`, when it varies only along that axis and does
// not broadcast x to a bigger shape.
bool per_channel(const Graph& g, const std::string& c, const std::string& x, std::size_t axis, std::vector<float>& out) {
  const Tensor& t = g.tensor(c);
  const Tensor& xt = g.tensor(x);
  if (!xt.shape_known || axis >= xt.shape.size() || t.shape.size() > xt.shape.size()) return false;
  const std::int64_t channels = xt.shape[axis];
  bool along = false;
  for (std::size_t d = 0; d < t.shape.size(); ++d) {
    const std::size_t xd = xt.shape.size() - t.shape.size() + d;
    if (t.shape[d] == 1) continue;
    if (xd != axis || t.shape[d] != channels) return false;
    along = true;
  }
  auto values = constant_values(t);
  if (values.empty()) return false;
  out = along ? values : std::vector<float>(static_cast<std::size_t>(channels), values[0]);
  return true;
}

// BatchNormalization -> Mul(x, scale) -> Add(., shift), constants shaped [C, 1, ...].
int split_batchnorms(Graph& g) {
  int split = 0;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    Node bn = g.nodes[i];
    if (bn.op_type != "BatchNormalization" || !bn.domain.empty() || bn.inputs.size() < 5) continue;
    if ((bn.outputs.size() > 1 && !bn.outputs[1].empty()) || bn.get_int("training_mode", 0)) continue;
    if (bn.get_int("spatial", 1) == 0) continue;  // BatchNormalization-6 per-element parameters
    bool params = true;
    for (int k = 1; k < 5; ++k) params &= g.is_constant(bn.inputs[k]);
    const Tensor& x = g.tensor(bn.inputs[0]);
    if (!params || !x.shape_known || x.shape.size() < 2 || !is_float_type(x.elem_type)) continue;
    auto s = constant_values(g.tensor(bn.inputs[1])), b = constant_values(g.tensor(bn.inputs[2]));
    auto m = constant_values(g.tensor(bn.inputs[3])), v = constant_values(g.tensor(bn.inputs[4]));
    const auto channels = static_cast<std::size_t>(x.shape[1]);
    if (s.size() != channels || b.size() != channels || m.size() != channels || v.size() != channels) continue;
    const float eps = bn.get_float("epsilon", 1e-5f);
    std::vector<float> scale(channels), shift(channels);
    for (std::size_t c = 0; c < channels; ++c) {
      scale[c] = s[c] / std::sqrt(v[c] + eps);
      shift[c] = b[c] - m[c] * scale[c];
    }
    Shape shape(x.shape.size() - 1, 1);
    shape[0] = static_cast<std::int64_t>(channels);
    Node mul;
    mul.name = bn.name + "_scale";
    mul.op_type = "Mul";
    mul.inputs = {bn.inputs[0], g.unique_name(bn.name + "_scale")};
    g.add_constant(mul.inputs[1], shape, scale).elem_type = x.elem_type;
    mul.outputs = {g.unique_name(bn.name + "_scaled")};
    g.tensors[mul.outputs[0]] = x;
    g.tensors[mul.outputs[0]].name = mul.outputs[0];
    g.tensors[mul.outputs[0]].is_constant = false;
    mul.fused_nodes = bn.fused_nodes;
    Node add;
    add.name = bn.name;
    add.op_type = "Add";
    add.inputs = {mul.outputs[0], g.unique_name(bn.name + "_shift")};
    g.add_constant(add.inputs[1], shape, shift).elem_type = x.elem_type;
    add.outputs = {bn.outputs[0]};
    add.fused_nodes = bn.fused_nodes;
    g.nodes[i] = mul;
    g.nodes.insert(g.nodes.begin() + static_cast<long>(i) + 1, add);
    ++split;
  }
  return split;
}

// The layer's bias as a per-channel vector it owns (zeros when it has none); its input slot.
std::vector<float> layer_bias(const Graph& g, const Node& n, std::size_t slot, std::size_t channels, bool& ok) {
  ok = true;
  if (n.inputs.size() <= slot || n.inputs[slot].empty()) return std::vector<float>(channels, 0.0f);
  const Tensor& b = g.tensor(n.inputs[slot]);
  auto v = constant_values(b);
  if (!b.is_constant || v.size() != channels) ok = false;
  return v;
}

void set_bias(Graph& g, Node& n, std::size_t slot, std::vector<float> bias, int elem_type) {
  const std::string name = g.unique_name(n.name + "_bias_folded");
  const Shape shape = {static_cast<std::int64_t>(bias.size())};
  g.add_constant(name, shape, std::move(bias)).elem_type = elem_type;
  if (n.inputs.size() <= slot) n.inputs.resize(slot + 1);
  n.inputs[slot] = name;
}

// Mul/Add `a` (per output channel) folded into the layer `p` that produces its input.
bool fold_after(Graph& g, int ai, int pi, const ReadCounts& reads) {
  Node& a = g.nodes[ai];
  Node& p = g.nodes[pi];
  const bool mul = a.op_type == "Mul";
  const std::string& x = p.outputs[0];
  const bool conv = p.op_type == "Conv", deconv = p.op_type == "ConvTranspose", gemm = p.op_type == "Gemm",
             matmul = p.op_type == "MatMul";
  if (p.inputs.size() < 2 || !g.is_constant(p.inputs[1])) return false;
  const Tensor& wt = g.tensor(p.inputs[1]);
  if (!wt.shape_known || wt.floats.empty()) return false;
  std::string c;
  variable_operand(g, a, &c);
  const Tensor& xt = g.tensor(x);
  if (!xt.shape_known) return false;
  std::vector<float> k;
  if (conv || deconv) {
    if (wt.shape.size() < 3 || !per_channel(g, c, x, 1, k)) return false;
  } else if (gemm || matmul) {
    if (wt.shape.size() != 2 || (gemm && p.get_int("transA", 0)) || !per_channel(g, c, x, xt.shape.size() - 1, k)) return false;
    if (matmul && !mul) return false;  // a MatMul has no bias; fusion takes MatMul + Add
  } else {
    return false;
  }
  const std::size_t channels = k.size();
  const int type = wt.elem_type;
  // weights
  if (mul) {
    std::string renamed;
    Tensor& w = own_constant(g, p.inputs[1], reads, renamed);
    const std::size_t n = w.floats.size();
    if (conv) {  // [M, C/group, kh, kw]: runs of `per` weights per output channel
      const std::size_t per = n / channels;
      float* at = w.floats.data();
      for (std::size_t m = 0; m < channels; ++m, at += per)
        for (std::size_t j = 0; j < per; ++j) at[j] *= k[m];
    } else if (deconv) {
      const std::int64_t group = p.get_int("group", 1), cin = w.shape[0], mg = w.shape[1];
      const std::size_t spatial = n / static_cast<std::size_t>(cin * mg);
      for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t ci = static_cast<std::int64_t>(i / (mg * spatial)), j = static_cast<std::int64_t>((i / spatial) % mg);
        const std::int64_t grp = ci / (cin / group);
        w.floats[i] *= k[static_cast<std::size_t>(grp * mg + j)];
      }
    } else {  // Gemm [K,N] (or [N,K] with transB), MatMul [K,N]
      const bool trans_b = gemm && p.get_int("transB", 0);
      float* at = w.floats.data();
      if (trans_b) {  // [N, K]: a row per channel
        const std::size_t per = n / channels;
        for (std::size_t m = 0; m < channels; ++m, at += per)
          for (std::size_t j = 0; j < per; ++j) at[j] *= k[m];
      } else {  // [K, N]: a column per channel
        for (std::size_t i = 0; i < n; i += channels, at += channels)
          for (std::size_t j = 0; j < channels && i + j < n; ++j) at[j] *= k[j];
      }
    }
    p.inputs[1] = renamed;
  }
  if (!matmul) {
    const std::size_t slot = 2;
    bool ok;
    std::vector<float> bias;
    if (gemm) {
      // Gemm: Y = alpha A B + beta C; C may be any broadcastable shape: keep it whole.
      const float beta = p.get_float("beta", 1.0f);
      Shape cs = {static_cast<std::int64_t>(channels)};
      std::vector<float> cv(channels, 0.0f);
      if (p.inputs.size() > 2 && !p.inputs[2].empty()) {
        const Tensor& ct = g.tensor(p.inputs[2]);
        if (!ct.is_constant) return false;
        cs = ct.shape;
        cv = constant_values(ct);
      }
      FloatTensor cf{cs, cv}, kf{{static_cast<std::int64_t>(channels)}, k};
      Shape out = broadcast_shapes(cs, kf.shape, g.source);
      cf = broadcast_binary<float, float, float>(cf, kf, out, [&](float cv0, float kv) {
        return mul ? beta * cv0 * kv : beta * cv0 + kv;
      });
      const std::string name = g.unique_name(p.name + "_bias_folded");
      g.add_constant(name, cf.shape, std::move(cf.data)).elem_type = type;
      p.inputs.resize(3);
      p.inputs[2] = name;
      p.set_float("beta", 1.0f);
    } else {
      bias = layer_bias(g, p, slot, channels, ok);
      if (!ok) return false;
      for (std::size_t i = 0; i < channels; ++i) bias[i] = mul ? bias[i] * k[i] : bias[i] + k[i];
      set_bias(g, p, slot, std::move(bias), type);
    }
  }
  p.outputs[0] = a.outputs[0];
  add_fused_names(p, a, false);
  return true;
}

// Mul/Add `a` (per input channel) folded into the Conv `ci` that reads its output.
bool fold_before(Graph& g, int ai, int ci, const ReadCounts& reads) {
  Node& a = g.nodes[ai];
  Node& conv = g.nodes[ci];
  if (conv.op_type != "Conv" || conv.inputs.size() < 2 || conv.inputs[0] != a.outputs[0] || !g.is_constant(conv.inputs[1]))
    return false;
  // Padding would read zeros where the unfolded graph reads the shift: only unpadded convs.
  const std::string auto_pad = conv.get_string("auto_pad", "NOTSET");
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") return false;
  for (auto p : conv.get_ints("pads"))
    if (p != 0 && auto_pad != "VALID") return false;
  std::string c;
  const std::string x = variable_operand(g, a, &c);
  std::vector<float> k;
  const Tensor& xt = g.tensor(x);
  if (!xt.shape_known || xt.shape.size() < 3 || g.tensor(a.outputs[0]).shape != xt.shape || !per_channel(g, c, x, 1, k))
    return false;
  const Tensor& wt = g.tensor(conv.inputs[1]);
  if (wt.floats.empty()) return false;
  const std::int64_t M = wt.shape[0], cg = wt.shape[1], group = conv.get_int("group", 1);
  const std::size_t spatial = wt.floats.size() / static_cast<std::size_t>(M * cg);
  const std::int64_t mg = M / group;
  auto channel_of = [&](std::size_t i) {  // input channel that weight i multiplies
    const std::int64_t m = static_cast<std::int64_t>(i / (cg * spatial)), c_in = static_cast<std::int64_t>((i / spatial) % cg);
    return static_cast<std::size_t>((m / mg) * cg + c_in);
  };
  if (a.op_type == "Mul") {
    std::string renamed;
    Tensor& w = own_constant(g, conv.inputs[1], reads, renamed);
    for (std::size_t i = 0; i < w.floats.size(); ++i) w.floats[i] *= k[channel_of(i)];
    conv.inputs[1] = renamed;
  } else {
    bool ok;
    auto bias = layer_bias(g, conv, 2, static_cast<std::size_t>(M), ok);
    if (!ok) return false;
    for (std::size_t i = 0; i < wt.floats.size(); ++i) bias[i / (cg * spatial)] += wt.floats[i] * k[channel_of(i)];
    set_bias(g, conv, 2, std::move(bias), wt.elem_type);
  }
  conv.inputs[0] = x;
  add_fused_names(conv, a, true);
  return true;
}

}  // namespace

std::string fold_batchnorm(Graph& g) {
  const int split = split_batchnorms(g);
  int after = 0, before = 0;
  for (bool again = true; again;) {
    again = false;
    Uses uses(g);
    const ReadCounts reads = read_counts(g);
    std::set<int> removed, touched;
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
      const Node& a = g.nodes[i];
      if ((a.op_type != "Mul" && a.op_type != "Add") || !a.domain.empty() || touched.count(static_cast<int>(i))) continue;
      std::string c;
      const std::string x = variable_operand(g, a, &c);
      if (x.empty() || !is_float_type(g.tensor(a.outputs[0]).elem_type)) continue;
      const int p = g.producer(x);
      if (p >= 0 && !touched.count(p) && g.nodes[p].domain.empty() && uses.sole_reader(x) == static_cast<int>(i) &&
          fold_after(g, static_cast<int>(i), p, reads)) {
        ++after;
      } else {
        const int r = uses.sole_reader(a.outputs[0]);
        if (r < 0 || touched.count(r) || !g.nodes[r].domain.empty() || !fold_before(g, static_cast<int>(i), r, reads)) continue;
        ++before;
        touched.insert(r);
      }
      if (p >= 0) touched.insert(p);
      touched.insert(static_cast<int>(i));
      removed.insert(static_cast<int>(i));
      again = true;
    }
    erase_nodes(g, removed);
  }
  return std::to_string(split) + " BatchNormalization to scale and shift, " + std::to_string(after) +
         " folded into the layer before, " + std::to_string(before) + " into the conv after";
}

}  // namespace npu::compiler
