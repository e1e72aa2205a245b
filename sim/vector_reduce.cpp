// reduce and layernorm. Float sums accumulate in fp32 in element order (the same order for
// contiguous and strided reductions, so results do not depend on `inner`); results are
// rounded once to the element type.
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
using isa::ReduceFunction;

namespace {

using vec::load_f;
using vec::store_f;

struct ReduceShape {
  std::uint64_t outer, length, inner;
};

// For each outer index: acc[i] = first(x[0][i]), then acc[i] = step(acc[i], x[r][i]) for r in
// order; then finish(acc[i]) is written. The inner loop runs over i (contiguous), so strided
// reductions vectorise; dst may equal src (each outer block is read before it is written).
template <typename Acc, typename Load, typename First, typename Step, typename Finish>
void reduce_blocks(const ReduceShape& s, Load load, First first, Step step, Finish finish) {
  std::vector<Acc> acc(s.inner);
  for (std::uint64_t o = 0; o < s.outer; ++o) {
    const std::uint64_t base = o * s.length * s.inner;
    for (std::uint64_t i = 0; i < s.inner; ++i) acc[i] = first(load(base + i));
    for (std::uint64_t r = 1; r < s.length; ++r)
      for (std::uint64_t i = 0; i < s.inner; ++i) acc[i] = step(acc[i], load(base + r * s.inner + i));
    for (std::uint64_t i = 0; i < s.inner; ++i) finish(o * s.inner + i, acc[i]);
  }
}

// NaN wins (numpy max/min, ONNX ReduceMax/Min): once acc is NaN no comparison replaces it.
inline float max_nan(float acc, float x) { return x > acc || x != x ? x : acc; }
inline float min_nan(float acc, float x) { return x < acc || x != x ? x : acc; }

void reduce_float(const isa::Instruction& in, const ReduceShape& s, std::uint8_t* sram) {
  const DType t = static_cast<DType>(in.get(Field::dtype));
  const std::uint8_t* src = sram + in.get(Field::src_addr);
  std::uint8_t* dst = sram + in.get(Field::dst_addr);
  const auto load = [&](std::uint64_t i) { return load_f(src, t, i); };
  const auto identity = [](float x) { return x; };
  const auto put = [&](std::uint64_t i, float v) { store_f(dst, t, i, v); };
  const auto sum = [](float acc, float x) { return acc + x; };
  switch (static_cast<ReduceFunction>(in.get(Field::function))) {
    case ReduceFunction::Sum: return reduce_blocks<float>(s, load, identity, sum, put);
    case ReduceFunction::Mean: {
      const float n = static_cast<float>(s.length);
      return reduce_blocks<float>(s, load, identity, sum, [&](std::uint64_t i, float v) { put(i, v / n); });
    }
    case ReduceFunction::Max: return reduce_blocks<float>(s, load, identity, max_nan, put);
    case ReduceFunction::Min: return reduce_blocks<float>(s, load, identity, min_nan, put);
    case ReduceFunction::SumSquare:
      return reduce_blocks<float>(s, load, [](float x) { return x * x; },
                                  [](float acc, float x) { return acc + x * x; }, put);
  }
}

void reduce_int8(const isa::Instruction& in, const ReduceShape& s, std::uint8_t* sram) {
  const auto* src = vec::at<const std::int8_t>(sram, in.get(Field::src_addr));
  const std::uint64_t dst = in.get(Field::dst_addr);
  const auto load = [src](std::uint64_t i) { return static_cast<std::int32_t>(src[i]); };
  const auto identity = [](std::int32_t x) { return x; };
  const auto sum = [](std::int32_t acc, std::int32_t x) { return acc + x; };  // |sum| < 2^31: length < 2^24
  const auto put8 = [&](std::uint64_t i, std::int32_t v) { vec::at<std::int8_t>(sram, dst)[i] = static_cast<std::int8_t>(v); };
  switch (static_cast<ReduceFunction>(in.get(Field::function))) {
    case ReduceFunction::Sum:
      return reduce_blocks<std::int32_t>(s, load, identity, sum,
                                         [&](std::uint64_t i, std::int32_t v) { vec::at<std::int32_t>(sram, dst)[i] = v; });
    case ReduceFunction::Mean: {
      const auto n = static_cast<std::int64_t>(s.length);
      return reduce_blocks<std::int32_t>(s, load, identity, sum, [&](std::uint64_t i, std::int32_t v) {
        put8(i, static_cast<std::int32_t>(vec::divide_round_away(v, n)));
      });
    }
    case ReduceFunction::Max:
      return reduce_blocks<std::int32_t>(s, load, identity, [](std::int32_t a, std::int32_t x) { return std::max(a, x); }, put8);
    case ReduceFunction::Min:
      return reduce_blocks<std::int32_t>(s, load, identity, [](std::int32_t a, std::int32_t x) { return std::min(a, x); }, put8);
    case ReduceFunction::SumSquare: break;
  }
  throw SimError("reduce: sum_square needs a float dtype");  // plan_program rejects it first
}

}  // namespace

void execute_reduce(const isa::Instruction& in, std::uint8_t* sram) {
  const ReduceShape s{static_cast<std::uint64_t>(in.get(Field::outer)), static_cast<std::uint64_t>(in.get(Field::length)),
                      static_cast<std::uint64_t>(in.get(Field::inner))};
  if (static_cast<DType>(in.get(Field::dtype)) == DType::Int8) return reduce_int8(in, s, sram);
  reduce_float(in, s, sram);
}

// Per row: mean, then the variance of (x - mean), both in fp32 in column order; then
// y = (x - mean) * (1 / sqrt(var + epsilon)) * gamma[c] + beta[c], rounded once.
void execute_layernorm(const isa::Instruction& in, std::uint8_t* sram) {
  const DType t = static_cast<DType>(in.get(Field::dtype));
  const std::uint64_t rows = in.get(Field::rows), cols = in.get(Field::cols);
  const float eps = in.get_float(Field::epsilon);
  const std::uint8_t* src = sram + in.get(Field::src_addr);
  std::uint8_t* dst = sram + in.get(Field::dst_addr);
  const float* gamma = vec::at<const float>(sram, in.get(Field::param_addr));
  const float* beta = gamma + cols;
  const float n = static_cast<float>(cols);
  std::vector<float> x(cols);
  for (std::uint64_t r = 0; r < rows; ++r) {
    float sum = 0.0f;
    for (std::uint64_t c = 0; c < cols; ++c) sum += (x[c] = load_f(src, t, r * cols + c));
    const float mean = sum / n;
    float sq = 0.0f;
    for (std::uint64_t c = 0; c < cols; ++c) sq += (x[c] - mean) * (x[c] - mean);
    const float inv = 1.0f / std::sqrt(sq / n + eps);
    for (std::uint64_t c = 0; c < cols; ++c) store_f(dst, t, r * cols + c, (x[c] - mean) * inv * gamma[c] + beta[c]);
  }
}

}  // namespace npu::sim
