// Floating-point activations and softmax: fp16 or fp32 elements, computed in fp32.
//   0 sigmoid 1/(1+e^-x)      1 tanh                 2 hardsigmoid max(0, min(1, alpha*x+beta))
//   3 hardswish x*max(0, min(1, x/6 + 1/2)) (ONNX)   4 silu x*sigmoid(x)
//   5 gelu 0.5*x*(1+erf(x/sqrt 2)) (exact form)      6 exp
#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "sim/simulator.h"
#include "sim/vector_elements.h"
#include "sim/vector_unit.h"

namespace npu::sim {

using isa::DType;
using isa::Field;

namespace {

float load_f(const std::uint8_t* base, DType t, std::uint64_t i) {
  return t == DType::Fp16 ? isa::half_to_float(reinterpret_cast<const std::uint16_t*>(base)[i])
                          : reinterpret_cast<const float*>(base)[i];
}
void store_f(std::uint8_t* base, DType t, std::uint64_t i, float v) {
  if (t == DType::Fp16)
    reinterpret_cast<std::uint16_t*>(base)[i] = isa::float_to_half(v);
  else
    reinterpret_cast<float*>(base)[i] = v;
}

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

}  // namespace

void execute_activation(const isa::Instruction& in, std::uint8_t* sram) {
  const DType t = static_cast<DType>(in.get(Field::dtype));
  const std::uint64_t count = in.get(Field::count), fn = in.get(Field::function);
  const float alpha = in.get_float(Field::alpha), beta = in.get_float(Field::beta);
  const std::uint8_t* src = sram + in.get(Field::src_addr);
  std::uint8_t* dst = sram + in.get(Field::dst_addr);
  for (std::uint64_t i = 0; i < count; ++i) {
    const float x = load_f(src, t, i);
    float y = 0;
    switch (fn) {
      case 0: y = sigmoid(x); break;
      case 1: y = std::tanh(x); break;
      case 2: y = std::max(0.0f, std::min(1.0f, alpha * x + beta)); break;
      case 3: y = x * std::max(0.0f, std::min(1.0f, x / 6.0f + 0.5f)); break;
      case 4: y = x * sigmoid(x); break;
      case 5: y = 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f)); break;
      case 6: y = std::exp(x); break;
      default: throw SimError(fmt::format("act function {} is unknown (0..6)", fn));
    }
    store_f(dst, t, i, y);
  }
}

void execute_softmax(const isa::Instruction& in, std::uint8_t* sram) {
  const DType t = static_cast<DType>(in.get(Field::dtype));
  const std::uint64_t rows = in.get(Field::rows), cols = in.get(Field::cols);
  const std::uint8_t* src = sram + in.get(Field::src_addr);
  std::uint8_t* dst = sram + in.get(Field::dst_addr);
  std::vector<float> e(cols);
  for (std::uint64_t r = 0; r < rows; ++r) {
    const std::uint64_t base = r * cols;
    float m = -INFINITY;
    for (std::uint64_t j = 0; j < cols; ++j) m = std::max(m, load_f(src, t, base + j));
    float sum = 0;
    for (std::uint64_t j = 0; j < cols; ++j) sum += (e[j] = std::exp(load_f(src, t, base + j) - m));
    for (std::uint64_t j = 0; j < cols; ++j) store_f(dst, t, base + j, e[j] / sum);
  }
}

}  // namespace npu::sim
