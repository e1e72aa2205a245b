// binary and qbinary on real bytes: every broadcast pattern, every function, every dtype,
// against references computed here (float ops in the same fp32 order: bit-exact; integers
// with __int128: bit-exact). The harness also checks timing-only == functional cycles.
#include <cmath>
#include <functional>

#include "isa/fp16.h"
#include "tests/sim/functional_harness.h"

using namespace simtest;
namespace isa = npu::isa;
using isa::BinaryFunction;
using isa::DType;
using isa::QuantizedBinaryFunction;

namespace {

// Operand strides for rows x cols: full, one value per column, one per row, scalar, and a
// gappy general stride.
std::vector<std::pair<std::uint64_t, std::uint64_t>> patterns(std::uint64_t cols) {
  return {{cols, 1}, {0, 1}, {1, 0}, {0, 0}, {2 * cols + 3, 2}};
}

std::uint64_t span(std::uint64_t rows, std::uint64_t cols, std::pair<std::uint64_t, std::uint64_t> p) {
  return (rows - 1) * p.first + (cols - 1) * p.second + 1;
}

Instruction binary(BinaryFunction fn, DType t, std::uint64_t rows, std::uint64_t cols, std::uint64_t a,
                   std::pair<std::uint64_t, std::uint64_t> pa, std::uint64_t b, std::pair<std::uint64_t, std::uint64_t> pb,
                   std::uint64_t dst) {
  auto i = make(Opcode::Binary);
  i.set(Field::dtype, static_cast<int>(t));
  i.set(Field::function, static_cast<int>(fn));
  i.set(Field::rows, static_cast<std::int64_t>(rows));
  i.set(Field::cols, static_cast<std::int64_t>(cols));
  i.set(Field::a_addr, static_cast<std::int64_t>(a));
  i.set(Field::b_addr, static_cast<std::int64_t>(b));
  i.set(Field::dst_addr, static_cast<std::int64_t>(dst));
  i.set(Field::a_row_stride, static_cast<std::int64_t>(pa.first));
  i.set(Field::a_col_stride, static_cast<std::int64_t>(pa.second));
  i.set(Field::b_row_stride, static_cast<std::int64_t>(pb.first));
  i.set(Field::b_col_stride, static_cast<std::int64_t>(pb.second));
  return i;
}

float ref_float(BinaryFunction fn, float a, float b) {
  switch (fn) {
    case BinaryFunction::Add: return a + b;
    case BinaryFunction::Sub: return a - b;
    case BinaryFunction::Mul: return a * b;
    case BinaryFunction::Max: return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
    case BinaryFunction::Min: return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
    case BinaryFunction::Div: return a / b;
    case BinaryFunction::Pow: return static_cast<float>(std::pow(static_cast<double>(a), static_cast<double>(b)));
    case BinaryFunction::Prelu: return a >= 0 ? a : a * b;
  }
  return 0;
}

bool same_float(float got, float want, BinaryFunction fn) {
  if (std::isnan(want)) return std::isnan(got);
  if (fn == BinaryFunction::Pow) return got == Approx(want).epsilon(1e-6).margin(1e-30);  // powf vs pow
  return got == want;
}

std::int64_t floor_shift(__int128 v, int shift) {
  const __int128 d = static_cast<__int128>(1) << shift;
  __int128 q = v / d;
  if (v % d != 0 && v < 0) --q;
  return static_cast<std::int64_t>(q);
}

}  // namespace

