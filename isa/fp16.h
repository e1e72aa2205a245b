// IEEE-754 binary16 conversions (round to nearest, ties to even; subnormals, infinities kept;
// NaN stays NaN). The one implementation in the project: the assembler, the compiler, the
// simulator and the runtime must round identically. Inline because the simulator's fp16
// kernels call it per element.
#pragma once
#include <cstdint>
#include <cstring>

namespace npu::isa {


inline std::uint16_t float_to_half(float value) {
  std::uint32_t x;
  std::memcpy(&x, &value, 4);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t exp = (x >> 23) & 0xFFu;
  std::uint32_t mant = x & 0x7FFFFFu;
  if (exp == 0xFF) return static_cast<std::uint16_t>(sign | 0x7C00u | (mant ? 0x200u | (mant >> 13) : 0u));
  const int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7C00u);  // overflow -> inf
  if (e <= 0) {                                                    // subnormal or zero
    if (e < -10) return static_cast<std::uint16_t>(sign);
    mant |= 0x800000u;
    const int shift = 14 - e;
    std::uint32_t h = mant >> shift;
    const std::uint32_t rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1u))) ++h;
    return static_cast<std::uint16_t>(sign | h);
  }
  std::uint32_t h = (static_cast<std::uint32_t>(e) << 10) | (mant >> 13);
  const std::uint32_t rem = mant & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // a carry rounds up into inf correctly
  return static_cast<std::uint16_t>(sign | h);
}

// A constant the compiler writes into an fp16 program: a finite value beyond fp16's range
// becomes the largest finite fp16 of its sign instead of infinity (float_to_half), so that
// exporters' masks of float32's lowest value (-3.4e38) stay finite and 0 * mask stays 0, not
// NaN; infinities and NaN stay what they are.
inline std::uint16_t float_to_half_saturating(float value) {
  if (value >= 65520.0f && value <= 3.4028235e38f) return 0x7BFFu;
  if (value <= -65520.0f && value >= -3.4028235e38f) return 0xFBFFu;
  return float_to_half(value);
}

inline float half_to_float(std::uint16_t bits) {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
  std::uint32_t exp = (bits >> 10) & 0x1Fu, mant = bits & 0x3FFu, x;
  if (exp == 0x1F) {
    x = sign | 0x7F800000u | (mant << 13);
  } else if (exp != 0) {
    x = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    x = sign;
  } else {  // subnormal: normalise
    int e = 113;
    while (!(mant & 0x400u)) {
      mant <<= 1;
      --e;
    }
    x = sign | (static_cast<std::uint32_t>(e) << 23) | ((mant & 0x3FFu) << 13);
  }
  float out;
  std::memcpy(&out, &x, 4);
  return out;
}


// The same as half_to_float(float_to_half(value)), faster where it matters (quantisation
// simulation rounds every value of an fp16 layer): a normal fp16 result is the float with its
// mantissa rounded to 10 bits, ties to even; the rest (subnormal, overflow, inf, NaN) takes the
// full path.
inline float round_to_half(float value) {
  std::uint32_t x;
  std::memcpy(&x, &value, 4);
  const std::uint32_t magnitude = x & 0x7FFFFFFFu;
  if (magnitude < 0x38800000u || magnitude >= 0x477FF000u)  // below 2^-14, or 65520 and up
    return half_to_float(float_to_half(value));
  x = (x + 0xFFFu + ((x >> 13) & 1u)) & ~0x1FFFu;
  std::memcpy(&value, &x, 4);
  return value;
}

}  // namespace npu::isa
