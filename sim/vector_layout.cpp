// transpose, copy, fill, quantize, dequantize.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "sim/simulator.h"
#include "sim/vector_elements.h"
#include "sim/vector_unit.h"

namespace npu::sim {

using isa::DType;
using isa::Field;

namespace {

// Blocked so both the reads and the writes of a block stay in cache.
template <typename T>
void transpose_bits(const T* src, T* dst, std::uint64_t batch, std::uint64_t rows, std::uint64_t cols) {
  constexpr std::uint64_t kBlock = 32;
  for (std::uint64_t b = 0; b < batch; ++b) {
    const T* s = src + b * rows * cols;
    T* d = dst + b * rows * cols;
    for (std::uint64_t r0 = 0; r0 < rows; r0 += kBlock)
      for (std::uint64_t c0 = 0; c0 < cols; c0 += kBlock)
        for (std::uint64_t r = r0, r_end = std::min(rows, r0 + kBlock); r < r_end; ++r)
          for (std::uint64_t c = c0, c_end = std::min(cols, c0 + kBlock); c < c_end; ++c) d[c * rows + r] = s[r * cols + c];
  }
}

}  // namespace

void execute_transpose(const isa::Instruction& in, std::uint8_t* sram) {
  const std::uint64_t batch = in.get(Field::batch), rows = in.get(Field::rows), cols = in.get(Field::cols);
  const std::uint8_t* src = sram + in.get(Field::src_addr);
  std::uint8_t* dst = sram + in.get(Field::dst_addr);
  switch (isa::dtype_bytes(static_cast<DType>(in.get(Field::dtype)))) {
    case 1: return transpose_bits(src, dst, batch, rows, cols);
    case 2:
      return transpose_bits(reinterpret_cast<const std::uint16_t*>(src), reinterpret_cast<std::uint16_t*>(dst), batch, rows, cols);
    default:
      return transpose_bits(reinterpret_cast<const std::uint32_t*>(src), reinterpret_cast<std::uint32_t*>(dst), batch, rows, cols);
  }
}

void execute_copy(const isa::Instruction& in, std::uint8_t* sram) {
  const std::uint64_t rows = in.get(Field::rows), row_bytes = in.get(Field::row_bytes);
  const std::uint8_t* src = sram + in.get(Field::src_addr) + in.get(Field::src_offset);
  std::uint8_t* dst = sram + in.get(Field::dst_addr) + in.get(Field::dst_offset);
  const std::uint64_t src_stride = in.get(Field::src_stride), dst_stride = in.get(Field::dst_stride);
  for (std::uint64_t r = 0; r < rows; ++r) std::memcpy(dst + r * dst_stride, src + r * src_stride, row_bytes);
}

// One element converted once (vec::store: integers round half to even and saturate), then
// copied: every element is bit-identical.
void execute_fill(const isa::Instruction& in, std::uint8_t* sram) {
  const DType t = static_cast<DType>(in.get(Field::dtype));
  const std::uint64_t count = in.get(Field::count), es = isa::dtype_bytes(t);
  std::uint8_t pattern[4];
  vec::store(pattern, t, 0, in.get_float(Field::value));
  std::uint8_t* d = sram + in.get(Field::dst_addr);
  for (std::uint64_t i = 0; i < count; ++i) std::memcpy(d + i * es, pattern, es);
}

// q = round_half_even(x / scale) (an fp32 division) + zero_point, saturated; NaN -> zero_point.
// dst may equal src: element i is written at byte i, below the unread elements.
void execute_quantize(const isa::Instruction& in, std::uint8_t* sram) {
  const DType t = static_cast<DType>(in.get(Field::dtype));
  const std::uint64_t count = in.get(Field::count);
  const float scale = in.get_float(Field::scale);
  const double zp = static_cast<double>(in.get(Field::zero_point));
  const std::uint8_t* src = sram + in.get(Field::src_addr);
  auto* dst = vec::at<std::int8_t>(sram, in.get(Field::dst_addr));
  for (std::uint64_t i = 0; i < count; ++i) {
    const float q = static_cast<float>(vec::load(src, t, i)) / scale;
    // nearbyint of a float is exact; adding the zero point in double is exact too.
    dst[i] = std::isnan(q) ? static_cast<std::int8_t>(zp)
                           : static_cast<std::int8_t>(std::clamp(static_cast<double>(std::nearbyint(q)) + zp, -128.0, 127.0));
  }
}

// y = (x - zero_point) * scale: the difference is exact, the product one fp32 rounding, then
// one rounding to fp16 for an fp16 destination.
void execute_dequantize(const isa::Instruction& in, std::uint8_t* sram) {
  const DType t = static_cast<DType>(in.get(Field::dtype));
  const std::uint64_t count = in.get(Field::count);
  const float scale = in.get_float(Field::scale);
  const std::int32_t zp = static_cast<std::int32_t>(in.get(Field::zero_point));
  const auto* src = vec::at<const std::int8_t>(sram, in.get(Field::src_addr));
  std::uint8_t* dst = sram + in.get(Field::dst_addr);
  if (t == DType::Fp32) {
    auto* y = reinterpret_cast<float*>(dst);
    for (std::uint64_t i = 0; i < count; ++i) y[i] = static_cast<float>(src[i] - zp) * scale;
  } else {
    auto* y = reinterpret_cast<std::uint16_t*>(dst);
    for (std::uint64_t i = 0; i < count; ++i) y[i] = isa::float_to_half(static_cast<float>(src[i] - zp) * scale);
  }
}

}  // namespace npu::sim
