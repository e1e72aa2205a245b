#include "compiler/int8_layer_params.h"

#include <cmath>
#include <limits>

#include "compiler/float_evaluator.h"
#include "compiler/quantize.h"

namespace npu::compiler {
namespace {

QuantParams attr_quant(const Node& n, const std::string& prefix, const QuantParams& fallback) {
  if (!n.has(prefix + "_scale")) return fallback;
  QuantParams q;
  q.scale = n.get_float(prefix + "_scale", 1.0f);
  q.zero_point = static_cast<std::int32_t>(n.get_int(prefix + "_zero_point", 0));
  return q;
}

float clip_bound(const Graph& g, const Node& n, std::size_t input, const char* attr, float fallback) {
  if (n.inputs.size() > input && !n.inputs[input].empty()) {
    const Tensor& t = g.tensor(n.inputs[input]);
    return t.floats.empty() ? static_cast<float>(t.ints.at(0)) : t.floats.at(0);
  }
  return n.has(attr) ? n.get_float(attr, fallback) : fallback;
}

}  // namespace

bool is_lut_activation(const std::string& a) { return !a.empty() && a != "Relu" && a != "Clip"; }

void int8_clamp_bounds(const std::string& act, float lo, float hi, const QuantParams& q, std::int32_t& qlo,
                       std::int32_t& qhi) {
  qlo = -128;
  qhi = 127;
  if (act == "Relu") qlo = std::max(-128, q.zero_point);
  if (act == "Clip") {
    if (std::isfinite(lo)) qlo = quantize_value(lo, q.scale, q.zero_point);
    if (std::isfinite(hi)) qhi = quantize_value(hi, q.scale, q.zero_point);
  }
}

Int8ConvParams int8_conv_params(const Graph& g, const Node& n) {
  const bool gemm = n.op_type == "FusedGemm";
  const Tensor& xt = g.tensor(n.inputs[0]);
  const Tensor& wt = g.tensor(n.inputs[1]);
  const Tensor& yt = g.tensor(n.outputs[0]);
  const std::string bias_name = n.inputs.size() > 2 ? n.inputs[2] : std::string();
  const std::string res_name = n.inputs.size() > 3 ? n.inputs[3] : std::string();
  const std::int64_t oc = gemm ? wt.shape[1] : wt.shape[0];
  const std::int64_t per_oc = wt.elements() / oc;  // weights feeding one output channel
  const std::string act = n.get_string("activation", "");
  const std::string post = n.get_string("post_activation", "");

  Int8ConvParams p;
  QuantizedWeights qw = gemm ? quantize_weights(wt.floats, oc, 1) : quantize_weights(wt.floats, oc, per_oc);
  p.weights = std::move(qw.values);
  p.channel_scales = std::move(qw.channel_scales);
  p.residual = !res_name.empty();
  p.input_zero_point = xt.quant.zero_point;
  const QuantParams out_q = yt.quant;
  const QuantParams acc_q = attr_quant(n, "acc", out_q);
  const QuantParams act_q = attr_quant(n, "act", out_q);
  const bool lut = is_lut_activation(act);
  // The int8 value the requant step produces: the accumulator's parameters when a table or a
  // residual add still follows, otherwise the layer output's.
  const QuantParams requant_q = lut ? acc_q : (p.residual ? (act.empty() ? acc_q : act_q) : out_q);
  p.requant_zero_point = requant_q.zero_point;
  if (!lut) int8_clamp_bounds(act, n.get_float("act_alpha", 0), n.get_float("act_beta", 0), requant_q, p.clamp_min, p.clamp_max);

  std::vector<float> bias(static_cast<std::size_t>(oc), 0.0f);
  if (!bias_name.empty()) bias = g.tensor(bias_name).floats;
  const double sx = xt.quant.scale;
  p.bias.resize(static_cast<std::size_t>(oc));
  p.requant.resize(static_cast<std::size_t>(oc));
  for (std::int64_t o = 0; o < oc; ++o) {
    const double sw = p.channel_scales[o];
    std::int64_t wsum = 0;
    for (std::int64_t i = 0; i < per_oc; ++i) wsum += p.weights[gemm ? i * oc + o : o * per_oc + i];
    // The conv instruction reads pad_value = zx for padding and does not subtract the input
    // zero point, so the bias absorbs -zx * sum(w) for every position.
    double bq = std::nearbyint(bias[o] / (sx * sw)) - static_cast<double>(p.input_zero_point) * wsum;
    p.bias[o] = static_cast<std::int32_t>(std::clamp(bq, -2147483648.0, 2147483647.0));
    p.requant[o] = to_fixed_point(sx * sw / requant_q.scale);
  }
  const QuantParams lut_out_q = p.residual ? act_q : out_q;
  if (lut) {
    float a = n.get_float("act_alpha", 0), b = n.get_float("act_beta", 0);
    p.lut = make_lut([&](float v) { return apply_activation(act, a, b, v); }, acc_q.scale, acc_q.zero_point,
                     lut_out_q.scale, lut_out_q.zero_point);
  }
  if (p.residual) {
    const QuantParams pre = lut ? lut_out_q : requant_q;
    const QuantParams& r = g.tensor(res_name).quant;
    p.qadd = make_qadd(pre.scale, pre.zero_point, r.scale, r.zero_point, out_q.scale, out_q.zero_point);
    int8_clamp_bounds(post, n.get_float("post_alpha", 0), n.get_float("post_beta", 0), out_q, p.qadd.clamp_min,
                      p.qadd.clamp_max);
  }
  return p;
}

Int8ElementwiseParams int8_elementwise_params(const Graph& g, const Node& n) {
  const std::string& op = n.op_type;
  const QuantParams& a = g.tensor(n.inputs[0]).quant;
  const QuantParams& y = g.tensor(n.outputs[0]).quant;
  Int8ElementwiseParams p;
  if (op == "Add") {
    const QuantParams& b = g.tensor(n.inputs[1]).quant;
    p.kind = Int8ElementwiseParams::Kind::Qadd;
    p.qadd = make_qadd(a.scale, a.zero_point, b.scale, b.zero_point, y.scale, y.zero_point);
  } else if (op == "Relu" || op == "Clip") {  // same parameters in and out: clip the integers
    const float inf = std::numeric_limits<float>::infinity();
    float lo = op == "Relu" ? 0.0f : clip_bound(g, n, 1, "min", -inf);
    float hi = op == "Relu" ? inf : clip_bound(g, n, 2, "max", inf);
    p.kind = Int8ElementwiseParams::Kind::Clip;
    if (std::isfinite(lo)) p.lo = quantize_value(lo, a.scale, a.zero_point);
    if (std::isfinite(hi)) p.hi = quantize_value(hi, a.scale, a.zero_point);
  } else {
    float alpha = n.get_float("alpha", 0.2f), beta = n.get_float("beta", 0.5f);
    p.kind = Int8ElementwiseParams::Kind::Lut;
    p.lut = make_lut([&](float v) { return apply_activation(op, alpha, beta, v); }, a.scale, a.zero_point, y.scale,
                     y.zero_point);
  }
  return p;
}

}  // namespace npu::compiler
