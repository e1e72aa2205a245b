#include "compiler/quant/quant_simulation.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "compiler/core/npu_ops.h"
#include "compiler/core/subgraph_capture.h"
#include "compiler/quant/int8_layer_params.h"
#include "compiler/quant/weight_bits.h"
#include "compiler/quant/quant_math.h"
#include "compiler/quant/quantize.h"
#include "isa/fp16.h"

namespace npu::compiler {

bool is_precision_layer(const Node& n) {
  if (n.domain == "npusim" && (n.op_type == "Quantize" || n.op_type == "Dequantize")) return false;
  return !move_ops().count(n.op_type);
}

std::vector<LayerMode> resolve_layer_modes(const Graph& g, const std::set<std::string>& fp16_layers) {
  std::vector<LayerMode> modes(g.nodes.size(), LayerMode::Float);
  std::map<std::string, LayerMode> produced;
  // Host values (graph inputs, CPU outputs) an fp16 layer reads travel as fp16.
  std::set<std::string> on_npu;
  for (const auto& n : g.nodes)
    if (n.device == Node::Device::Npu)
      for (const auto& o : n.outputs) on_npu.insert(o);
  for (const auto& n : g.nodes)
    if (n.device == Node::Device::Npu && is_precision_layer(n) && fp16_layers.count(n.name))
      for (const auto& v : n.inputs)
        if (!v.empty() && !g.is_constant(v) && !on_npu.count(v)) produced[v] = LayerMode::Fp16;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.device != Node::Device::Npu) continue;
    LayerMode m = LayerMode::Int8;
    if (is_precision_layer(n)) {
      if (fp16_layers.count(n.name)) m = LayerMode::Fp16;
    } else {
      for (const auto& v : n.inputs) {
        auto it = produced.find(v);
        if (it != produced.end() && it->second == LayerMode::Fp16) m = LayerMode::Fp16;
      }
    }
    modes[i] = m;
    for (const auto& o : n.outputs) produced[o] = m;
  }
  return modes;
}

void fake_quantize(std::vector<float>& v, const QuantParams& q) {
  if (!(q.scale > 0.0f)) return;
  const double inv = 1.0 / q.scale;
  for (auto& x : v) {
    if (std::isnan(x)) {
      x = 0.0f;
      continue;
    }
    const double r = std::min(127.0, std::max(-128.0, std::nearbyint(x * inv) + q.zero_point));
    x = static_cast<float>(q.scale * (r - q.zero_point));
  }
}

void round_to_fp16(std::vector<float>& v) {
  for (auto& x : v) x = isa::round_to_half(x);
}

void Agreement::add(const std::vector<float>& ref, const std::vector<float>& out) {
  const std::size_t n = std::min(ref.size(), out.size());
  for (std::size_t i = 0; i < n; ++i) {
    const double a = ref[i], b = out[i];
    if (!std::isfinite(a) || !std::isfinite(b)) continue;  // masked scores (-inf) on both sides
    dot += a * b;
    ref_sq += a * a;
    out_sq += b * b;
    err_sq += (a - b) * (a - b);
  }
}

double Agreement::cosine() const {
  if (ref_sq == 0 && out_sq == 0) return 1.0;
  if (ref_sq == 0 || out_sq == 0) return 0.0;
  return dot / std::sqrt(ref_sq * out_sq);
}

double Agreement::sqnr_db() const {
  if (err_sq == 0) return 200.0;
  if (ref_sq == 0) return -200.0;
  return std::min(200.0, 10.0 * std::log10(ref_sq / err_sq));
}

namespace {

bool fused_layer(const Node& n) {
  return n.domain == "npusim" && (n.op_type == "FusedConv" || n.op_type == "FusedGemm");
}

QuantParams attr_quant(const Node& n, const std::string& prefix, const QuantParams& fallback) {
  if (!n.has(prefix + "_scale")) return fallback;
  QuantParams q;
  q.scale = n.get_float(prefix + "_scale", 1.0f);
  q.zero_point = static_cast<std::int32_t>(n.get_int(prefix + "_zero_point", 0));
  return q;
}

void apply(const std::string& act, float alpha, float beta, std::vector<float>& v) {
  if (act.empty()) return;
  for (auto& x : v) x = apply_activation(act, alpha, beta, x);
}

}  // namespace

