// IEEE-754 binary16 <-> binary32 conversion. float -> half rounds to nearest, ties to even,
// and keeps subnormals, infinities and NaN (NaN stays NaN: quiet bit forced, payload kept).
#pragma once
#include <cstdint>
#include <cstring>

namespace npu::sim::fp16 {

inline std::uint16_t from_float(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  const std::uint16_t sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u)  // inf or NaN
    return sign | (x > 0x7f800000u ? static_cast<std::uint16_t>(0x7e00u | ((x >> 13) & 0x3ffu)) : 0x7c00u);
  if (x >= 0x47800000u) return sign | 0x7c00u;  // >= 65536: overflows to inf
  if (x < 0x38800000u) {                         // below 2^-14: half subnormal (or zero)
    if (x < 0x33000000u) return sign;            // <= 2^-25 rounds to zero (2^-25 is a tie to even 0)
    const std::uint32_t e = x >> 23;
    const std::uint32_t m = (x & 0x7fffffu) | 0x800000u;
    const std::uint32_t s = 126 - e;  // value = m * 2^(e-150); in units of 2^-24: m >> (126-e)
    std::uint32_t q = m >> s;
    const std::uint32_t rem = m & ((1u << s) - 1), half = 1u << (s - 1);
    if (rem > half || (rem == half && (q & 1))) ++q;  // may carry into the smallest normal: correct
    return sign | static_cast<std::uint16_t>(q);
  }
  std::uint32_t q = ((((x >> 23) - 112) << 10) | ((x & 0x7fffffu) >> 13));
  const std::uint32_t rem = x & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (q & 1))) ++q;  // carry may reach exponent 31 = inf: correct
  return sign | static_cast<std::uint16_t>(q);
}

inline float to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  std::uint32_t bits;
  if (e == 0) {
    float v = static_cast<float>(m) * 5.9604644775390625e-8f;  // m * 2^-24, exact
    return sign ? -v : v;
  }
  if (e == 31)
    bits = sign | 0x7f800000u | (m << 13);
  else
    bits = sign | ((e + 112) << 23) | (m << 13);
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

}  // namespace npu::sim::fp16