TEST_CASE("binary fp32 and fp16: every function and broadcast pattern", "[functional][vector][binary]") {
  Rng rng;
  const std::uint64_t rows = 5, cols = 37;  // 37: a partial lane group per row
  const std::uint64_t n = span(rows, cols, {2 * cols + 3, 2});
  std::vector<float> a(n), b(n);
  for (auto& x : a) x = rng.f(-4.0f, 4.0f);
  for (auto& x : b) x = rng.f(-3.0f, 3.0f);
  for (std::uint64_t i = 0; i < n; i += 7) b[i] = rng.f(0.25f, 2.0f);  // positive bases for pow
  a[3] = NAN;
  for (std::uint64_t i = 0; i < n; ++i)
    if (i % 5 == 0) a[i] = std::fabs(a[i]);  // pow needs a > 0 to be real
  std::vector<std::uint16_t> ah, bh;
  for (float x : a) ah.push_back(isa::float_to_half(x));
  for (float x : b) bh.push_back(isa::float_to_half(x));
  const std::uint64_t kA = 0, kB = 0x2000, kAh = 0x4000, kBh = 0x5000, kOut = 0x8000;
  for (DType t : {DType::Fp32, DType::Fp16}) {
    for (int f = 0; f < isa::enum_count<BinaryFunction>(); ++f) {
      const auto fn = static_cast<BinaryFunction>(f);
      Harness h;
      const bool half = t == DType::Fp16;
      if (half) {
        h.put(kAh, ah);
        h.put(kBh, bh);
      } else {
        h.put(kA, a);
        h.put(kB, b);
      }
      const auto ps = patterns(cols);
      std::uint64_t out = kOut;
      const std::uint64_t es = half ? 2 : 4, bytes = (rows * cols * es + 63) / 64 * 64;
      for (std::size_t pa = 0; pa < ps.size(); ++pa)
        for (std::size_t pb = 0; pb < ps.size(); ++pb, out += bytes)
          h.op(binary(fn, t, rows, cols, half ? kAh : kA, ps[pa], half ? kBh : kB, ps[pb], out));
      h.get(kOut, out - kOut);
      h.run();
      out = kOut;
      for (std::size_t pa = 0; pa < ps.size(); ++pa)
        for (std::size_t pb = 0; pb < ps.size(); ++pb, out += bytes) {
          CAPTURE(isa::enum_name(fn), isa::dtype_name(t), pa, pb);
          for (std::uint64_t r = 0; r < rows; ++r)
            for (std::uint64_t c = 0; c < cols; ++c) {
              const std::uint64_t ia = r * ps[pa].first + c * ps[pa].second, ib = r * ps[pb].first + c * ps[pb].second;
              const std::uint64_t k = r * cols + c;
              if (half) {
                const float want = ref_float(fn, isa::half_to_float(ah[ia]), isa::half_to_float(bh[ib]));
                const float got = isa::half_to_float(h.read<std::uint16_t>(out, rows * cols)[k]);
                if (std::isnan(want)) REQUIRE(std::isnan(got));
                else if (std::fabs(want) >= 65520.0f) REQUIRE(got == std::copysign(INFINITY, want));  // fp16 overflow
                else REQUIRE(got == Approx(want).epsilon(1e-3).margin(1e-4));
                if (fn != BinaryFunction::Pow && !std::isnan(want)) REQUIRE(got == isa::half_to_float(isa::float_to_half(want)));
              } else {
                REQUIRE(same_float(h.read<float>(out, rows * cols)[k], ref_float(fn, a[ia], b[ib]), fn));
              }
            }
        }
    }
  }
}

TEST_CASE("binary int8 and int32 saturate; in place; cycles", "[functional][vector][binary]") {
  const std::vector<std::int8_t> a8 = {100, -100, 7, -128, 127, 0, 5, -5};
  const std::vector<std::int8_t> b8 = {100, -100, -8, 127, 1, 0, 30, 30};
  const std::vector<std::int32_t> a32 = {INT32_MAX, INT32_MIN, 65536, -3};
  const std::vector<std::int32_t> b32 = {1, -1, 65536, 4};
  Harness h;
  h.put(0, a8);
  h.put(64, b8);
  h.put(128, a32);
  h.put(192, b32);
  h.put(1024, a8);  // an in-place copy of a8
  const std::pair<std::uint64_t, std::uint64_t> full8{8, 1}, full4{4, 1};
  h.op(binary(BinaryFunction::Add, DType::Int8, 1, 8, 0, full8, 64, full8, 256));
  h.op(binary(BinaryFunction::Sub, DType::Int8, 1, 8, 0, full8, 64, full8, 320));
  h.op(binary(BinaryFunction::Mul, DType::Int8, 1, 8, 0, full8, 64, full8, 384));
  h.op(binary(BinaryFunction::Max, DType::Int8, 2, 4, 0, {4, 1}, 64, {0, 0}, 448));  // b scalar 100
  h.op(binary(BinaryFunction::Min, DType::Int8, 2, 4, 0, {4, 1}, 64, {1, 0}, 512));  // b per row: 100, -100
  h.op(binary(BinaryFunction::Add, DType::Int32, 1, 4, 128, full4, 192, full4, 576));
  h.op(binary(BinaryFunction::Mul, DType::Int32, 1, 4, 128, full4, 192, full4, 640));
  h.op(binary(BinaryFunction::Sub, DType::Int8, 1, 8, 1024, full8, 64, full8, 1024));  // in place
  h.get(256, 1088 - 256);
  const auto r = h.run();
  CHECK(h.read<std::int8_t>(256, 8) == std::vector<std::int8_t>{127, -128, -1, -1, 127, 0, 35, 25});
  CHECK(h.read<std::int8_t>(320, 8) == std::vector<std::int8_t>{0, 0, 15, -128, 126, 0, -25, -35});
  CHECK(h.read<std::int8_t>(384, 8) == std::vector<std::int8_t>{127, 127, -56, -128, 127, 0, 127, -128});
  CHECK(h.read<std::int8_t>(448, 8) == std::vector<std::int8_t>{100, 100, 100, 100, 127, 100, 100, 100});
  CHECK(h.read<std::int8_t>(512, 8) == std::vector<std::int8_t>{100, -100, 7, -128, -100, -100, -100, -100});
  CHECK(h.read<std::int32_t>(576, 4) == std::vector<std::int32_t>{INT32_MAX, INT32_MIN, 131072, 1});
  CHECK(h.read<std::int32_t>(640, 4) == std::vector<std::int32_t>{INT32_MAX, INT32_MAX, INT32_MAX, -12});
  CHECK(h.read<std::int8_t>(1024, 8) == std::vector<std::int8_t>{0, 0, 15, -128, 126, 0, -25, -35});
  // 8 instructions: 6 of 1 row x ceil(8/16) or ceil(4/16) = 4 + 1 = 5 cycles, 2 of 2 rows = 4 + 2 = 6.
  CHECK(r.vector.busy_cycles == 6 * 5 + 2 * 6);
}

