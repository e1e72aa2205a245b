#include "compiler/reference/float_evaluator.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "compiler/core/node_parameters.h"
#include "compiler/reference/float_evaluator_checks.h"
#include "compiler/reference/float_kernels.h"
#include "compiler/reference/saturating_cast.h"

namespace npu::compiler {
namespace {

const KernelTable& kernels() {
  static const KernelTable table = [] {
    KernelTable t;
    add_elementwise_kernels(t);
    add_reduction_kernels(t);
    add_layer_kernels(t);
    add_tensor_kernels(t);
    return t;
  }();
  return table;
}

constexpr float kSqrt1_2 = 0.70710678118654752f;
constexpr float kSqrt2OverPi = 0.79788456080286536f;

}  // namespace

bool is_integer_elem_type(int t) {
  return t == kInt64 || t == kInt32 || t == kInt8 || t == kUint8 || t == kBool || t == 4 /*uint16*/ ||
         t == 5 /*int16*/ || t == 12 /*uint32*/ || t == 13 /*uint64*/;
}

const FloatTensor& EvalNode::need(std::size_t i) const {
  if (i >= inputs.size() || !inputs[i]) fail("missing input " + std::to_string(i));
  return *inputs[i];
}

void EvalNode::fail(const std::string& what) const {
  throw CompileError(graph.source + ": node '" + node.name + "' (" + node.op_type + "): " + what);
}

bool EvalNode::ints(const std::string& name, std::vector<std::int64_t>& out) const {
  return parameter_ints(graph, node, name, out, &inputs);
}

bool EvalNode::floats(const std::string& name, std::vector<float>& out) const {
  return parameter_floats(graph, node, name, out, &inputs);
}

int EvalNode::output_type(std::size_t o) const {
  if (o >= node.outputs.size() || node.outputs[o].empty() || !graph.has_tensor(node.outputs[o])) return kFloat;
  return graph.tensor(node.outputs[o]).elem_type;
}

IntTensor EvalNode::as_ints(std::size_t i) const {
  const FloatTensor& f = need(i);
  IntTensor t;
  t.shape = f.shape;
  t.data.reserve(f.data.size());
  for (float v : f.data) t.data.push_back(saturating_cast(v));
  return t;
}

float ActivationFn::operator()(float x) const {
  switch (kind) {
    case Kind::Identity: return x;
    case Kind::Relu: return x > 0.0f ? x : 0.0f;
    case Kind::Clip: return std::min(std::max(x, alpha), beta);
    case Kind::Sigmoid: return 1.0f / (1.0f + std::exp(-x));
    case Kind::HardSigmoid: return std::clamp(alpha * x + beta, 0.0f, 1.0f);
    case Kind::HardSwish: return x * std::clamp(x / 6.0f + 0.5f, 0.0f, 1.0f);
    case Kind::SiLU: return x / (1.0f + std::exp(-x));
    case Kind::LeakyRelu: return x >= 0 ? x : alpha * x;
    case Kind::Tanh: return std::tanh(x);
    case Kind::Gelu: return 0.5f * x * (1.0f + std::erf(x * kSqrt1_2));
    case Kind::GeluTanh: return 0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * (x + 0.044715f * x * x * x)));
    case Kind::Mish: return x * std::tanh(x > 20.0f ? x : std::log1p(std::exp(x)));
    case Kind::Elu: return x >= 0 ? x : alpha * (std::exp(x) - 1.0f);
  }
  return x;
}

namespace {
template <typename F>
void each(std::vector<float>& v, F f) {
  for (auto& x : v) x = f(x);
}
}  // namespace

void ActivationFn::apply(std::vector<float>& v) const {
  const float a = alpha, b = beta;
  switch (kind) {
    case Kind::Identity: return;
    case Kind::Relu: return each(v, [](float x) { return x > 0.0f ? x : 0.0f; });
    case Kind::Clip: return each(v, [=](float x) { return std::min(std::max(x, a), b); });
    case Kind::Sigmoid: return each(v, [](float x) { return 1.0f / (1.0f + std::exp(-x)); });
    case Kind::HardSigmoid: return each(v, [=](float x) { return std::clamp(a * x + b, 0.0f, 1.0f); });
    case Kind::HardSwish: return each(v, [](float x) { return x * std::clamp(x / 6.0f + 0.5f, 0.0f, 1.0f); });
    case Kind::SiLU: return each(v, [](float x) { return x / (1.0f + std::exp(-x)); });
    case Kind::LeakyRelu: return each(v, [=](float x) { return x >= 0 ? x : a * x; });
    default: return each(v, [this](float x) { return (*this)(x); });
  }
}

