// reduce, layernorm, softmax along any axis, transpose, fill, quantize/dequantize and gemm's
// zero points and transposed B on real bytes, against references computed here.
#include <cmath>

#include "isa/fp16.h"
#include "tests/sim/functional_harness.h"

using namespace simtest;
namespace isa = npu::isa;
using isa::DType;
using isa::ReduceFunction;

namespace {

Instruction reduce(ReduceFunction fn, DType t, std::uint64_t outer, std::uint64_t length, std::uint64_t inner,
                   std::uint64_t src, std::uint64_t dst) {
  auto i = make(Opcode::Reduce);
  i.set(Field::dtype, static_cast<int>(t));
  i.set(Field::function, static_cast<int>(fn));
  i.set(Field::outer, static_cast<std::int64_t>(outer));
  i.set(Field::length, static_cast<std::int64_t>(length));
  i.set(Field::inner, static_cast<std::int64_t>(inner));
  i.set(Field::src_addr, static_cast<std::int64_t>(src));
  i.set(Field::dst_addr, static_cast<std::int64_t>(dst));
  return i;
}

}  // namespace

TEST_CASE("reduce fp32/fp16: sum, mean, max, min, sum_square along any axis", "[functional][vector][reduce]") {
  Rng rng;
  const std::uint64_t outer = 3, length = 21, inner = 5;
  std::vector<float> x(outer * length * inner);
  for (auto& v : x) v = rng.f(-2.0f, 2.0f);
  std::vector<std::uint16_t> xh;
  for (float v : x) xh.push_back(isa::float_to_half(v));
  // Two views of the same data: the middle axis (inner 5) and the last axis (outer*length rows of 5).
  struct View {
    std::uint64_t outer, length, inner;
  };
  const View views[] = {{outer, length, inner}, {outer * length, inner, 1}};
  for (DType t : {DType::Fp32, DType::Fp16}) {
    const bool half = t == DType::Fp16;
    Harness h;
    half ? h.put(0, xh) : h.put(0, x);
    std::uint64_t out = 0x4000;
    for (const View& v : views)
      for (int f = 0; f < isa::enum_count<ReduceFunction>(); ++f, out += 0x400)
        h.op(reduce(static_cast<ReduceFunction>(f), t, v.outer, v.length, v.inner, 0, out));
    h.get(0x4000, out - 0x4000);
    h.run();
    out = 0x4000;
    for (const View& v : views)
      for (int f = 0; f < isa::enum_count<ReduceFunction>(); ++f, out += 0x400) {
        const auto fn = static_cast<ReduceFunction>(f);
        CAPTURE(isa::enum_name(fn), isa::dtype_name(t), v.inner);
        for (std::uint64_t o = 0; o < v.outer; ++o)
          for (std::uint64_t i = 0; i < v.inner; ++i) {
            // The documented fp32 order: start from element 0, then r = 1, 2, ...
            float acc = 0;
            double exact = 0;
            for (std::uint64_t r = 0; r < v.length; ++r) {
              const std::uint64_t k = (o * v.length + r) * v.inner + i;
              const float e = half ? isa::half_to_float(xh[k]) : x[k];
              const float term = fn == ReduceFunction::SumSquare ? e * e : e;
              if (r == 0) acc = term;
              else if (fn == ReduceFunction::Max) acc = std::max(acc, e);
              else if (fn == ReduceFunction::Min) acc = std::min(acc, e);
              else acc += term;
              exact += fn == ReduceFunction::SumSquare ? static_cast<double>(e) * e : e;
            }
            if (fn == ReduceFunction::Mean) acc /= static_cast<float>(v.length), exact /= static_cast<double>(v.length);
            const std::uint64_t k = o * v.inner + i;
            if (half) {
              const float got = isa::half_to_float(h.read<std::uint16_t>(out, v.outer * v.inner)[k]);
              REQUIRE(got == isa::half_to_float(isa::float_to_half(acc)));
              if (fn != ReduceFunction::Max && fn != ReduceFunction::Min)
                REQUIRE(got == Approx(exact).epsilon(1e-3).margin(2e-3));  // fp16 of an fp32 sum
            } else {
              REQUIRE(h.read<float>(out, v.outer * v.inner)[k] == acc);
              if (fn != ReduceFunction::Max && fn != ReduceFunction::Min)
                REQUIRE(acc == Approx(exact).epsilon(1e-5).margin(1e-5));
            }
          }
      }
  }
}

