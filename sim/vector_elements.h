// Element access and conversions shared by the vector-unit files.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "isa/fp16.h"
#include "isa/instruction_set.h"

namespace npu::sim::vec {

template <typename T>
inline T* at(std::uint8_t* sram, std::uint64_t addr) {
  return reinterpret_cast<T*>(sram + addr);
}

inline std::int8_t sat8(std::int64_t v) {
  return static_cast<std::int8_t>(v < -128 ? -128 : v > 127 ? 127 : v);
}
inline std::int32_t sat32(std::int64_t v) {
  constexpr std::int64_t lo = std::numeric_limits<std::int32_t>::min(), hi = std::numeric_limits<std::int32_t>::max();
  return static_cast<std::int32_t>(v < lo ? lo : v > hi ? hi : v);
}

// The requant rule (requant and drain): ((x * multiplier + round) >> shift) + zero_point, clamped.
inline std::int8_t requantize_one(std::int64_t x, std::int64_t multiplier, int shift, std::int64_t zero_point,
                                  std::int64_t lo, std::int64_t hi) {
  const std::int64_t round = shift ? std::int64_t{1} << (shift - 1) : 0;
  const std::int64_t v = ((x * multiplier + round) >> shift) + zero_point;
  return static_cast<std::int8_t>(v < lo ? lo : v > hi ? hi : v);
}

// sum / n rounded half away from zero (int8/int32 average pooling and int8 mean), n > 0.
inline std::int64_t divide_round_away(std::int64_t sum, std::int64_t n) {
  return sum >= 0 ? (sum + n / 2) / n : -((-sum + n / 2) / n);
}

// Float -> integer: NaN -> 0, round half to even, saturate.
inline std::int64_t round_saturate(double v, double lo, double hi) {
  if (std::isnan(v)) return 0;
  if (v <= lo) return static_cast<std::int64_t>(lo);
  if (v >= hi) return static_cast<std::int64_t>(hi);
  return static_cast<std::int64_t>(std::nearbyint(v));  // default rounding mode: half to even
}

// Every element type read exactly as a double (int8, int32, fp16 and fp32 all fit).
inline double load(const std::uint8_t* base, isa::DType t, std::uint64_t i) {
  switch (t) {
    case isa::DType::Int8: return reinterpret_cast<const std::int8_t*>(base)[i];
    case isa::DType::Int32: return reinterpret_cast<const std::int32_t*>(base)[i];
    case isa::DType::Fp16: return isa::half_to_float(reinterpret_cast<const std::uint16_t*>(base)[i]);
    case isa::DType::Fp32: return reinterpret_cast<const float*>(base)[i];
  }
  return 0;
}

// Stores with the ISA's conversion rules. Integers: round half to even and saturate; fp16:
// via fp32 (exact for every value that does not overflow fp16 anyway).
inline void store(std::uint8_t* base, isa::DType t, std::uint64_t i, double v) {
  switch (t) {
    case isa::DType::Int8:
      reinterpret_cast<std::int8_t*>(base)[i] = static_cast<std::int8_t>(round_saturate(v, -128, 127));
      break;
    case isa::DType::Int32:
      reinterpret_cast<std::int32_t*>(base)[i] =
          static_cast<std::int32_t>(round_saturate(v, -2147483648.0, 2147483647.0));
      break;
    case isa::DType::Fp16:
      reinterpret_cast<std::uint16_t*>(base)[i] = isa::float_to_half(static_cast<float>(v));
      break;
    case isa::DType::Fp32: reinterpret_cast<float*>(base)[i] = static_cast<float>(v); break;
  }
}

// Float element types only (fp16 or fp32), in float: the float kernels' fast path.
inline float load_f(const std::uint8_t* base, isa::DType t, std::uint64_t i) {
  return t == isa::DType::Fp16 ? isa::half_to_float(reinterpret_cast<const std::uint16_t*>(base)[i])
                               : reinterpret_cast<const float*>(base)[i];
}
inline void store_f(std::uint8_t* base, isa::DType t, std::uint64_t i, float v) {
  if (t == isa::DType::Fp16)
    reinterpret_cast<std::uint16_t*>(base)[i] = isa::float_to_half(v);
  else
    reinterpret_cast<float*>(base)[i] = v;
}

}  // namespace npu::sim::vec