ActivationFn resolve_activation(const std::string& a, float alpha, float beta) {
  using K = ActivationFn::Kind;
  static const std::map<std::string, K> names = {
      {"", K::Identity},       {"Relu", K::Relu},           {"Clip", K::Clip},         {"Sigmoid", K::Sigmoid},
      {"HardSigmoid", K::HardSigmoid}, {"HardSwish", K::HardSwish}, {"SiLU", K::SiLU}, {"LeakyRelu", K::LeakyRelu},
      {"Tanh", K::Tanh},       {"Gelu", K::Gelu},           {"GeluTanh", K::GeluTanh}, {"Mish", K::Mish},
      {"Elu", K::Elu}};
  auto it = names.find(a);
  if (it == names.end()) throw CompileError("unknown fused activation '" + a + "'");
  return {it->second, alpha, beta};
}

float apply_activation(const std::string& a, float alpha, float beta, float x) {
  return resolve_activation(a, alpha, beta)(x);
}

std::int64_t nearest_source_index(const std::string& ctm, const std::string& nm, std::int64_t o,
                                  std::int64_t in_size, std::int64_t out_size) {
  double scale = static_cast<double>(out_size) / in_size;
  double c;
  if (ctm == "asymmetric") c = o / scale;
  else if (ctm == "align_corners") c = out_size > 1 ? o * (in_size - 1.0) / (out_size - 1.0) : 0;
  else if (ctm == "pytorch_half_pixel") c = out_size > 1 ? (o + 0.5) / scale - 0.5 : 0;
  else if (ctm == "half_pixel") c = (o + 0.5) / scale - 0.5;
  else if (ctm == "tf_half_pixel_for_nn") c = (o + 0.5) / scale;
  else return -1;
  std::int64_t i;
  if (nm == "floor") i = static_cast<std::int64_t>(std::floor(c));
  else if (nm == "ceil") i = static_cast<std::int64_t>(std::ceil(c));
  else if (nm == "round_prefer_ceil") i = static_cast<std::int64_t>(std::floor(c + 0.5));
  else i = static_cast<std::int64_t>(std::ceil(c - 0.5));  // round_prefer_floor
  return std::clamp<std::int64_t>(i, 0, in_size - 1);
}

bool evaluator_supports(const Node& n) {
  if (!n.domain.empty() && n.domain != "npusim") return false;
  return kernels().count(n.op_type) != 0;
}

std::vector<std::string> evaluator_ops() {
  std::vector<std::string> ops;
  for (const auto& [op, k] : kernels()) ops.push_back(op);
  return ops;
}

FloatTensor constant_as_float(const Tensor& t) {
  FloatTensor f;
  f.shape = t.shape;
  if (!t.floats.empty() || t.ints.empty()) f.data = t.floats;
  else {
    f.data.reserve(t.ints.size());
    for (auto i : t.ints) f.data.push_back(static_cast<float>(i));
  }
  return f;
}

std::vector<FloatTensor> evaluate_node(const Graph& g, const Node& n, const std::vector<const FloatTensor*>& in) {
  EvalNode e{g, n, in};
  if (!n.domain.empty() && n.domain != "npusim") e.fail("domain '" + n.domain + "' has no FP32 kernel");
  auto it = kernels().find(n.op_type);
  if (it == kernels().end()) e.fail("the FP32 evaluator has no kernel for this op");
  check_evaluator_inputs(g, n, in);
  try {
    return it->second(e);
  } catch (const std::invalid_argument& ex) {
    e.fail(ex.what());
  } catch (const std::out_of_range& ex) {
    e.fail(std::string("a parameter is missing or out of range (") + ex.what() + ")");
  }
}

TensorMap graph_constants(const Graph& g) {
  TensorMap constants;
  for (const auto& [name, t] : g.tensors)
    if (t.is_constant) constants[name] = constant_as_float(t);
  return constants;
}

std::pair<float, float> value_range(const std::vector<float>& values) {
  // Eight independent lanes: a reduction the compiler turns into vector min/max (one running
  // min would be a serial chain, as std::minmax_element is).
  constexpr float kInf = std::numeric_limits<float>::infinity();
  float lo[8] = {kInf, kInf, kInf, kInf, kInf, kInf, kInf, kInf};
  float hi[8] = {-kInf, -kInf, -kInf, -kInf, -kInf, -kInf, -kInf, -kInf};
  const float* d = values.data();
  const std::size_t n = values.size();
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j) {
      lo[j] = d[i + j] < lo[j] ? d[i + j] : lo[j];
      hi[j] = d[i + j] > hi[j] ? d[i + j] : hi[j];
    }
  for (; i < n; ++i) {
    lo[0] = d[i] < lo[0] ? d[i] : lo[0];
    hi[0] = d[i] > hi[0] ? d[i] : hi[0];
  }
  for (int j = 1; j < 8; ++j) {
    lo[0] = std::min(lo[0], lo[j]);
    hi[0] = std::max(hi[0], hi[j]);
  }
  return {lo[0], hi[0]};
}