TEST_CASE("reduce int8: exact int32 sum, mean rounding half away from zero, max, min", "[functional][vector][reduce]") {
  // 6 rows of 2 (inner 1): sums 3, -3, 254, -256, 1, 0; means 1.5 -> 2, -1.5 -> -2, 127, -128,
  // 0.5 -> 1 (half away from zero), 0.
  const std::vector<std::int8_t> x = {1, 2, -1, -2, 127, 127, -128, -128, 5, -4, 0, 0};
  Harness h;
  h.put(0, x);
  h.op(reduce(ReduceFunction::Sum, DType::Int8, 6, 2, 1, 0, 0x100));
  h.op(reduce(ReduceFunction::Mean, DType::Int8, 6, 2, 1, 0, 0x200));
  h.op(reduce(ReduceFunction::Max, DType::Int8, 6, 2, 1, 0, 0x240));
  h.op(reduce(ReduceFunction::Min, DType::Int8, 1, 12, 1, 0, 0x280));
  h.op(reduce(ReduceFunction::Sum, DType::Int8, 1, 6, 2, 0, 0x2c0));  // strided: even and odd positions
  h.get(0x100, 0x300 - 0x100);
  const auto r = h.run();
  CHECK(h.read<std::int32_t>(0x100, 6) == std::vector<std::int32_t>{3, -3, 254, -256, 1, 0});
  CHECK(h.read<std::int8_t>(0x200, 6) == std::vector<std::int8_t>{2, -2, 127, -128, 1, 0});
  CHECK(h.read<std::int8_t>(0x240, 6) == std::vector<std::int8_t>{2, -1, 127, -128, 5, 0});
  CHECK(h.read<std::int8_t>(0x280, 1) == std::vector<std::int8_t>{-128});
  CHECK(h.read<std::int32_t>(0x2c0, 2) == std::vector<std::int32_t>{1 - 1 + 127 - 128 + 5 + 0, 2 - 2 + 127 - 128 - 4 + 0});
  // 4 + 6*ceil(2/16) = 10 (x3); 4 + ceil(12/16) = 5; strided 4 + 1*6*ceil(2/16) = 10.
  CHECK(r.vector.busy_cycles == 3 * 10 + 5 + 10);
}

TEST_CASE("reduce max/min propagate NaN", "[functional][vector][reduce]") {
  const std::vector<float> x = {1.0f, NAN, 3.0f, -1.0f, 2.0f, 0.5f};
  Harness h;
  h.put(0, x);
  h.op(reduce(ReduceFunction::Max, DType::Fp32, 2, 3, 1, 0, 0x100));
  h.op(reduce(ReduceFunction::Min, DType::Fp32, 2, 3, 1, 0, 0x140));
  h.get(0x100, 0x80);
  h.run();
  const auto mx = h.read<float>(0x100, 2), mn = h.read<float>(0x140, 2);
  CHECK(std::isnan(mx[0]));
  CHECK(mx[1] == 2.0f);
  CHECK(std::isnan(mn[0]));
  CHECK(mn[1] == -1.0f);
}

