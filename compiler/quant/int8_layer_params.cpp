#include "compiler/quant/int8_layer_params.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>

#include "compiler/core/npu_ops.h"
#include "compiler/quant/quantize.h"
#include "compiler/quant/weight_bits.h"
#include "compiler/reference/float_evaluator.h"

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
  QuantizedWeights qw = gemm ? quantize_weights(wt.floats, oc, 1, weight_bits(n)) : quantize_weights(wt.floats, oc, per_oc);
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
  // Each output channel's weight sum, the weights walked in their storage order (a gemm's
  // [K][N] column by column strode N bytes per weight: 2.4 M cache-missing reads for a ViT-B/16
  // MLP layer); integer sums, so the order changes nothing.
  std::vector<std::int64_t> wsums(static_cast<std::size_t>(oc), 0);
  const std::int8_t* w = p.weights.data();
  if (gemm) {
    for (std::int64_t i = 0; i < per_oc; ++i, w += oc)
      for (std::int64_t o = 0; o < oc; ++o) wsums[static_cast<std::size_t>(o)] += w[o];
  } else {
    for (std::int64_t o = 0; o < oc; ++o, w += per_oc)
      for (std::int64_t i = 0; i < per_oc; ++i) wsums[static_cast<std::size_t>(o)] += w[i];
  }
  for (std::int64_t o = 0; o < oc; ++o) {
    const double sw = p.channel_scales[o];
    const std::int64_t wsum = wsums[static_cast<std::size_t>(o)];
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

namespace {

// All elements equal (a scalar in disguise, e.g. a [1,1,1] constant from an exporter).
bool scalar_constant(const Graph& g, const std::string& name) {
  if (name.empty() || !g.is_constant(name)) return false;
  const Tensor& t = g.tensor(name);
  if (!t.floats.empty()) return std::all_of(t.floats.begin(), t.floats.end(), [&](float v) { return v == t.floats[0]; });
  return !t.ints.empty() && std::all_of(t.ints.begin(), t.ints.end(), [&](std::int64_t v) { return v == t.ints[0]; });
}

// The table of f(dequantize(q)) for every int8 q, with f the node itself evaluated in FP32 with
// its constant operands as scalars.
std::vector<std::int8_t> node_lut(const Graph& g, const Node& n, int operand, const QuantParams& in, const QuantParams& out) {
  FloatTensor x;
  x.shape = {256};
  for (int q = -128; q < 128; ++q) x.data.push_back(dequantize_value(static_cast<std::int8_t>(q), in.scale, in.zero_point));
  std::vector<FloatTensor> consts(n.inputs.size());
  std::vector<const FloatTensor*> inputs;
  for (std::size_t i = 0; i < n.inputs.size(); ++i) {
    if (static_cast<int>(i) == operand) {
      inputs.push_back(&x);
    } else if (n.inputs[i].empty()) {
      inputs.push_back(nullptr);
    } else {
      consts[i] = constant_as_float(g.tensor(n.inputs[i]));
      if (!consts[i].data.empty() && scalar_constant(g, n.inputs[i])) {
        consts[i].shape = {};
        consts[i].data.resize(1);
      }
      inputs.push_back(&consts[i]);
    }
  }
  FloatTensor y = evaluate_node(g, n, inputs).at(0);
  std::vector<std::int8_t> table(256);
  for (int q = -128; q < 128; ++q)
    table[static_cast<std::uint8_t>(q)] = quantize_value(y.data.at(static_cast<std::size_t>(q + 128)), out.scale, out.zero_point);
  return table;
}

QuantParams constant_params(const Tensor& t) {
  FloatTensor f = constant_as_float(t);
  if (f.data.empty()) return activation_params(0.0f, 0.0f);
  auto [lo, hi] = std::minmax_element(f.data.begin(), f.data.end());
  return activation_params(*lo, *hi);
}

}  // namespace

int unary_operand(const Graph& g, const Node& n) {
  int operand = -1;
  for (std::size_t i = 0; i < n.inputs.size(); ++i) {
    const std::string& v = n.inputs[i];
    if (v.empty()) continue;
    if (!g.is_constant(v)) {
      if (operand >= 0) return -1;
      operand = static_cast<int>(i);
      continue;
    }
    // Clip's bounds and other parameters are scalars; a data operand must be one too.
    if (!scalar_constant(g, v)) return -1;
  }
  // A table maps each element to one element: not when a uniform constant's shape broadcasts the
  // data to a larger output (T5's zero position bias of [1, heads, 1, n] plus a [1, 1, 1, n] mask:
  // the table filled one head and left the others unwritten).
  if (operand >= 0 && !n.outputs.empty()) {
    const Tensor& x = g.tensor(n.inputs[static_cast<std::size_t>(operand)]);
    const Tensor& y = g.tensor(n.outputs[0]);
    auto elements = [](const std::vector<std::int64_t>& shape) {
      return std::accumulate(shape.begin(), shape.end(), std::int64_t{1}, std::multiplies<>());
    };
    if (x.shape_known && y.shape_known && elements(x.shape) != elements(y.shape)) return -1;
  }
  return operand;
}

bool masked_where(const Graph& g, const Node& n) {
  if (n.op_type != "Where" || n.inputs.size() != 3) return false;
  for (std::size_t i = 1; i < 3; ++i) {
    if (!g.is_constant(n.inputs[i])) continue;
    for (float v : constant_as_float(g.tensor(n.inputs[i])).data)
      if (!std::isfinite(v) || std::abs(v) > kMaskFillMagnitude) return true;
  }
  return false;
}

isa::BinaryFunction binary_function(const std::string& op) {
  if (op == "Add") return isa::BinaryFunction::Add;
  if (op == "Sub") return isa::BinaryFunction::Sub;
  if (op == "Mul") return isa::BinaryFunction::Mul;
  if (op == "Div") return isa::BinaryFunction::Div;
  if (op == "Max") return isa::BinaryFunction::Max;
  if (op == "Min") return isa::BinaryFunction::Min;
  if (op == "Pow") return isa::BinaryFunction::Pow;
  if (op == "PRelu") return isa::BinaryFunction::Prelu;
  throw CompileError("op " + op + " is not a binary function");
}

Int8ElementwiseParams int8_elementwise_params(const Graph& g, const Node& n) {
  const std::string& op = n.op_type;
  const QuantParams& y = g.tensor(n.outputs[0]).quant;
  Int8ElementwiseParams p;
  p.operands.resize(n.inputs.size());
  for (std::size_t i = 0; i < n.inputs.size(); ++i)
    if (!n.inputs[i].empty() && !g.is_constant(n.inputs[i])) p.operands[i] = g.tensor(n.inputs[i]).quant;
  const int single = unary_operand(g, n);
  if (is_requantisation(op)) {  // the identity from one int8 grid to another
    QuantParams from = p.operands[0], to = y;
    if (n.has("integer_scale")) {  // a uint8 graph side holds the code (backend/integer_boundary.cpp)
      QuantParams file;
      file.scale = n.get_float("integer_scale", 1.0f);
      file.zero_point = static_cast<std::int32_t>(n.get_int("integer_zero_point", 0));
      (op == "DequantizeLinear" ? from : to) = file;
    }
    p.kind = Int8ElementwiseParams::Kind::Lut;
    p.lut = requantization_table(from.scale, from.zero_point, to.scale, to.zero_point);
    return p;
  }
  if ((op == "Relu" || op == "Clip") && single == 0) {  // same parameters in and out: clip the integers
    const QuantParams& a = p.operands[0];
    const float inf = std::numeric_limits<float>::infinity();
    float lo = op == "Relu" ? 0.0f : clip_bound(g, n, 1, "min", -inf);
    float hi = op == "Relu" ? inf : clip_bound(g, n, 2, "max", inf);
    p.kind = Int8ElementwiseParams::Kind::Clip;
    if (std::isfinite(lo)) p.lo = quantize_value(lo, a.scale, a.zero_point);
    if (std::isfinite(hi)) p.hi = quantize_value(hi, a.scale, a.zero_point);
    return p;
  }
  if (single >= 0) {
    p.kind = Int8ElementwiseParams::Kind::Lut;
    p.lut = node_lut(g, n, single, p.operands[static_cast<std::size_t>(single)], y);
    return p;
  }
  for (std::size_t i = 0; i < n.inputs.size(); ++i)
    if (!n.inputs[i].empty() && g.is_constant(n.inputs[i])) p.operands[i] = constant_params(g.tensor(n.inputs[i]));
  const QuantParams& a = p.operands.at(0);
  const QuantParams& b = p.operands.at(1);
  const bool both_activations = !g.is_constant(n.inputs[0]) && !g.is_constant(n.inputs[1]);
  if (op == "Add" && both_activations && g.tensor(n.inputs[0]).shape == g.tensor(n.inputs[1]).shape &&
      g.tensor(n.inputs[0]).shape == g.tensor(n.outputs[0]).shape) {
    p.kind = Int8ElementwiseParams::Kind::Qadd;
    p.qadd = make_qadd(a.scale, a.zero_point, b.scale, b.zero_point, y.scale, y.zero_point);
    return p;
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Max" || op == "Min") {
    p.kind = Int8ElementwiseParams::Kind::QBinary;
    p.qbinary = make_qbinary(static_cast<int>(binary_function(op)), op == "Mul", a.scale, a.zero_point, b.scale,
                             b.zero_point, y.scale, y.zero_point);
    return p;
  }
  p.kind = Int8ElementwiseParams::Kind::Island;
  p.island_function = binary_function(op);
  return p;
}

std::shared_ptr<const Int8ConvParams> Int8ParamsCache::conv(const Graph& graph, const Node& node) const {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = conv_.find(node.name);
    if (it != conv_.end()) return it->second;
  }
  auto params = std::make_shared<const Int8ConvParams>(int8_conv_params(graph, node));
  std::lock_guard<std::mutex> lock(mutex_);
  return conv_.emplace(node.name, std::move(params)).first->second;
}

}  // namespace npu::compiler
