// The vector unit's element-wise instructions (timing: costmodel/vector_cost.h).
#include "sim/vector_unit.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "costmodel/vector_cost.h"
#include "sim/simulator.h"
#include "sim/vector_elements.h"

namespace npu::sim {

using isa::DType;
using isa::Field;
using isa::Opcode;
using vec::at;

namespace {

DType dtype_of(const isa::Instruction& in, Field f) { return static_cast<DType>(in.get(f)); }

void bias_add(const isa::Instruction& in, std::uint8_t* sram) {
  const std::uint64_t count = in.get(Field::count), channels = in.get(Field::channels);
  const std::uint64_t dst = in.get(Field::dst_addr), src = in.get(Field::src_addr), par = in.get(Field::param_addr);
  if (dtype_of(in, Field::dtype) == DType::Int32) {
    const auto* x = at<const std::int32_t>(sram, src);
    const auto* p = at<const std::int32_t>(sram, par);
    auto* y = at<std::int32_t>(sram, dst);
    for (std::uint64_t row = 0; row < count; row += channels)  // rows of `channels`: no modulo
      for (std::uint64_t c = 0, n = std::min(channels, count - row); c < n; ++c)
        y[row + c] = vec::sat32(static_cast<std::int64_t>(x[row + c]) + p[c]);
  } else {
    const auto* x = at<const float>(sram, src);
    const auto* p = at<const float>(sram, par);
    auto* y = at<float>(sram, dst);
    for (std::uint64_t row = 0; row < count; row += channels)
      for (std::uint64_t c = 0, n = std::min(channels, count - row); c < n; ++c) y[row + c] = x[row + c] + p[c];
  }
}

struct RequantParam {
  std::int32_t multiplier;
  int shift;
};

// The per-channel {multiplier, shift} pairs, copied out before any output is written: an
// output that overlaps them (a bad program) must not change the shifts the loop uses.
std::vector<RequantParam> read_requant_params(const std::int32_t* p, std::uint64_t channels) {
  std::vector<RequantParam> params(channels);
  for (std::uint64_t c = 0; c < channels; ++c) {
    if (p[2 * c + 1] < 0 || p[2 * c + 1] > 62)
      throw SimError(fmt::format("requant parameter of channel {} has shift {} (must be 0..62)", c, p[2 * c + 1]));
    params[c] = {p[2 * c], static_cast<int>(p[2 * c + 1])};
  }
  return params;
}

void requantize(const isa::Instruction& in, std::uint8_t* sram) {
  const std::uint64_t count = in.get(Field::count), channels = in.get(Field::channels);
  const auto* x = at<const std::int32_t>(sram, in.get(Field::src_addr));
  const auto* p = at<const std::int32_t>(sram, in.get(Field::param_addr));  // {multiplier, shift} per channel
  auto* y = at<std::int8_t>(sram, in.get(Field::dst_addr));
  const std::int64_t zp = in.get(Field::zero_point), lo = in.get(Field::clamp_min), hi = in.get(Field::clamp_max);
  const std::vector<RequantParam> params = read_requant_params(p, channels);
  // Reads x[i] before writing y[i] in order, so dst == src (in place) is safe.
  for (std::uint64_t row = 0; row < count; row += channels)  // rows of `channels`: no modulo
    for (std::uint64_t c = 0, n = std::min(channels, count - row); c < n; ++c)
      y[row + c] = vec::requantize_one(x[row + c], params[c].multiplier, params[c].shift, zp, lo, hi);
}

bool overlaps(std::uint64_t a, std::uint64_t an, std::uint64_t b, std::uint64_t bn) {
  return a < b + bn && b < a + an;
}

void cast(const isa::Instruction& in, std::uint8_t* sram) {
  const DType st = dtype_of(in, Field::src_dtype), dt = dtype_of(in, Field::dst_dtype);
  const std::uint64_t count = in.get(Field::count);
  const std::uint64_t src = in.get(Field::src_addr), dst = in.get(Field::dst_addr);
  const std::uint64_t sbytes = count * isa::dtype_bytes(st), dbytes = count * isa::dtype_bytes(dt);
  std::vector<std::uint8_t> copy;
  const std::uint8_t* s = sram + src;
  if (src != dst && overlaps(src, sbytes, dst, dbytes)) {  // partially overlapping: read a snapshot
    copy.assign(s, s + sbytes);
    s = copy.data();
  }
  for (std::uint64_t i = 0; i < count; ++i) vec::store(sram + dst, dt, i, vec::load(s, st, i));
}

void clip(const isa::Instruction& in, std::uint8_t* sram) {
  const DType t = dtype_of(in, Field::dtype);
  const std::uint64_t count = in.get(Field::count);
  const double lo = in.get_float(Field::lo), hi = in.get_float(Field::hi);
  const std::uint8_t* s = sram + in.get(Field::src_addr);
  std::uint8_t* d = sram + in.get(Field::dst_addr);
  for (std::uint64_t i = 0; i < count; ++i) {
    double v = vec::load(s, t, i);
    if (v < lo) v = lo;  // NaN compares false both ways and passes through
    if (v > hi) v = hi;
    vec::store(d, t, i, v);
  }
}

template <typename T, typename Op>
void eltwise(std::uint8_t* sram, std::uint64_t dst, std::uint64_t a, std::uint64_t b, std::uint64_t count, Op op) {
  const T* x = at<const T>(sram, a);
  const T* y = at<const T>(sram, b);
  T* z = at<T>(sram, dst);
  for (std::uint64_t i = 0; i < count; ++i) z[i] = op(x[i], y[i]);
}

void add_or_mul(const isa::Instruction& in, std::uint8_t* sram, bool mul) {
  const std::uint64_t count = in.get(Field::count);
  const std::uint64_t d = in.get(Field::dst_addr), a = in.get(Field::a_addr), b = in.get(Field::b_addr);
  switch (dtype_of(in, Field::dtype)) {
    case DType::Int8:
      eltwise<std::int8_t>(sram, d, a, b, count, [mul](std::int8_t x, std::int8_t y) {
        return vec::sat8(mul ? std::int64_t{x} * y : std::int64_t{x} + y);
      });
      break;
    case DType::Int32:
      eltwise<std::int32_t>(sram, d, a, b, count, [mul](std::int32_t x, std::int32_t y) {
        return vec::sat32(mul ? std::int64_t{x} * y : std::int64_t{x} + y);
      });
      break;
    case DType::Fp16:
      eltwise<std::uint16_t>(sram, d, a, b, count, [mul](std::uint16_t x, std::uint16_t y) {
        const float fx = isa::half_to_float(x), fy = isa::half_to_float(y);
        return isa::float_to_half(mul ? fx * fy : fx + fy);
      });
      break;
    case DType::Fp32:
      eltwise<float>(sram, d, a, b, count, [mul](float x, float y) { return mul ? x * y : x + y; });
      break;
  }
}

void quantized_add(const isa::Instruction& in, std::uint8_t* sram) {
  const std::uint64_t count = in.get(Field::count);
  const std::int64_t azp = in.get(Field::a_zero_point), bzp = in.get(Field::b_zero_point);
  const std::int64_t am = in.get(Field::a_multiplier), bm = in.get(Field::b_multiplier);
  const int shift = static_cast<int>(in.get(Field::shift));
  const std::int64_t zp = in.get(Field::zero_point), lo = in.get(Field::clamp_min), hi = in.get(Field::clamp_max);
  const std::int64_t round = shift ? std::int64_t{1} << (shift - 1) : 0;
  const auto* a = at<const std::int8_t>(sram, in.get(Field::a_addr));
  const auto* b = at<const std::int8_t>(sram, in.get(Field::b_addr));
  auto* y = at<std::int8_t>(sram, in.get(Field::dst_addr));
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::int64_t v = (((a[i] - azp) * am + (b[i] - bzp) * bm + round) >> shift) + zp;
    y[i] = static_cast<std::int8_t>(std::clamp(v, lo, hi));
  }
}

void lookup(const isa::Instruction& in, std::uint8_t* sram) {
  const std::uint64_t count = in.get(Field::count);
  std::int8_t table[256];
  std::memcpy(table, sram + in.get(Field::table_addr), 256);  // the table may overlap dst
  const auto* x = at<const std::uint8_t>(sram, in.get(Field::src_addr));
  auto* y = at<std::int8_t>(sram, in.get(Field::dst_addr));
  for (std::uint64_t i = 0; i < count; ++i) y[i] = table[x[i]];
}

}  // namespace