TEST_CASE("layernorm fp32 and fp16 against a double-precision reference", "[functional][vector][layernorm]") {
  Rng rng;
  const std::uint64_t rows = 7, cols = 48;
  std::vector<float> x(rows * cols), params(2 * cols);
  for (auto& v : x) v = rng.f(-3.0f, 5.0f);
  // A mean 70x the spread: the fp32 sums in column order still give 1e-4.
  for (std::uint64_t c = 0; c < cols; ++c) x[cols + c] = 100.0f + 0.1f * static_cast<float>(c);
  for (auto& v : params) v = rng.f(-1.5f, 1.5f);
  std::vector<std::uint16_t> xh;
  for (float v : x) xh.push_back(isa::float_to_half(v));
  Harness h;
  h.put(0, x);
  h.put(0x1000, xh);
  h.put(0x2000, params);
  for (int half = 0; half < 2; ++half) {
    auto i = make(Opcode::LayerNorm);
    i.set(Field::dtype, half ? 2 : 3);
    i.set(Field::rows, rows);
    i.set(Field::cols, cols);
    i.set(Field::src_addr, half ? 0x1000 : 0);
    i.set(Field::param_addr, 0x2000);
    i.set(Field::dst_addr, half ? 0x1000 : 0x3000);  // fp16 in place
    i.set_float(Field::epsilon, 1e-5f);
    h.op(i);
  }
  h.get(0x1000, rows * cols * 2);
  h.get(0x3000, rows * cols * 4);
  const auto r = h.run();
  const auto y = h.read<float>(0x3000, rows * cols);
  const auto yh = h.read<std::uint16_t>(0x1000, rows * cols);
  for (int half = 0; half < 2; ++half)
    for (std::uint64_t row = 0; row < rows; ++row) {
      double mean = 0, var = 0;
      for (std::uint64_t c = 0; c < cols; ++c)
        mean += half ? isa::half_to_float(xh[row * cols + c]) : x[row * cols + c];
      mean /= cols;
      for (std::uint64_t c = 0; c < cols; ++c) {
        const double d = (half ? isa::half_to_float(xh[row * cols + c]) : x[row * cols + c]) - mean;
        var += d * d;
      }
      var /= cols;
      for (std::uint64_t c = 0; c < cols; ++c) {
        const double xv = half ? isa::half_to_float(xh[row * cols + c]) : x[row * cols + c];
        const double want = (xv - mean) / std::sqrt(var + 1e-5) * params[c] + params[cols + c];
        CAPTURE(half, row, c);
        if (half) REQUIRE(isa::half_to_float(yh[row * cols + c]) == Approx(want).epsilon(1e-3).margin(2e-3));
        else REQUIRE(y[row * cols + c] == Approx(want).epsilon(1e-4).margin(1e-4));
      }
    }
  // 2 x (4 + 3 * 7 * ceil(48/16)) = 2 x 67.
  CHECK(r.vector.busy_cycles == 2 * 67);
}

TEST_CASE("softmax along the middle axis equals softmax of the transposed rows", "[functional][vector][softmax]") {
  Rng rng;
  const std::uint64_t rows = 3, cols = 6, inner = 5;  // softmax over cols
  std::vector<float> x(rows * cols * inner);
  for (auto& v : x) v = rng.f(-6.0f, 6.0f);
  Harness h;
  h.put(0, x);
  auto sm = make(Opcode::Softmax);
  sm.set(Field::dtype, 3);
  sm.set(Field::rows, rows);
  sm.set(Field::cols, cols);
  sm.set(Field::inner, inner);
  sm.set(Field::src_addr, 0);
  sm.set(Field::dst_addr, 0);  // in place
  h.op(sm);
  h.get(0, x.size() * 4);
  const auto r = h.run();
  const auto y = h.read<float>(0, x.size());
  for (std::uint64_t o = 0; o < rows; ++o)
    for (std::uint64_t i = 0; i < inner; ++i) {
      double m = -INFINITY, sum = 0;
      for (std::uint64_t j = 0; j < cols; ++j) m = std::max<double>(m, x[(o * cols + j) * inner + i]);
      for (std::uint64_t j = 0; j < cols; ++j) sum += std::exp(x[(o * cols + j) * inner + i] - m);
      for (std::uint64_t j = 0; j < cols; ++j) {
        const std::uint64_t k = (o * cols + j) * inner + i;
        REQUIRE(y[k] == Approx(std::exp(x[k] - m) / sum).epsilon(1e-5).margin(1e-7));
      }
    }
  // 4 + 3 * 3 * 6 * ceil(5/16) = 58.
  CHECK(r.vector.busy_cycles == 58);
}

