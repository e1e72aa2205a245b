// binary and qbinary: element-wise over rows x cols, each operand addressed with its own row
// and column strides in elements (0 broadcasts). Each row of both operands is gathered into
// a buffer first, so the arithmetic loop is contiguous (it vectorises) whatever the strides,
// and dst may be an operand read element for element (in place).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "sim/simulator.h"
#include "sim/vector_elements.h"
#include "sim/vector_unit.h"

namespace npu::sim {

using isa::BinaryFunction;
using isa::DType;
using isa::Field;
using isa::QuantizedBinaryFunction;

namespace {

struct Strided {
  std::uint64_t addr, row_stride, col_stride;
};

struct BinaryShape {
  std::uint64_t rows, cols, dst;
  Strided a, b;
  static BinaryShape of(const isa::Instruction& in) {
    const auto u = [&in](Field f) { return static_cast<std::uint64_t>(in.get(f)); };
    return {u(Field::rows), u(Field::cols), u(Field::dst_addr),
            {u(Field::a_addr), u(Field::a_row_stride), u(Field::a_col_stride)},
            {u(Field::b_addr), u(Field::b_row_stride), u(Field::b_col_stride)}};
  }
};

// Element types as the arithmetic sees them: floats widen to fp32, integers to int64 (exact
// for add, sub, mul of int32), and results go back with the ISA's conversion rules.
struct Fp32 {
  using Storage = float;
  using Compute = float;
  static float load(float x) { return x; }
  static float store(float v) { return v; }
};
struct Fp16 {
  using Storage = std::uint16_t;
  using Compute = float;
  static float load(std::uint16_t x) { return isa::half_to_float(x); }
  static std::uint16_t store(float v) { return isa::float_to_half(v); }
};
struct Int8 {
  using Storage = std::int8_t;
  using Compute = std::int64_t;
  static std::int64_t load(std::int8_t x) { return x; }
  static std::int8_t store(std::int64_t v) { return vec::sat8(v); }
};
struct Int32 {
  using Storage = std::int32_t;
  using Compute = std::int64_t;
  static std::int64_t load(std::int32_t x) { return x; }
  static std::int32_t store(std::int64_t v) { return vec::sat32(v); }
};

template <typename E>
void gather_row(const std::uint8_t* sram, const Strided& s, std::uint64_t r, std::uint64_t cols,
                typename E::Compute* out) {
  const auto* row = reinterpret_cast<const typename E::Storage*>(sram + s.addr) + r * s.row_stride;
  if (s.col_stride == 1) {
    for (std::uint64_t c = 0; c < cols; ++c) out[c] = E::load(row[c]);
  } else if (s.col_stride == 0) {
    std::fill(out, out + cols, E::load(row[0]));
  } else {
    for (std::uint64_t c = 0; c < cols; ++c) out[c] = E::load(row[c * s.col_stride]);
  }
}

template <typename E, typename F>
void binary_rows(const BinaryShape& s, std::uint8_t* sram, F f) {
  using C = typename E::Compute;
  std::vector<C> xa(s.cols), xb(s.cols);
  auto* dst = reinterpret_cast<typename E::Storage*>(sram + s.dst);
  for (std::uint64_t r = 0; r < s.rows; ++r) {
    gather_row<E>(sram, s.a, r, s.cols, xa.data());
    gather_row<E>(sram, s.b, r, s.cols, xb.data());
    typename E::Storage* d = dst + r * s.cols;
    for (std::uint64_t c = 0; c < s.cols; ++c) d[c] = E::store(f(xa[c], xb[c]));
  }
}

// max/min propagate NaN (ONNX Max/Min, numpy maximum/minimum); for integers the NaN test is
// always false and disappears.
template <typename C>
C max_nan(C a, C b) {
  return a != a || b != b ? a + b : std::max(a, b);
}
template <typename C>
C min_nan(C a, C b) {
  return a != a || b != b ? a + b : std::min(a, b);
}

template <typename E>
void binary_typed(const isa::Instruction& in, std::uint8_t* sram) {
  using C = typename E::Compute;
  const BinaryShape s = BinaryShape::of(in);
  const auto fn = static_cast<BinaryFunction>(in.get(Field::function));
  switch (fn) {
    case BinaryFunction::Add: return binary_rows<E>(s, sram, [](C a, C b) { return a + b; });
    case BinaryFunction::Sub: return binary_rows<E>(s, sram, [](C a, C b) { return a - b; });
    case BinaryFunction::Mul: return binary_rows<E>(s, sram, [](C a, C b) { return a * b; });
    case BinaryFunction::Max: return binary_rows<E>(s, sram, max_nan<C>);
    case BinaryFunction::Min: return binary_rows<E>(s, sram, min_nan<C>);
    case BinaryFunction::Div:
    case BinaryFunction::Pow:
    case BinaryFunction::Prelu:
      if constexpr (std::is_floating_point_v<C>) {
        if (fn == BinaryFunction::Div) return binary_rows<E>(s, sram, [](C a, C b) { return a / b; });
        if (fn == BinaryFunction::Pow) return binary_rows<E>(s, sram, [](C a, C b) { return std::pow(a, b); });
        return binary_rows<E>(s, sram, [](C a, C b) { return a >= 0 ? a : a * b; });
      }
      break;
  }
  // plan_program rejects these; reaching here is a simulator bug.
  throw SimError(fmt::format("binary function {} is not supported for this dtype", in.get(Field::function)));
}

// qbinary: int64 arithmetic on (x - zero_point) * multiplier, then one rounding shift.
template <typename F>
void quantized_rows(const isa::Instruction& in, std::uint8_t* sram, F combine) {
  const BinaryShape s = BinaryShape::of(in);
  const std::int64_t azp = in.get(Field::a_zero_point), bzp = in.get(Field::b_zero_point);
  const std::int64_t am = in.get(Field::a_multiplier), bm = in.get(Field::b_multiplier);
  const int shift = static_cast<int>(in.get(Field::shift));
  const std::int64_t round = shift ? std::int64_t{1} << (shift - 1) : 0;
  const std::int64_t zp = in.get(Field::zero_point), lo = in.get(Field::clamp_min), hi = in.get(Field::clamp_max);
  std::vector<std::int64_t> xa(s.cols), xb(s.cols);
  auto* dst = reinterpret_cast<std::int8_t*>(sram + s.dst);
  for (std::uint64_t r = 0; r < s.rows; ++r) {
    gather_row<Int8>(sram, s.a, r, s.cols, xa.data());
    gather_row<Int8>(sram, s.b, r, s.cols, xb.data());
    std::int8_t* d = dst + r * s.cols;
    for (std::uint64_t c = 0; c < s.cols; ++c) {
      const std::int64_t v = combine(xa[c] - azp, xb[c] - bzp, am, bm);
      d[c] = static_cast<std::int8_t>(std::clamp(((v + round) >> shift) + zp, lo, hi));
    }
  }
}

}  // namespace

void execute_binary(const isa::Instruction& in, std::uint8_t* sram) {
  switch (static_cast<DType>(in.get(Field::dtype))) {
    case DType::Int8: return binary_typed<Int8>(in, sram);
    case DType::Int32: return binary_typed<Int32>(in, sram);
    case DType::Fp16: return binary_typed<Fp16>(in, sram);
    case DType::Fp32: return binary_typed<Fp32>(in, sram);
  }
}

void execute_quantized_binary(const isa::Instruction& in, std::uint8_t* sram) {
  using I = std::int64_t;
  switch (static_cast<QuantizedBinaryFunction>(in.get(Field::function))) {
    case QuantizedBinaryFunction::Add: return quantized_rows(in, sram, [](I a, I b, I am, I bm) { return a * am + b * bm; });
    case QuantizedBinaryFunction::Sub: return quantized_rows(in, sram, [](I a, I b, I am, I bm) { return a * am - b * bm; });
    case QuantizedBinaryFunction::Mul: return quantized_rows(in, sram, [](I a, I b, I am, I) { return a * b * am; });
    case QuantizedBinaryFunction::Max:
      return quantized_rows(in, sram, [](I a, I b, I am, I bm) { return std::max(a * am, b * bm); });
    case QuantizedBinaryFunction::Min:
      return quantized_rows(in, sram, [](I a, I b, I am, I bm) { return std::min(a * am, b * bm); });
  }
  throw SimError(fmt::format("qbinary function {} is not a QuantizedBinaryFunction", in.get(Field::function)));
}

}  // namespace npu::sim