QuantSimulator::QuantSimulator(const Graph& g, NodeRunner host)
    : graph_(g), host_(std::move(host)), constants_(graph_constants(g)) {
  const std::size_t n = g.nodes.size();
  plain_.resize(n);
  int8_weights_.resize(n);
  fp16_weights_.resize(n);
  reads_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Node& node = g.nodes[i];
    reads_[i] = values_read(node);
    if (!fused_layer(node) || node.inputs.size() < 2 || !g.is_constant(node.inputs[1])) continue;
    Node plain = node;
    plain.inputs.resize(std::min<std::size_t>(plain.inputs.size(), 3));
    for (const char* a : {"activation", "post_activation"}) plain.attributes.erase(a);
    plain_[i] = std::move(plain);
    const Tensor& w = g.tensor(node.inputs[1]);
    const bool gemm = node.op_type == "FusedGemm";
    const std::int64_t oc = gemm ? w.shape[1] : w.shape[0];
    FloatTensor q = constants_.at(node.inputs[1]);
    FloatTensor h = q;
    QuantizedWeights qw =
        gemm ? quantize_weights(w.floats, oc, 1, weight_bits(node)) : quantize_weights(w.floats, oc, w.elements() / oc);
    const std::int64_t inner = gemm ? 1 : w.elements() / oc;
    for (std::size_t e = 0; e < q.data.size(); ++e)
      q.data[e] = qw.values[e] * qw.channel_scales[static_cast<std::size_t>((static_cast<std::int64_t>(e) / inner) % oc)];
    round_to_fp16(h.data);
    int8_weights_[i] = std::move(q);
    fp16_weights_[i] = std::move(h);
  }
}

std::vector<FloatTensor> QuantSimulator::evaluate(std::size_t i, LayerMode mode,
                                                  const std::vector<const FloatTensor*>& inputs) const {
  const Graph& g = graph_;
  const Node& n = g.nodes[i];
  if (mode == LayerMode::Float) {
    if (host_ && !evaluator_supports(n)) return host_(i, inputs);  // as calibration ran it
    return evaluate_node(g, n, inputs);
  }
  std::vector<FloatTensor> held;  // rounded copies of the inputs
  held.reserve(inputs.size());
  std::vector<const FloatTensor*> in = inputs;
  for (std::size_t k = 0; k < n.inputs.size() && k < in.size(); ++k) {
    if (!in[k] || n.inputs[k].empty() || g.is_constant(n.inputs[k])) continue;
    const Tensor& t = g.tensor(n.inputs[k]);
    if (mode == LayerMode::Int8 && !t.quant.valid()) continue;  // an int8 program's fp16 value
    held.push_back(*in[k]);
    if (mode == LayerMode::Int8) fake_quantize(held.back().data, t.quant);
    else round_to_fp16(held.back().data);
    in[k] = &held.back();
  }
  const bool fused = !plain_[i].op_type.empty();
  if (fused) in[1] = mode == LayerMode::Int8 ? &int8_weights_[i] : &fp16_weights_[i];
  if (!fused || mode == LayerMode::Fp16) {
    auto out = evaluate_node(g, n, in);
    for (std::size_t o = 0; o < out.size() && o < n.outputs.size(); ++o) {
      if (n.outputs[o].empty()) continue;
      const QuantParams& q = g.tensor(n.outputs[o]).quant;
      if (mode == LayerMode::Fp16) round_to_fp16(out[o].data);
      else if (q.valid()) fake_quantize(out[o].data, q);
    }
    return out;
  }
  // An int8 fused layer: the accumulator, then the epilogue exactly as int8_conv_params lays it
  // out (requant to the accumulator's grid when a table follows, table, residual qadd).
  std::vector<const FloatTensor*> core(in.begin(), in.begin() + std::min<std::size_t>(in.size(), 3));
  FloatTensor y = evaluate_node(g, plain_[i], core).at(0);
  const std::string act = n.get_string("activation", "");
  const std::string post = n.get_string("post_activation", "");
  const float a = n.get_float("act_alpha", 0), b = n.get_float("act_beta", 0);
  const bool residual = n.inputs.size() > 3 && !n.inputs[3].empty() && in.size() > 3 && in[3];
  const QuantParams out_q = g.tensor(n.outputs[0]).quant;
  const QuantParams acc_q = attr_quant(n, "acc", out_q), act_q = attr_quant(n, "act", out_q);
  if (is_lut_activation(act)) {
    fake_quantize(y.data, acc_q);
    apply(act, a, b, y.data);
    fake_quantize(y.data, residual ? act_q : out_q);
  } else {
    apply(act, a, b, y.data);
    fake_quantize(y.data, residual ? (act.empty() ? acc_q : act_q) : out_q);
  }
  if (residual) {
    const FloatTensor& r = *in[3];
    for (std::size_t e = 0; e < y.data.size() && e < r.data.size(); ++e) y.data[e] += r.data[e];
    apply(post, n.get_float("post_alpha", 0), n.get_float("post_beta", 0), y.data);
    fake_quantize(y.data, out_q);
  }
  std::vector<FloatTensor> out;
  out.push_back(std::move(y));
  return out;
}

