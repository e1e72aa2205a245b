// Float to int64 as ONNX Runtime's Cast truncates, but defined for every value: NaN is 0 and
// out-of-range values saturate (a file's constants may hold anything).
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>

namespace npu::compiler {

inline std::int64_t saturating_cast(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 9.2233720368547758e18) return std::numeric_limits<std::int64_t>::max();
  if (v <= -9.2233720368547758e18) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(v);
}

}  // namespace npu::compiler
