// The integer arithmetic of the INT8 instructions, exactly as isa/instruction_set.def defines
// it, plus the parameter choices (multiplier/shift, zero points, tables). Codegen and the
// compiler's integer reference both use these, so the simulated NPU and the reference agree
// bit for bit.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace npu::compiler {

struct FixedPoint {
  std::int32_t multiplier = 0;  // real ~= multiplier * 2^-shift
  std::int32_t shift = 0;
};

// multiplier in [2^30, 2^31) when possible; shift limited to 0..62 (the requant/qadd fields).
inline FixedPoint to_fixed_point(double real) {
  FixedPoint f;
  if (real <= 0.0) return f;
  int exp = 0;
  double mant = std::frexp(real, &exp);  // real = mant * 2^exp, mant in [0.5, 1)
  std::int64_t m = std::llround(mant * (1ll << 31));
  if (m == (1ll << 31)) {
    m /= 2;
    ++exp;
  }
  int shift = 31 - exp;
  while (shift > 62) {
    m >>= 1;
    --shift;
  }
  while (shift < 0) {  // real >= 2^31: saturate (never happens for sane scales)
    m = (1ll << 31) - 1;
    shift = 0;
  }
  f.multiplier = static_cast<std::int32_t>(std::min<std::int64_t>(m, (1ll << 31) - 1));
  f.shift = shift;
  return f;
}

inline std::int8_t clamp_int8(std::int64_t v, std::int32_t lo, std::int32_t hi) {
  return static_cast<std::int8_t>(std::min<std::int64_t>(std::max<std::int64_t>(v, lo), hi));
}

// requant: y = ((int64)x*multiplier + (shift ? 1<<(shift-1) : 0)) >> shift, then clamp(y + zp).
inline std::int8_t requantize(std::int32_t acc, FixedPoint f, std::int32_t zero_point,
                              std::int32_t clamp_min, std::int32_t clamp_max) {
  std::int64_t y = static_cast<std::int64_t>(acc) * f.multiplier;
  if (f.shift) y += std::int64_t{1} << (f.shift - 1);
  y >>= f.shift;
  return clamp_int8(y + zero_point, clamp_min, clamp_max);
}

struct QaddParams {
  std::int32_t a_zero_point = 0, b_zero_point = 0, zero_point = 0;
  std::int32_t a_multiplier = 0, b_multiplier = 0;
  std::int32_t shift = 0;
  std::int32_t clamp_min = -128, clamp_max = 127;
};

// One shift for both inputs: the larger scale ratio gets a multiplier just below 2^31... kept
// below 2^30 so that the int64 sum of two products cannot overflow.
// The ratio a two-input instruction's shift is chosen for: the larger of the two that its
// multiplier field holds. A ratio beyond the field (a mask of float32's lowest added to scores)
// saturates at any shift; choosing the shift for it would round the other input's multiplier
// to 0 and drop that input (every score of an attention row alike: a uniform softmax).
inline double fitting_ratio(double ra, double rb, double field) {
  double fit = 0;
  for (double r : {ra, rb})
    if (r < field) fit = std::max(fit, r);
  return fit > 0 ? fit : std::max(ra, rb);
}

// With an input beyond the field its multiplier is the field's largest, `most`: the shift is
// lowered until one step of that input outweighs the whole output range and everything the other
// input adds (255 steps of `fit`), so the fill saturates the output.
inline int saturating_shift(int shift, double ra, double rb, double fit, double most) {
  if (std::max(ra, rb) * std::ldexp(1.0, shift) <= most) return shift;
  while (shift > 0 && std::ldexp(most, -shift) < 256.0 + 255.0 * fit) --shift;
  return shift;
}

inline QaddParams make_qadd(double a_scale, std::int32_t a_zp, double b_scale, std::int32_t b_zp,
                            double out_scale, std::int32_t out_zp) {
  QaddParams p;
  p.a_zero_point = a_zp;
  p.b_zero_point = b_zp;
  p.zero_point = out_zp;
  const double ra = a_scale / out_scale, rb = b_scale / out_scale;
  const double big = fitting_ratio(ra, rb, static_cast<double>(1 << 30));
  int shift = 0;
  while (shift < 62 && big * std::ldexp(1.0, shift + 1) < static_cast<double>(1 << 30)) ++shift;
  shift = saturating_shift(shift, ra, rb, big, static_cast<double>(std::numeric_limits<std::int32_t>::max()));
  p.shift = shift;
  // A ratio beyond the field (a mask of -3.4e38 added to scores of a few units) saturates: any
  // step of that input away from its zero point then saturates the output, as the real sum does.
  // (llround of a value beyond long long is undefined.)
  const double most = static_cast<double>(std::numeric_limits<std::int32_t>::max());
  p.a_multiplier = static_cast<std::int32_t>(std::llround(std::min(std::ldexp(ra, shift), most)));
  p.b_multiplier = static_cast<std::int32_t>(std::llround(std::min(std::ldexp(rb, shift), most)));
  return p;
}

inline std::int8_t quantized_add(std::int8_t a, std::int8_t b, const QaddParams& p) {
  std::int64_t y = static_cast<std::int64_t>(a - p.a_zero_point) * p.a_multiplier +
                   static_cast<std::int64_t>(b - p.b_zero_point) * p.b_multiplier;
  if (p.shift) y += std::int64_t{1} << (p.shift - 1);
  y >>= p.shift;
  return clamp_int8(y + p.zero_point, p.clamp_min, p.clamp_max);
}