TEST_CASE("qbinary: zero points, multipliers, rounding half up, clamp, broadcast", "[functional][vector][qbinary]") {
  Rng rng;
  const std::uint64_t rows = 6, cols = 40;
  auto a = random_vector<std::int8_t>(rng, rows * cols, -128, 127);
  auto b = random_vector<std::int8_t>(rng, rows * cols, -128, 127);
  a[0] = -128, b[0] = 127, a[1] = 127, b[1] = -128;
  struct Case {
    QuantizedBinaryFunction fn;
    std::int64_t am, bm;
    int shift;
    std::pair<std::uint64_t, std::uint64_t> pa, pb;
    std::int64_t lo, hi;
  };
  const std::vector<Case> cases = {
      {QuantizedBinaryFunction::Add, 23170, -16384, 15, {cols, 1}, {cols, 1}, -128, 127},
      {QuantizedBinaryFunction::Add, 32767, 32767, 16, {cols, 1}, {0, 1}, 0, 127},  // per-column b, fused ReLU
      {QuantizedBinaryFunction::Sub, 20000, 30000, 16, {cols, 1}, {1, 0}, -128, 127},
      {QuantizedBinaryFunction::Mul, 12345, 0, 20, {cols, 1}, {0, 0}, -128, 127},
      {QuantizedBinaryFunction::Mul, -32768, 0, 22, {cols, 1}, {cols, 1}, -100, 100},
      {QuantizedBinaryFunction::Max, 30000, 15000, 15, {0, 1}, {cols, 1}, -128, 127},
      {QuantizedBinaryFunction::Min, 30000, 15000, 0, {cols, 1}, {cols, 1}, -128, 127},
  };
  Harness h;
  h.put(0, a);
  h.put(0x1000, b);
  std::uint64_t out = 0x2000;
  for (const Case& c : cases) {
    auto i = make(Opcode::QuantizedBinary);
    i.set(Field::function, static_cast<int>(c.fn));
    i.set(Field::rows, rows);
    i.set(Field::cols, cols);
    i.set(Field::a_addr, 0);
    i.set(Field::b_addr, 0x1000);
    i.set(Field::dst_addr, static_cast<std::int64_t>(out));
    i.set(Field::a_row_stride, static_cast<std::int64_t>(c.pa.first));
    i.set(Field::a_col_stride, static_cast<std::int64_t>(c.pa.second));
    i.set(Field::b_row_stride, static_cast<std::int64_t>(c.pb.first));
    i.set(Field::b_col_stride, static_cast<std::int64_t>(c.pb.second));
    i.set(Field::a_zero_point, 3);
    i.set(Field::b_zero_point, -7);
    i.set(Field::zero_point, 10);
    i.set(Field::a_multiplier, c.am);
    i.set(Field::b_multiplier, c.bm);
    i.set(Field::shift, c.shift);
    i.set(Field::clamp_min, c.lo);
    i.set(Field::clamp_max, c.hi);
    h.op(i);
    out += 0x400;
  }
  h.get(0x2000, out - 0x2000);
  const auto r = h.run();
  out = 0x2000;
  for (const Case& c : cases) {
    const auto y = h.read<std::int8_t>(out, rows * cols);
    CAPTURE(isa::enum_name(c.fn), c.shift);
    for (std::uint64_t rr = 0; rr < rows; ++rr)
      for (std::uint64_t cc = 0; cc < cols; ++cc) {
        const __int128 va = static_cast<__int128>(a[rr * c.pa.first + cc * c.pa.second] - 3);
        const __int128 vb = static_cast<__int128>(b[rr * c.pb.first + cc * c.pb.second] + 7);
        __int128 v = 0;
        switch (c.fn) {
          case QuantizedBinaryFunction::Add: v = va * c.am + vb * c.bm; break;
          case QuantizedBinaryFunction::Sub: v = va * c.am - vb * c.bm; break;
          case QuantizedBinaryFunction::Mul: v = va * vb * c.am; break;
          case QuantizedBinaryFunction::Max: v = std::max(va * c.am, vb * c.bm); break;
          case QuantizedBinaryFunction::Min: v = std::min(va * c.am, vb * c.bm); break;
        }
        if (c.shift) v += static_cast<__int128>(1) << (c.shift - 1);
        const std::int64_t want = std::clamp<std::int64_t>(floor_shift(v, c.shift) + 10, c.lo, c.hi);
        REQUIRE(y[rr * cols + cc] == want);
      }
    out += 0x400;
  }
  // 7 instructions of 4 + 6 rows * ceil(40/16) = 22 cycles.
  CHECK(r.vector.busy_cycles == 7 * 22);
}