std::vector<FloatTensor> QuantSimulator::run_node(std::size_t i, LayerMode mode, const TensorMap& values) const {
  const Node& n = graph_.nodes[i];
  std::vector<const FloatTensor*> in;
  for (const auto& v : n.inputs) {
    if (v.empty()) {
      in.push_back(nullptr);
      continue;
    }
    auto it = values.find(v);
    if (it != values.end()) {
      in.push_back(&it->second);
      continue;
    }
    auto c = constants_.find(v);
    in.push_back(c == constants_.end() ? nullptr : &c->second);
  }
  return evaluate(i, mode, in);
}

TensorMap QuantSimulator::run(const TensorMap& inputs, const std::vector<LayerMode>& modes, bool keep_all,
                              const TensorMap* base, std::size_t first) const {
  const Graph& g = graph_;
  TensorMap values;
  if (!base) values = inputs;
  std::map<std::string, std::size_t> last_use;
  if (!keep_all && !base)
    for (std::size_t i = 0; i < g.nodes.size(); ++i)
      for (const auto& v : reads_[i]) last_use[v] = i;
  auto lookup = [&](const std::string& v) -> const FloatTensor* {
    auto it = values.find(v);
    if (it != values.end()) return &it->second;
    if (base) {
      auto b = base->find(v);
      if (b != base->end()) return &b->second;
    }
    auto c = constants_.find(v);
    return c == constants_.end() ? nullptr : &c->second;
  };
  for (std::size_t i = base ? first : 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (base && i != first) {  // unchanged inputs: the base's values stand
      bool changed = false;
      for (const auto& v : reads_[i]) changed |= values.count(v) != 0;
      if (!changed) continue;
    }
    std::vector<const FloatTensor*> in;
    for (const auto& v : n.inputs) in.push_back(v.empty() ? nullptr : lookup(v));
    auto out = evaluate(i, modes[i], in);
    for (std::size_t o = 0; o < out.size() && o < n.outputs.size(); ++o)
      if (!n.outputs[o].empty()) values[n.outputs[o]] = std::move(out[o]);
    if (!keep_all && !base)
      for (const auto& v : reads_[i]) {
        auto it = last_use.find(v);
        if (it != last_use.end() && it->second == i && !g.is_graph_output(v)) values.erase(v);
      }
  }
  if (!keep_all) {
    TensorMap outs;
    for (const auto& o : g.outputs)
      if (const FloatTensor* t = lookup(o)) outs[o] = *t;
    return outs;
  }
  return values;
}

}  // namespace npu::compiler