// qbinary (isa/instruction_set.def): 16-bit multipliers. add/sub/max/min bring both inputs to a
// common fixed-point domain, y = (op((a-za)*ma, (b-zb)*mb) + round) >> shift + zp; mul is
// y = ((a-za)*(b-zb)*ma + round) >> shift + zp.
struct QBinaryParams {
  int function = 0;  // isa::QuantizedBinaryFunction
  std::int32_t a_zero_point = 0, b_zero_point = 0, zero_point = 0;
  std::int32_t a_multiplier = 0, b_multiplier = 0;
  std::int32_t shift = 0;
  std::int32_t clamp_min = -128, clamp_max = 127;
};

constexpr std::int32_t kQBinaryMultiplierMax = 32767;  // isa: a_multiplier/b_multiplier, S 16 bits

inline QBinaryParams make_qbinary(int function, bool is_mul, double a_scale, std::int32_t a_zp, double b_scale,
                                  std::int32_t b_zp, double out_scale, std::int32_t out_zp) {
  QBinaryParams p;
  p.function = function;
  p.a_zero_point = a_zp;
  p.b_zero_point = b_zp;
  p.zero_point = out_zp;
  const double ra = is_mul ? a_scale * b_scale / out_scale : a_scale / out_scale;
  const double rb = is_mul ? 0.0 : b_scale / out_scale;
  const double big = fitting_ratio(ra, rb, kQBinaryMultiplierMax);
  int shift = 0;
  while (shift < 62 && big * std::ldexp(1.0, shift + 1) <= kQBinaryMultiplierMax) ++shift;
  shift = saturating_shift(shift, ra, rb, big, kQBinaryMultiplierMax);
  p.shift = shift;
  // Clamped before rounding: a ratio beyond the field saturates (and llround of a value beyond
  // long long is undefined).
  const double most = kQBinaryMultiplierMax;
  p.a_multiplier = static_cast<std::int32_t>(std::llround(std::min(std::ldexp(ra, shift), most)));
  p.b_multiplier = static_cast<std::int32_t>(std::llround(std::min(std::ldexp(rb, shift), most)));
  return p;
}

// The qbinary instruction on one element pair; function codes as isa::QuantizedBinaryFunction
// (0 add, 1 sub, 2 mul, 3 max, 4 min).
inline std::int8_t quantized_binary(std::int8_t a, std::int8_t b, const QBinaryParams& p) {
  const std::int64_t da = a - p.a_zero_point, db = b - p.b_zero_point;
  const std::int64_t va = da * p.a_multiplier, vb = db * p.b_multiplier;
  std::int64_t v = 0;
  switch (p.function) {
    case 0: v = va + vb; break;
    case 1: v = va - vb; break;
    case 2: v = da * db * p.a_multiplier; break;
    case 3: v = std::max(va, vb); break;
    default: v = std::min(va, vb); break;
  }
  if (p.shift) v += std::int64_t{1} << (p.shift - 1);
  v >>= p.shift;
  return clamp_int8(v + p.zero_point, p.clamp_min, p.clamp_max);
}

// real -> int8 on (scale, zero_point), round half to even like the cast instruction.
inline std::int8_t quantize_value(float real, float scale, std::int32_t zero_point) {
  double q = std::nearbyint(static_cast<double>(real) / scale) + zero_point;
  return static_cast<std::int8_t>(std::min(127.0, std::max(-128.0, q)));
}
inline float dequantize_value(std::int8_t q, float scale, std::int32_t zero_point) {
  return scale * static_cast<float>(q - zero_point);
}

// A 256-entry table indexed by (uint8)q: table[(uint8)q] = quantize(f(dequantize(q))).
template <typename F>
std::vector<std::int8_t> make_lut(F f, float in_scale, std::int32_t in_zp, float out_scale,
                                  std::int32_t out_zp) {
  std::vector<std::int8_t> table(256);
  for (int q = -128; q < 128; ++q)
    table[static_cast<std::uint8_t>(q)] =
        quantize_value(f(dequantize_value(static_cast<std::int8_t>(q), in_scale, in_zp)), out_scale, out_zp);
  return table;
}

// ONNX's DequantizeLinear -> QuantizeLinear from one int8 grid to another as ONNX Runtime
// computes it, as a table: (q - z1) * s1 and the quotient by s2 in float32, rounded half to even,
// + z2, saturated. (quantize_value divides in double: a quotient within float rounding of a
// half, as s2 = 2 * s1 makes every odd step, may round the other way.)
inline std::vector<std::int8_t> requantization_table(float in_scale, std::int32_t in_zp, float out_scale,
                                                     std::int32_t out_zp) {
  std::vector<std::int8_t> table(256);
  for (int q = -128; q < 128; ++q) {
    const float quotient = dequantize_value(static_cast<std::int8_t>(q), in_scale, in_zp) / out_scale;
    table[static_cast<std::uint8_t>(q)] =
        static_cast<std::int8_t>(std::clamp(static_cast<double>(std::nearbyint(quotient)) + out_zp, -128.0, 127.0));
  }
  return table;
}

// Average pooling of int8: sum / count rounded half away from zero.
inline std::int8_t average_int8(std::int64_t sum, std::int64_t count) {
  std::int64_t a = std::llabs(sum), q = (2 * a + count) / (2 * count);
  return clamp_int8(sum < 0 ? -q : q, -128, 127);
}

}  // namespace npu::compiler
