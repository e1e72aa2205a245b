// Elementwise kernels: unary functions and activations, broadcasting binary and variadic ops,
// comparisons and logic, Clip, Where, Cast.
#include <algorithm>
#include <cmath>
#include <limits>

#include "compiler/reference/float_kernels.h"
#include "compiler/reference/node_geometry.h"
#include "isa/fp16.h"

namespace npu::compiler {
namespace {

FloatOutputs activation(const EvalNode& e, const ActivationFn& f) {
  FloatTensor y = e.need(0);
  f.apply(y.data);
  return outputs(std::move(y));
}

template <typename F>
FloatOutputs unary(const EvalNode& e, F f) {
  FloatTensor y = e.need(0);
  for (auto& v : y.data) v = f(v);
  return outputs(std::move(y));
}

template <typename F>
FloatTensor binary(const EvalNode& e, const FloatTensor& a, const FloatTensor& b, F f) {
  Shape out = a.shape == b.shape ? a.shape : broadcast_shapes(a.shape, b.shape, e.graph.source + ": node '" + e.node.name + "'");
  return broadcast_binary<float, float, float>(a, b, out, f);
}

template <typename F>
FloatOutputs binary_op(const EvalNode& e, F f) {
  return outputs(binary(e, e.need(0), e.need(1), f));
}

// Max, Min, Sum, Mean: folded pairwise over all inputs.
template <typename F>
FloatTensor variadic(const EvalNode& e, F f) {
  FloatTensor acc = e.need(0);
  for (std::size_t i = 1; i < e.inputs.size(); ++i) acc = binary(e, acc, e.need(i), f);
  return acc;
}

float activation_attr(const EvalNode& e, const char* name, float fallback) {
  return e.node.get_float(name, fallback);
}

FloatOutputs cast_to(const EvalNode& e, int to) {
  FloatTensor y = e.need(0);
  if (to == kBool) {
    for (auto& v : y.data) v = v != 0.0f ? 1.0f : 0.0f;
  } else if (is_integer_elem_type(to)) {
    for (auto& v : y.data) v = std::isnan(v) ? 0.0f : std::trunc(v);
  } else if (to == kFloat16) {
    for (auto& v : y.data) v = isa::half_to_float(isa::float_to_half(v));
  } else if (to == 8 /*string*/) {
    e.fail("string tensors have no FP32 kernel");
  }
  return outputs(std::move(y));
}

float python_mod(float a, float b) {
  if (b == 0.0f) return 0.0f;
  float r = std::fmod(a, b);
  if (r != 0.0f && ((r < 0) != (b < 0))) r += b;
  return r;
}

void add_unary(KernelTable& t) {
  t["Relu"] = [](const EvalNode& e) { return unary(e, [](float v) { return v > 0.0f ? v : 0.0f; }); };
  t["Sigmoid"] = [](const EvalNode& e) { return unary(e, [](float v) { return 1.0f / (1.0f + std::exp(-v)); }); };
  t["Tanh"] = [](const EvalNode& e) { return unary(e, [](float v) { return std::tanh(v); }); };
  t["Sqrt"] = [](const EvalNode& e) { return unary(e, [](float v) { return std::sqrt(v); }); };
  t["Exp"] = [](const EvalNode& e) { return unary(e, [](float v) { return std::exp(v); }); };
  t["Log"] = [](const EvalNode& e) { return unary(e, [](float v) { return std::log(v); }); };
  t["Neg"] = [](const EvalNode& e) { return unary(e, [](float v) { return -v; }); };
  t["Abs"] = [](const EvalNode& e) { return unary(e, [](float v) { return std::fabs(v); }); };
  t["Reciprocal"] = [](const EvalNode& e) { return unary(e, [](float v) { return 1.0f / v; }); };
  t["Erf"] = [](const EvalNode& e) { return unary(e, [](float v) { return std::erf(v); }); };
  t["Floor"] = [](const EvalNode& e) { return unary(e, [](float v) { return std::floor(v); }); };
  t["Ceil"] = [](const EvalNode& e) { return unary(e, [](float v) { return std::ceil(v); }); };
  t["Round"] = [](const EvalNode& e) { return unary(e, [](float v) { return std::nearbyint(v); }); };
  t["Sign"] = [](const EvalNode& e) { return unary(e, [](float v) { return v > 0.0f ? 1.0f : v < 0.0f ? -1.0f : 0.0f; }); };
  t["Sin"] = [](const EvalNode& e) { return unary(e, [](float v) { return std::sin(v); }); };
  t["Cos"] = [](const EvalNode& e) { return unary(e, [](float v) { return std::cos(v); }); };
  t["Tan"] = [](const EvalNode& e) { return unary(e, [](float v) { return std::tan(v); }); };
  t["Asin"] = [](const EvalNode& e) { return unary(e, [](float v) { return std::asin(v); }); };
  t["Acos"] = [](const EvalNode& e) { return unary(e, [](float v) { return std::acos(v); }); };
  t["Atan"] = [](const EvalNode& e) { return unary(e, [](float v) { return std::atan(v); }); };
  t["Sinh"] = [](const EvalNode& e) { return unary(e, [](float v) { return std::sinh(v); }); };
  t["Cosh"] = [](const EvalNode& e) { return unary(e, [](float v) { return std::cosh(v); }); };
  t["Asinh"] = [](const EvalNode& e) { return unary(e, [](float v) { return std::asinh(v); }); };
  t["Acosh"] = [](const EvalNode& e) { return unary(e, [](float v) { return std::acosh(v); }); };
  t["Atanh"] = [](const EvalNode& e) { return unary(e, [](float v) { return std::atanh(v); }); };
  t["Not"] = [](const EvalNode& e) { return unary(e, [](float v) { return v == 0.0f ? 1.0f : 0.0f; }); };
  t["IsNaN"] = [](const EvalNode& e) { return unary(e, [](float v) { return std::isnan(v) ? 1.0f : 0.0f; }); };
  t["IsInf"] = [](const EvalNode& e) {
    const bool pos = e.node.get_int("detect_positive", 1) != 0, neg = e.node.get_int("detect_negative", 1) != 0;
    return unary(e, [=](float v) { return std::isinf(v) && ((v > 0 && pos) || (v < 0 && neg)) ? 1.0f : 0.0f; });
  };
  t["Softplus"] = [](const EvalNode& e) {
    return unary(e, [](float v) { return v > 20.0f ? v : std::log1p(std::exp(v)); });
  };
  t["Softsign"] = [](const EvalNode& e) { return unary(e, [](float v) { return v / (1.0f + std::fabs(v)); }); };
  t["HardSwish"] = [](const EvalNode& e) {
    return activation(e, resolve_activation("HardSwish", 0, 0));
  };
  t["SiLU"] = [](const EvalNode& e) { return activation(e, resolve_activation("SiLU", 0, 0)); };
  t["Mish"] = [](const EvalNode& e) { return activation(e, resolve_activation("Mish", 0, 0)); };
  t["GeluTanh"] = [](const EvalNode& e) { return activation(e, resolve_activation("GeluTanh", 0, 0)); };
  t["Gelu"] = [](const EvalNode& e) {
    std::string approx = e.node.get_string("approximate", "none");
    if (approx != "none" && approx != "tanh") e.fail("approximate '" + approx + "' is not none or tanh");
    return activation(e, resolve_activation(approx == "tanh" ? "GeluTanh" : "Gelu", 0, 0));
  };
  t["HardSigmoid"] = [](const EvalNode& e) {
    return activation(e, resolve_activation("HardSigmoid", activation_attr(e, "alpha", 0.2f), activation_attr(e, "beta", 0.5f)));
  };
  t["LeakyRelu"] = [](const EvalNode& e) {
    return activation(e, resolve_activation("LeakyRelu", activation_attr(e, "alpha", 0.01f), 0));
  };
  t["Elu"] = [](const EvalNode& e) { return activation(e, resolve_activation("Elu", activation_attr(e, "alpha", 1.0f), 0)); };
  t["Selu"] = [](const EvalNode& e) {
    const float a = activation_attr(e, "alpha", 1.67326319217681884765625f),
                g = activation_attr(e, "gamma", 1.05070102214813232421875f);
    return unary(e, [=](float v) { return v > 0 ? g * v : g * (a * std::exp(v) - a); });
  };
  t["Celu"] = [](const EvalNode& e) {
    const float a = activation_attr(e, "alpha", 1.0f);
    return unary(e, [=](float v) { return std::max(0.0f, v) + std::min(0.0f, a * (std::exp(v / a) - 1.0f)); });
  };
  t["ThresholdedRelu"] = [](const EvalNode& e) {
    const float a = activation_attr(e, "alpha", 1.0f);
    return unary(e, [=](float v) { return v > a ? v : 0.0f; });
  };
  t["Shrink"] = [](const EvalNode& e) {
    const float bias = activation_attr(e, "bias", 0.0f), l = activation_attr(e, "lambd", 0.5f);
    return unary(e, [=](float v) { return v < -l ? v + bias : v > l ? v - bias : 0.0f; });
  };
  t["Clip"] = [](const EvalNode& e) {
    float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
    std::vector<float> v;
    if (e.floats("min", v) && !v.empty()) lo = v[0];
    if (e.floats("max", v) && !v.empty()) hi = v[0];
    return unary(e, [=](float x) { return std::min(std::max(x, lo), hi); });
  };
  t["Identity"] = [](const EvalNode& e) { return outputs(e.need(0)); };
  t["Dropout"] = [](const EvalNode& e) {
    FloatOutputs out{e.need(0)};
    if (e.wants_output(1)) {
      FloatTensor mask;
      mask.shape = e.need(0).shape;
      mask.data.assign(e.need(0).data.size(), 1.0f);
      out.push_back(std::move(mask));
    }
    return out;
  };
  t["Cast"] = [](const EvalNode& e) { return cast_to(e, static_cast<int>(e.node.get_int("to", kFloat))); };
  t["CastLike"] = [](const EvalNode& e) {
    const auto& like = e.node.inputs.at(1);
    return cast_to(e, e.graph.has_tensor(like) ? e.graph.tensor(like).elem_type : kFloat);
  };
}

void add_binary(KernelTable& t) {
  t["Add"] = [](const EvalNode& e) { return binary_op(e, [](float a, float b) { return a + b; }); };
  t["Sub"] = [](const EvalNode& e) { return binary_op(e, [](float a, float b) { return a - b; }); };
  t["Mul"] = [](const EvalNode& e) { return binary_op(e, [](float a, float b) { return a * b; }); };
  t["Div"] = [](const EvalNode& e) {
    // Integer Div truncates toward zero (what ONNX Runtime computes); 116 / 3 is 38, not 38.67.
    if (is_integer_elem_type(e.output_type()))
      return binary_op(e, [](float a, float b) { return b == 0.0f ? 0.0f : std::trunc(a / b); });
    return binary_op(e, [](float a, float b) { return a / b; });
  };
  t["Pow"] = [](const EvalNode& e) {
    return binary_op(e, [](float a, float b) { return b == 2.0f ? a * a : std::pow(a, b); });
  };
  t["Mod"] = [](const EvalNode& e) {
    if (e.node.get_int("fmod", 0)) return binary_op(e, [](float a, float b) { return std::fmod(a, b); });
    return binary_op(e, python_mod);
  };
  t["PRelu"] = [](const EvalNode& e) { return binary_op(e, [](float x, float s) { return x >= 0 ? x : s * x; }); };
  t["Equal"] = [](const EvalNode& e) { return binary_op(e, [](float a, float b) { return a == b ? 1.0f : 0.0f; }); };
  t["Less"] = [](const EvalNode& e) { return binary_op(e, [](float a, float b) { return a < b ? 1.0f : 0.0f; }); };
  t["LessOrEqual"] = [](const EvalNode& e) { return binary_op(e, [](float a, float b) { return a <= b ? 1.0f : 0.0f; }); };
  t["Greater"] = [](const EvalNode& e) { return binary_op(e, [](float a, float b) { return a > b ? 1.0f : 0.0f; }); };
  t["GreaterOrEqual"] = [](const EvalNode& e) { return binary_op(e, [](float a, float b) { return a >= b ? 1.0f : 0.0f; }); };
  t["And"] = [](const EvalNode& e) { return binary_op(e, [](float a, float b) { return a != 0 && b != 0 ? 1.0f : 0.0f; }); };
  t["Or"] = [](const EvalNode& e) { return binary_op(e, [](float a, float b) { return a != 0 || b != 0 ? 1.0f : 0.0f; }); };
  t["Xor"] = [](const EvalNode& e) { return binary_op(e, [](float a, float b) { return (a != 0) != (b != 0) ? 1.0f : 0.0f; }); };
  t["Max"] = [](const EvalNode& e) {
    return outputs(variadic(e, [](float a, float b) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); }));
  };
  t["Min"] = [](const EvalNode& e) {
    return outputs(variadic(e, [](float a, float b) { return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b); }));
  };
  t["Sum"] = [](const EvalNode& e) { return outputs(variadic(e, [](float a, float b) { return a + b; })); };
  t["Mean"] = [](const EvalNode& e) {
    FloatTensor s = variadic(e, [](float a, float b) { return a + b; });
    const float n = static_cast<float>(e.inputs.size());
    for (auto& v : s.data) v /= n;
    return outputs(std::move(s));
  };
  t["Where"] = [](const EvalNode& e) { return outputs(where(e.as_ints(0), e.need(1), e.need(2))); };
}

}  // namespace

void add_elementwise_kernels(KernelTable& t) {
  add_unary(t);
  add_binary(t);
}

}  // namespace npu::compiler