void evaluate_graph_visiting(const Graph& g, const TensorMap& inputs,
                             const std::function<void(const std::string&, const FloatTensor&)>& visit,
                             const UnevaluatedNodes* unevaluated) {
  // last reader of each value (constants too); graph outputs live to the end
  std::map<std::string, std::size_t> last_use;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    for (const auto& in : g.nodes[i].inputs)
      if (!in.empty()) last_use[in] = i;
  for (const auto& o : g.outputs) last_use[o] = g.nodes.size();
  TensorMap values;
  for (const auto& in : g.inputs) {
    auto it = inputs.find(in);
    if (it == inputs.end()) throw CompileError(g.source + ": no value given for input '" + in + "'");
    visit(in, it->second);
  }
  auto lookup = [&](const std::string& name) -> const FloatTensor* {
    auto v = values.find(name);
    if (v != values.end()) return &v->second;
    auto c = g.tensors.find(name);
    if (c != g.tensors.end() && c->second.is_constant) return &values.emplace(name, constant_as_float(c->second)).first->second;
    auto i = inputs.find(name);
    return i != inputs.end() ? &i->second : nullptr;
  };
  for (std::size_t k = 0; k < g.nodes.size(); ++k) {
    const Node& n = g.nodes[k];
    std::vector<const FloatTensor*> args;
    std::string missing;
    for (const auto& i : n.inputs) {
      const FloatTensor* t = i.empty() ? nullptr : lookup(i);
      if (!i.empty() && !t && missing.empty()) missing = i;
      args.push_back(t);
    }
    std::vector<FloatTensor> outs;
    std::string why;
    if (missing.empty()) {
      try {
        outs = evaluate_node(g, n, args);
      } catch (const CompileError& e) {
        why = e.what();
      }
      if (!why.empty() && unevaluated && unevaluated->elsewhere) {
        try {
          outs = unevaluated->elsewhere(k, args);
          why.clear();
        } catch (const CompileError& e) {
          why += "; " + std::string(e.what());
        }
      }
    }
    if (missing.empty() && why.empty()) {
      for (std::size_t o = 0; o < outs.size() && o < n.outputs.size(); ++o) {
        if (n.outputs[o].empty()) continue;
        visit(n.outputs[o], outs[o]);
        if (last_use.count(n.outputs[o])) values[n.outputs[o]] = std::move(outs[o]);
      }
    } else if (unevaluated && unevaluated->unevaluated) {
      unevaluated->unevaluated(k, missing, why);
    }
    for (const auto& i : n.inputs) {
      auto it = last_use.find(i);
      if (!i.empty() && it != last_use.end() && it->second == k) values.erase(i);
    }
  }
}

TensorMap evaluate_graph(const Graph& g, const TensorMap& inputs, bool best_effort, const TensorMap* constants) {
  TensorMap values = inputs;
  if (!constants)
    for (const auto& [name, t] : g.tensors)
      if (t.is_constant) values[name] = constant_as_float(t);
  for (const auto& in : g.inputs)
    if (!values.count(in)) throw CompileError(g.source + ": no value given for input '" + in + "'");
  for (const auto& n : g.nodes) {
    std::vector<const FloatTensor*> args;
    bool missing = false;
    for (const auto& i : n.inputs) {
      if (i.empty()) { args.push_back(nullptr); continue; }
      auto it = values.find(i);
      if (it == values.end() && constants) {
        auto c = constants->find(i);
        if (c != constants->end()) {
          args.push_back(&c->second);
          continue;
        }
      }
      if (it == values.end()) {
        if (!best_effort) throw CompileError(g.source + ": node '" + n.name + "' input '" + i + "' has no value");
        missing = true;
        break;
      }
      args.push_back(&it->second);
    }
    if (missing || (best_effort && !evaluator_supports(n))) continue;
    std::vector<FloatTensor> outs;
    try {
      outs = evaluate_node(g, n, args);
    } catch (const CompileError&) {
      if (!best_effort) throw;
      continue;
    }
    for (std::size_t o = 0; o < outs.size() && o < n.outputs.size(); ++o)
      if (!n.outputs[o].empty()) values[n.outputs[o]] = std::move(outs[o]);
  }
  return values;
}

}  // namespace npu::compiler
