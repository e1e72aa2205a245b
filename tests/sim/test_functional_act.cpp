// act: every ActFunction on real fp32 and fp16 bytes against double-precision references,
// with the error bound isa/ISA.md states (fp32 before the final rounding; fp16 = the fp32
// result rounded once, so within 1e-3 relative of fp32 math).
#include <cmath>
#include <functional>

#include "isa/fp16.h"
#include "tests/sim/functional_harness.h"

using namespace simtest;
namespace isa = npu::isa;
using isa::ActFunction;

namespace {

constexpr double kAlpha = 0.75, kBeta = 1.25;  // exact in fp32

double reference(ActFunction f, double x) {
  const double a = kAlpha, b = kBeta;
  switch (f) {
    case ActFunction::Sigmoid: return 1.0 / (1.0 + std::exp(-x));
    case ActFunction::Tanh: return std::tanh(x);
    case ActFunction::HardSigmoid: return std::max(0.0, std::min(1.0, a * x + b));
    case ActFunction::HardSwish: return x * std::max(0.0, std::min(1.0, x / 6 + 0.5));
    case ActFunction::Silu: return x / (1.0 + std::exp(-x));
    case ActFunction::Gelu: return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
    case ActFunction::Exp: return std::exp(x);
    case ActFunction::GeluTanh: return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
    case ActFunction::Log: return std::log(x);
    case ActFunction::Sqrt: return std::sqrt(x);
    case ActFunction::Rsqrt: return 1.0 / std::sqrt(x);
    case ActFunction::Reciprocal: return 1.0 / x;
    case ActFunction::Erf: return std::erf(x);
    case ActFunction::Mish: return x * std::tanh(std::log1p(std::exp(x)));
    case ActFunction::Abs: return std::fabs(x);
    case ActFunction::Neg: return -x;
    case ActFunction::Softplus: return std::log1p(std::exp(x));
    case ActFunction::LeakyRelu: return x >= 0 ? x : a * x;
    case ActFunction::Elu: return x > 0 ? x : a * std::expm1(x);
    case ActFunction::Relu: return std::max(0.0, x);
    case ActFunction::Selu: return x > 0 ? b * x : b * a * std::expm1(x);
    case ActFunction::Softsign: return x / (1 + std::fabs(x));
    case ActFunction::Sin: return std::sin(x);
    case ActFunction::Cos: return std::cos(x);
    case ActFunction::Floor: return std::floor(x);
    case ActFunction::Ceil: return std::ceil(x);
    case ActFunction::Round: return std::nearbyint(x);
    case ActFunction::Sign: return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0;
    case ActFunction::Celu: return std::max(0.0, x) + std::min(0.0, a * std::expm1(x / a));
    case ActFunction::ThresholdedRelu: return x > a ? x : 0.0;
    case ActFunction::Square: return x * x;
  }
  return 0;
}

// Inputs: a 1/64 grid over [-8, 8] (integers and halves included: floor/round ties), the
// domain edges and a few large values.
std::vector<float> inputs() {
  std::vector<float> x;
  for (int i = -512; i <= 512; ++i) x.push_back(static_cast<float>(i) / 64.0f);
  for (float v : {-0.0f, 1e-7f, -1e-7f, 1e-30f, 20.0f, -20.0f, 30.0f, -30.0f, 80.0f, -80.0f, 0.1f, 3.14159265f})
    x.push_back(v);
  return x;
}

}  // namespace

TEST_CASE("act: every function within the documented error of double precision", "[functional][vector][act]") {
  const std::vector<float> x = inputs();
  const std::uint64_t n = x.size(), bytes = (n * 4 + 63) / 64 * 64;
  std::vector<std::uint16_t> xh;
  for (float v : x) xh.push_back(isa::float_to_half(v));
  const int count = isa::enum_count<ActFunction>();
  Harness h;
  h.put(0, x);
  h.put(bytes, xh);
  const std::uint64_t out32 = 2 * bytes, out16 = out32 + count * bytes;
  for (int f = 0; f < count; ++f)
    for (int half = 0; half < 2; ++half) {
      auto i = make(Opcode::Activation);
      i.set(Field::dtype, half ? 2 : 3);
      i.set(Field::function, f);
      i.set(Field::src_addr, half ? bytes : 0);
      i.set(Field::dst_addr, (half ? out16 : out32) + f * bytes);
      i.set(Field::count, n);
      i.set_float(Field::alpha, static_cast<float>(kAlpha));
      i.set_float(Field::beta, static_cast<float>(kBeta));
      h.op(i);
    }
  h.get(out32, 2 * count * bytes);
  const auto r = h.run();
  std::uint64_t cycles = 0;
  for (int f = 0; f < count; ++f) {
    const auto fn = static_cast<ActFunction>(f);
    CAPTURE(isa::enum_name(fn));
    const auto y = h.read<float>(out32 + f * bytes, n);
    const auto yh = h.read<std::uint16_t>(out16 + f * bytes, n);
    for (std::uint64_t k = 0; k < n; ++k) {
      CAPTURE(x[k]);
      const double want = reference(fn, x[k]);
      if (std::isnan(want)) {
        CHECK(std::isnan(y[k]));
      } else if (std::isinf(want)) {
        CHECK(y[k] == static_cast<float>(want));
      } else {
        // fp32: 2^-20 relative, or 2^-30 absolute where the result is that close to 0.
        CHECK(std::fabs(y[k] - want) <= std::ldexp(std::fabs(want), -20) + std::ldexp(1.0, -30));
      }
      // fp16: from the fp16 input, computed in fp32, rounded once: within 1e-3 relative.
      const double want_h = reference(fn, isa::half_to_float(xh[k]));
      const float got_h = isa::half_to_float(yh[k]);
      if (std::isnan(want_h)) CHECK(std::isnan(got_h));
      else if (std::fabs(want_h) > 65504.0) CHECK(std::isinf(got_h));
      else CHECK(std::fabs(got_h - want_h) <= 1e-3 * std::fabs(want_h) + std::ldexp(1.0, -24));
    }
    cycles += 2 * (4 + isa::enum_passes(isa::EnumType::ActFunction, f) * ((n + 15) / 16));
  }
  // Each function twice (fp32, fp16): 4 + passes * ceil(n / 16).
  CHECK(r.vector.busy_cycles == cycles);
}
