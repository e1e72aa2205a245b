// Max and average pooling over an NHWC tile.
//   max: padded positions read pad_value (converted to the element type's value).
//   average: count_include_pad = 1 adds pad_value for each padded position and divides by
//   kernel_h*kernel_w; = 0 skips them and divides by the valid count (0 valid: result 0).
//   int8/int32 divide rounding half away from zero; fp16/fp32 sum and divide in fp32.
#include <algorithm>
#include <limits>
#include <vector>

#include "costmodel/vector_cost.h"
#include "sim/vector_elements.h"
#include "sim/vector_unit.h"

namespace npu::sim {

using isa::DType;
using isa::Field;

void execute_pool(const isa::Instruction& in, std::uint8_t* sram) {
  const cost::PoolShape s = cost::PoolShape::of(in);
  const DType t = static_cast<DType>(in.get(Field::dtype));
  const bool average = in.get(Field::mode) == static_cast<int>(isa::PoolMode::Average);
  const bool include_pad = in.get(Field::count_include_pad) == 1;
  const double pad = static_cast<double>(in.get(Field::pad_value));
  const bool integer = t == DType::Int8 || t == DType::Int32;
  const std::uint64_t c = s.channels;
  // Read the whole input as doubles first: exact for every type, and safe when dst overlaps src.
  std::vector<double> x(s.in_h * s.in_w * c);
  const std::uint8_t* src = sram + in.get(Field::src_addr);
  for (std::uint64_t i = 0; i < x.size(); ++i) x[i] = vec::load(src, t, i);
  std::uint8_t* dst = sram + in.get(Field::dst_addr);
  std::vector<double> acc(c);
  for (std::uint64_t oy = 0; oy < s.out_h; ++oy)
    for (std::uint64_t ox = 0; ox < s.out_w; ++ox) {
      std::fill(acc.begin(), acc.end(), average ? 0.0 : -std::numeric_limits<double>::infinity());
      std::int64_t n = 0;
      for (std::uint64_t ky = 0; ky < s.kernel_h; ++ky)
        for (std::uint64_t kx = 0; kx < s.kernel_w; ++kx) {
          const std::int64_t iy = static_cast<std::int64_t>(oy * s.stride_h + ky) - static_cast<std::int64_t>(s.pad_top);
          const std::int64_t ix = static_cast<std::int64_t>(ox * s.stride_w + kx) - static_cast<std::int64_t>(s.pad_left);
          const bool inside = iy >= 0 && ix >= 0 && iy < static_cast<std::int64_t>(s.in_h) &&
                              ix < static_cast<std::int64_t>(s.in_w);
          if (!inside && average && !include_pad) continue;
          ++n;
          const double* row = inside ? x.data() + (static_cast<std::uint64_t>(iy) * s.in_w + static_cast<std::uint64_t>(ix)) * c : nullptr;
          if (average) {
            // fp sums in fp32 (float adds); integer sums are exact in double (< 2^53).
            for (std::uint64_t ch = 0; ch < c; ++ch) {
              const double v = row ? row[ch] : pad;
              acc[ch] = integer ? acc[ch] + v : static_cast<double>(static_cast<float>(acc[ch]) + static_cast<float>(v));
            }
          } else {
            for (std::uint64_t ch = 0; ch < c; ++ch) acc[ch] = std::max(acc[ch], row ? row[ch] : pad);
          }
        }
      const std::uint64_t base = (oy * s.out_w + ox) * c;
      for (std::uint64_t ch = 0; ch < c; ++ch) {
        double v = acc[ch];
        if (average) {
          if (n == 0)
            v = 0;
          else if (integer)
            v = static_cast<double>(vec::divide_round_away(static_cast<std::int64_t>(v), n));
          else
            v = static_cast<double>(static_cast<float>(v) / static_cast<float>(n));
        }
        vec::store(dst, t, base + ch, v);
      }
    }
}

}  // namespace npu::sim