void execute_drain(const isa::Instruction& in, std::uint8_t* sram) {
  const std::uint64_t count = in.get(Field::count), channels = in.get(Field::channels);
  const auto* x = at<const std::int32_t>(sram, in.get(Field::src_addr));
  const auto* bias = at<const std::int32_t>(sram, in.get(Field::param_addr));
  const auto* p = at<const std::int32_t>(sram, in.get(Field::requant_addr));  // {multiplier, shift} per channel
  auto* y = at<std::int8_t>(sram, in.get(Field::dst_addr));
  const std::int64_t zp = in.get(Field::zero_point), lo = in.get(Field::clamp_min), hi = in.get(Field::clamp_max);
  const std::vector<RequantParam> params = read_requant_params(p, channels);
  for (std::uint64_t row = 0; row < count; row += channels)
    for (std::uint64_t c = 0, n = std::min(channels, count - row); c < n; ++c)
      y[row + c] = vec::requantize_one(vec::sat32(static_cast<std::int64_t>(x[row + c]) + bias[c]), params[c].multiplier,
                                       params[c].shift, zp, lo, hi);
}

void execute_vector(const isa::Instruction& in, std::uint8_t* sram) {
  switch (in.opcode) {
    case Opcode::BiasAdd: return bias_add(in, sram);
    case Opcode::Requantize: return requantize(in, sram);
    case Opcode::Cast: return cast(in, sram);
    case Opcode::Clip: return clip(in, sram);
    case Opcode::Add: return add_or_mul(in, sram, false);
    case Opcode::Mul: return add_or_mul(in, sram, true);
    case Opcode::QuantizedAdd: return quantized_add(in, sram);
    case Opcode::Pool: return execute_pool(in, sram);
    case Opcode::Lut: return lookup(in, sram);
    case Opcode::Activation: return execute_activation(in, sram);
    case Opcode::Softmax: return execute_softmax(in, sram);
    case Opcode::Binary: return execute_binary(in, sram);
    case Opcode::QuantizedBinary: return execute_quantized_binary(in, sram);
    case Opcode::Reduce: return execute_reduce(in, sram);
    case Opcode::LayerNorm: return execute_layernorm(in, sram);
    case Opcode::Transpose: return execute_transpose(in, sram);
    case Opcode::Copy: return execute_copy(in, sram);
    case Opcode::Fill: return execute_fill(in, sram);
    case Opcode::Quantize: return execute_quantize(in, sram);
    case Opcode::Dequantize: return execute_dequantize(in, sram);
    default: break;
  }
}

}  // namespace npu::sim
