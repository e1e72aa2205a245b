// Floating-point activations and softmax: fp16 or fp32 elements, computed in fp32 and rounded
// once to the element type. The functions are the ActFunction table's (isa/ISA.md).
#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "sim/simulator.h"
#include "sim/vector_elements.h"
#include "sim/vector_unit.h"

namespace npu::sim {

using isa::ActFunction;
using isa::DType;
using isa::Field;

namespace {

using vec::load_f;
using vec::store_f;

// log(1 + e^x) without overflow for large x or loss for very negative x.
float softplus(float x) { return std::max(x, 0.0f) + std::log1p(std::exp(-std::fabs(x))); }

// One function over a whole array: the switch is outside the loop so each loop is simple.
template <typename F>
void apply(const std::uint8_t* src, std::uint8_t* dst, DType t, std::uint64_t count, F f) {
  if (t == DType::Fp32) {
    const auto* x = reinterpret_cast<const float*>(src);
    auto* y = reinterpret_cast<float*>(dst);
    for (std::uint64_t i = 0; i < count; ++i) y[i] = f(x[i]);
  } else {
    for (std::uint64_t i = 0; i < count; ++i) store_f(dst, t, i, f(load_f(src, t, i)));
  }
}

}  // namespace

void execute_activation(const isa::Instruction& in, std::uint8_t* sram) {
  const DType t = static_cast<DType>(in.get(Field::dtype));
  const std::uint64_t count = in.get(Field::count);
  const float alpha = in.get_float(Field::alpha), beta = in.get_float(Field::beta);
  const std::uint8_t* s = sram + in.get(Field::src_addr);
  std::uint8_t* d = sram + in.get(Field::dst_addr);
  constexpr float kInvSqrt2 = 0.70710678118654752f, kSqrt2OverPi = 0.79788456080286536f;
  switch (static_cast<ActFunction>(in.get(Field::function))) {
    case ActFunction::Sigmoid: return apply(s, d, t, count, [](float x) { return 1.0f / (1.0f + std::exp(-x)); });
    case ActFunction::Tanh: return apply(s, d, t, count, [](float x) { return std::tanh(x); });
    case ActFunction::HardSigmoid:
      return apply(s, d, t, count, [=](float x) { return std::max(0.0f, std::min(1.0f, alpha * x + beta)); });
    case ActFunction::HardSwish:
      // x + 3 is exact where the clamp matters, unlike x/6 + 1/2 (which cancels near -3).
      return apply(s, d, t, count, [](float x) { return x * std::max(0.0f, std::min(6.0f, x + 3.0f)) / 6.0f; });
    case ActFunction::Silu: return apply(s, d, t, count, [](float x) { return x / (1.0f + std::exp(-x)); });
    case ActFunction::Gelu:
      return apply(s, d, t, count, [=](float x) { return 0.5f * x * std::erfc(-x * kInvSqrt2); });
    case ActFunction::Exp: return apply(s, d, t, count, [](float x) { return std::exp(x); });
    case ActFunction::GeluTanh:
      return apply(s, d, t, count, [=](float x) {
        const float u = kSqrt2OverPi * (x + 0.044715f * x * x * x);
        return x / (1.0f + std::exp(-2.0f * u));
      });
    case ActFunction::Log: return apply(s, d, t, count, [](float x) { return std::log(x); });
    case ActFunction::Sqrt: return apply(s, d, t, count, [](float x) { return std::sqrt(x); });
    case ActFunction::Rsqrt: return apply(s, d, t, count, [](float x) { return 1.0f / std::sqrt(x); });
    case ActFunction::Reciprocal: return apply(s, d, t, count, [](float x) { return 1.0f / x; });
    case ActFunction::Erf: return apply(s, d, t, count, [](float x) { return std::erf(x); });
    case ActFunction::Mish: return apply(s, d, t, count, [](float x) { return x * std::tanh(softplus(x)); });
    case ActFunction::Abs: return apply(s, d, t, count, [](float x) { return std::fabs(x); });
    case ActFunction::Neg: return apply(s, d, t, count, [](float x) { return -x; });
    case ActFunction::Softplus: return apply(s, d, t, count, softplus);
    case ActFunction::LeakyRelu: return apply(s, d, t, count, [=](float x) { return x >= 0.0f ? x : alpha * x; });
    case ActFunction::Elu: return apply(s, d, t, count, [=](float x) { return x > 0.0f ? x : alpha * std::expm1(x); });
    case ActFunction::Relu: return apply(s, d, t, count, [](float x) { return x < 0.0f ? 0.0f : x; });
    case ActFunction::Selu:
      return apply(s, d, t, count, [=](float x) { return x > 0.0f ? beta * x : beta * (alpha * std::expm1(x)); });
    case ActFunction::Softsign: return apply(s, d, t, count, [](float x) { return x / (1.0f + std::fabs(x)); });
    case ActFunction::Sin: return apply(s, d, t, count, [](float x) { return std::sin(x); });
    case ActFunction::Cos: return apply(s, d, t, count, [](float x) { return std::cos(x); });
    case ActFunction::Floor: return apply(s, d, t, count, [](float x) { return std::floor(x); });
    case ActFunction::Ceil: return apply(s, d, t, count, [](float x) { return std::ceil(x); });
    case ActFunction::Round: return apply(s, d, t, count, [](float x) { return std::nearbyint(x); });
    case ActFunction::Sign:
      return apply(s, d, t, count, [](float x) { return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : x; });
    case ActFunction::Celu:
      return apply(s, d, t, count, [=](float x) {
        return std::max(0.0f, x) + std::min(0.0f, alpha * std::expm1(x / alpha));
      });
    case ActFunction::ThresholdedRelu: return apply(s, d, t, count, [=](float x) { return x > alpha ? x : 0.0f; });
    case ActFunction::Square: return apply(s, d, t, count, [](float x) { return x * x; });
  }
  // plan_program rejects values outside the enum; reaching here is a simulator bug.
  throw SimError(fmt::format("act function {} is not an ActFunction", in.get(Field::function)));
}

// Softmax along the middle axis of rows x cols x inner. Each of the rows*inner vectors is
// read into a buffer first, so dst == src (in place) is safe.
void execute_softmax(const isa::Instruction& in, std::uint8_t* sram) {
  const DType t = static_cast<DType>(in.get(Field::dtype));
  const std::uint64_t rows = in.get(Field::rows), cols = in.get(Field::cols), inner = in.get(Field::inner);
  const std::uint8_t* src = sram + in.get(Field::src_addr);
  std::uint8_t* dst = sram + in.get(Field::dst_addr);
  std::vector<float> e(cols);
  for (std::uint64_t r = 0; r < rows; ++r)
    for (std::uint64_t i = 0; i < inner; ++i) {
      const std::uint64_t base = r * cols * inner + i;
      float m = -INFINITY;
      for (std::uint64_t j = 0; j < cols; ++j) m = std::max(m, e[j] = load_f(src, t, base + j * inner));
      float sum = 0;
      for (std::uint64_t j = 0; j < cols; ++j) sum += (e[j] = std::exp(e[j] - m));
      for (std::uint64_t j = 0; j < cols; ++j) store_f(dst, t, base + j * inner, e[j] / sum);
    }
}

}  // namespace npu::sim