TEST_CASE("transpose copies elements bit for bit, any element size", "[functional][vector][transpose]") {
  Rng rng;
  const std::uint64_t batch = 2, rows = 37, cols = 19;
  const std::uint64_t n = batch * rows * cols;
  auto x8 = random_vector<std::int8_t>(rng, n, -128, 127);
  auto x32 = random_vector<std::int32_t>(rng, n, INT32_MIN + 1, INT32_MAX);
  std::vector<std::uint16_t> x16(n);
  for (auto& v : x16) v = static_cast<std::uint16_t>(rng.next());
  Harness h;
  h.put(0, x8);
  h.put(0x1000, x16);
  h.put(0x3000, x32);
  auto tr = [&](int dtype, std::uint64_t src, std::uint64_t dst) {
    auto i = make(Opcode::Transpose);
    i.set(Field::dtype, dtype);
    i.set(Field::batch, batch);
    i.set(Field::rows, rows);
    i.set(Field::cols, cols);
    i.set(Field::src_addr, src);
    i.set(Field::dst_addr, dst);
    return i;
  };
  h.op(tr(0, 0, 0x8000));
  h.op(tr(2, 0x1000, 0x9000));  // fp16: NaN payloads and all copied as bits
  h.op(tr(1, 0x3000, 0xb000));
  h.get(0x8000, 0xb000 + n * 4 - 0x8000);
  const auto r = h.run();
  const auto y8 = h.read<std::int8_t>(0x8000, n);
  const auto y16 = h.read<std::uint16_t>(0x9000, n);
  const auto y32 = h.read<std::int32_t>(0xb000, n);
  for (std::uint64_t b = 0; b < batch; ++b)
    for (std::uint64_t rr = 0; rr < rows; ++rr)
      for (std::uint64_t c = 0; c < cols; ++c) {
        const std::uint64_t s = (b * rows + rr) * cols + c, d = (b * cols + c) * rows + rr;
        REQUIRE(y8[d] == x8[s]);
        REQUIRE(y16[d] == x16[s]);
        REQUIRE(y32[d] == x32[s]);
      }
  // 3 x (4 + 2 * ceil(37/16) * ceil(19/16) * 16) = 3 x (4 + 192).
  CHECK(r.vector.busy_cycles == 3 * 196);
}

TEST_CASE("fill converts the value once with the ISA's rounding", "[functional][vector][fill]") {
  Harness h;
  auto fill = [](int dtype, float value, std::uint64_t dst, int count) {
    auto i = make(Opcode::Fill);
    i.set(Field::dtype, dtype);
    i.set_float(Field::value, value);
    i.set(Field::dst_addr, dst);
    i.set(Field::count, count);
    return i;
  };
  h.op(fill(0, 300.0f, 0, 5));        // int8 saturates
  h.op(fill(0, -2.5f, 64, 3));        // half to even: -2
  h.op(fill(1, -7.5f, 128, 3));       // -8
  h.op(fill(1, 16777216.0f, 192, 2));  // 2^24 exact
  h.op(fill(2, 0.1f, 256, 17));       // fp16 nearest
  h.op(fill(3, -0.0f, 320, 2));       // bits kept
  h.get(0, 384);
  h.run();
  CHECK(h.read<std::int8_t>(0, 5) == std::vector<std::int8_t>(5, 127));
  CHECK(h.read<std::int8_t>(64, 3) == std::vector<std::int8_t>(3, -2));
  CHECK(h.read<std::int32_t>(128, 3) == std::vector<std::int32_t>(3, -8));
  CHECK(h.read<std::int32_t>(192, 2) == std::vector<std::int32_t>(2, 16777216));
  CHECK(h.read<std::uint16_t>(256, 17) == std::vector<std::uint16_t>(17, isa::float_to_half(0.1f)));
  const auto z = h.read<std::uint32_t>(320, 2);
  CHECK(z[0] == 0x80000000u);
  CHECK(z[1] == 0x80000000u);
}

TEST_CASE("quantize rounds half to even and saturates; dequantize is one fp32 product", "[functional][vector][quantize]") {
  // scale 0.5: x / 0.5 = 2x exactly, so the ties are exact: 1.25 -> 2.5 -> 2, 1.75 -> 3.5 -> 4.
  const std::vector<float> x = {1.25f, 1.75f, -1.25f, -0.25f, 100.0f, -100.0f, NAN, 0.0f};
  std::vector<std::uint16_t> xh;
  for (float v : x) xh.push_back(isa::float_to_half(v));
  const std::vector<std::int8_t> q = {-128, -1, 0, 5, 127, 3, -20, 100};
  Harness h;
  h.put(0, x);
  h.put(64, xh);
  h.put(128, q);
  auto op = [](Opcode o, int dtype, float scale, int zp, std::uint64_t src, std::uint64_t dst, int count) {
    auto i = make(o);
    i.set(Field::dtype, dtype);
    i.set_float(Field::scale, scale);
    i.set(Field::zero_point, zp);
    i.set(Field::src_addr, src);
    i.set(Field::dst_addr, dst);
    i.set(Field::count, count);
    return i;
  };
  h.op(op(Opcode::Quantize, 3, 0.5f, 3, 0, 256, 8));
  h.op(op(Opcode::Quantize, 2, 0.5f, -3, 64, 320, 8));
  h.op(op(Opcode::Dequantize, 3, 0.1f, 3, 128, 384, 8));
  h.op(op(Opcode::Dequantize, 2, 0.1f, 3, 128, 448, 8));
  h.op(op(Opcode::Quantize, 3, 0.5f, 0, 0, 0, 8));  // in place (narrowing)
  h.get(0, 512);
  h.run();
  CHECK(h.read<std::int8_t>(256, 8) == std::vector<std::int8_t>{2 + 3, 4 + 3, -2 + 3, 0 + 3, 127, -128, 3, 3});
  CHECK(h.read<std::int8_t>(320, 8) == std::vector<std::int8_t>{2 - 3, 4 - 3, -2 - 3, 0 - 3, 127, -128, -3, -3});
  CHECK(h.read<std::int8_t>(0, 8) == std::vector<std::int8_t>{2, 4, -2, 0, 127, -128, 0, 0});
  const auto d = h.read<float>(384, 8);
  const auto dh = h.read<std::uint16_t>(448, 8);
  for (int i = 0; i < 8; ++i) {
    const float want = static_cast<float>(q[i] - 3) * 0.1f;
    CHECK(d[i] == want);
    CHECK(dh[i] == isa::float_to_half(want));
  }
}

