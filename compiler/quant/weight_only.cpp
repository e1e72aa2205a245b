#include "compiler/quant/weight_only.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "isa/fp16.h"

namespace npu::compiler {

WeightOnlyWeights quantize_weight_only(const std::vector<float>& w, std::int64_t k, std::int64_t n,
                                  const cost::WeightStorage& storage) {
  WeightOnlyWeights q;
  q.k = k;
  q.n = n;
  q.group_rows = static_cast<std::int64_t>(storage.group_rows(static_cast<std::uint64_t>(k)));
  const bool int4 = storage.format == isa::WeightFormat::Int4;
  const double qmax = int4 ? 7.0 : 127.0, qmin = int4 ? -8.0 : -128.0;
  const std::int64_t groups = (k + q.group_rows - 1) / q.group_rows;
  q.values.assign(static_cast<std::size_t>(k * n), 0);
  q.scales.assign(static_cast<std::size_t>(groups * n), 0);
  for (std::int64_t g = 0; g < groups; ++g) {
    const std::int64_t r0 = g * q.group_rows, r1 = std::min(k, r0 + q.group_rows);
    for (std::int64_t j = 0; j < n; ++j) {
      float amax = 0.0f;
      for (std::int64_t r = r0; r < r1; ++r) amax = std::max(amax, std::fabs(w[static_cast<std::size_t>(r * n + j)]));
      std::uint16_t scale = isa::float_to_half(static_cast<float>(amax / qmax));
      if (isa::half_to_float(scale) == 0.0f) scale = isa::float_to_half(1.0f);  // an all-zero group (or below fp16)
      q.scales[static_cast<std::size_t>(g * n + j)] = scale;
      const double s = isa::half_to_float(scale);
      for (std::int64_t r = r0; r < r1; ++r) {
        const double v = std::nearbyint(static_cast<double>(w[static_cast<std::size_t>(r * n + j)]) / s);
        q.values[static_cast<std::size_t>(r * n + j)] = static_cast<std::int8_t>(std::clamp(v, qmin, qmax));
      }
    }
  }
  return q;
}

void append_weight_block(std::vector<std::uint8_t>& out, const WeightOnlyWeights& q, const cost::WeightStorage& storage,
                         std::int64_t row0, std::int64_t row1, std::int64_t col0, std::int64_t cols,
                         std::uint64_t alignment) {
  // int8 (group 0): one scale row per column, repeated in every block of the column.
  const bool per_column = storage.group == 0;
  if (!per_column && row0 % q.group_rows != 0) throw std::logic_error("weight block does not start a group of rows");
  const std::size_t start = out.size();
  const bool int4 = storage.format == isa::WeightFormat::Int4;
  std::uint64_t e = 0;
  for (std::int64_t r = row0; r < row1; ++r)
    for (std::int64_t j = col0; j < col0 + cols; ++j, ++e) {
      const std::int8_t v = q.values[static_cast<std::size_t>(r * q.n + j)];
      if (!int4) {
        out.push_back(static_cast<std::uint8_t>(v));
      } else if (e % 2 == 0) {
        out.push_back(static_cast<std::uint8_t>(v & 0xF));
      } else {
        out.back() = static_cast<std::uint8_t>(out.back() | ((v & 0xF) << 4));
      }
    }
  while ((out.size() - start) % alignment) out.push_back(0);
  if (!storage.scaled) return;
  const std::int64_t g0 = per_column ? 0 : row0 / q.group_rows;
  const std::int64_t g1 = per_column ? 1 : (row1 + q.group_rows - 1) / q.group_rows;
  for (std::int64_t g = g0; g < g1; ++g)
    for (std::int64_t j = col0; j < col0 + cols; ++j) {
      const std::uint16_t s = q.scales[static_cast<std::size_t>(g * q.n + j)];
      out.push_back(static_cast<std::uint8_t>(s & 0xFF));
      out.push_back(static_cast<std::uint8_t>(s >> 8));
    }
}

}  // namespace npu::compiler