TEST_CASE("gemm int8 subtracts zero points and reads B transposed", "[functional][mac][gemm]") {
  Rng rng;
  const int m = 9, n = 21, k = 35;
  auto a = random_vector<std::int8_t>(rng, m * k, -128, 127);
  auto b = random_vector<std::int8_t>(rng, k * n, -128, 127);
  std::vector<std::int8_t> bt(n * k);
  for (int p = 0; p < k; ++p)
    for (int j = 0; j < n; ++j) bt[j * k + p] = b[p * n + j];
  std::vector<std::int32_t> c0 = random_vector<std::int32_t>(rng, m * n, -1000, 1000);
  Harness h;
  h.put(0, a);
  h.put(0x1000, b);
  h.put(0x2000, bt);
  h.put(0x4000, c0);
  auto g1 = gemm(0, 0x1000, 0x3000, m, n, k);
  g1.set(Field::a_zero_point, -128);
  g1.set(Field::b_zero_point, 5);
  auto g2 = gemm(0, 0x2000, 0x4000, m, n, k, false, /*accumulate=*/true);
  g2.set(Field::b_transposed, 1);
  g2.set(Field::a_zero_point, 7);
  g2.set(Field::b_zero_point, -3);
  h.op(g1);
  h.op(g2);
  h.get(0x3000, m * n * 4);
  h.get(0x4000, m * n * 4);
  h.run();
  const auto y1 = h.read<std::int32_t>(0x3000, m * n), y2 = h.read<std::int32_t>(0x4000, m * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      std::int64_t s1 = 0, s2 = c0[i * n + j];
      for (int p = 0; p < k; ++p) {
        s1 += (a[i * k + p] + 128) * (b[p * n + j] - 5);
        s2 += (a[i * k + p] - 7) * (b[p * n + j] + 3);
      }
      REQUIRE(y1[i * n + j] == s1);
      REQUIRE(y2[i * n + j] == s2);
    }
}

TEST_CASE("gemm fp16 with B transposed equals the plain layout", "[functional][mac][gemm]") {
  Rng rng;
  const int m = 5, n = 17, k = 24;
  std::vector<std::uint16_t> a(m * k), b(k * n), bt(n * k);
  for (auto& v : a) v = isa::float_to_half(rng.f(-2, 2));
  for (auto& v : b) v = isa::float_to_half(rng.f(-2, 2));
  for (int p = 0; p < k; ++p)
    for (int j = 0; j < n; ++j) bt[j * k + p] = b[p * n + j];
  Harness h;
  h.put(0, a);
  h.put(0x1000, b);
  h.put(0x2000, bt);
  h.op(gemm(0, 0x1000, 0x3000, m, n, k, true));
  auto g = gemm(0, 0x2000, 0x4000, m, n, k, true);
  g.set(Field::b_transposed, 1);
  h.op(g);
  h.get(0x3000, m * n * 4);
  h.get(0x4000, m * n * 4);
  h.run();
  CHECK(h.read<float>(0x3000, m * n) == h.read<float>(0x4000, m * n));
}
