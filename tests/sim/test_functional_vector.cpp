// Vector-unit arithmetic against plain C++ references (integers bit-exact).
#include <cmath>
#include <functional>

#include "isa/fp16.h"
#include "tests/sim/functional_harness.h"

using namespace simtest;
namespace isa = npu::isa;
using npu::isa::DType;

namespace {

// floor((v) / 2^shift) computed independently with 128-bit division.
std::int64_t floor_shift(__int128 v, int shift) {
  const __int128 d = static_cast<__int128>(1) << shift;
  __int128 q = v / d;
  if (v % d != 0 && v < 0) --q;
  return static_cast<std::int64_t>(q);
}

std::int8_t clamp8(std::int64_t v, std::int64_t lo, std::int64_t hi) {
  return static_cast<std::int8_t>(v < lo ? lo : v > hi ? hi : v);
}

}  // namespace

TEST_CASE("requant: per-channel multiplier and shift, rounding half up, clamp", "[functional][vector]") {
  Rng rng;
  const int count = 1000, channels = 7;
  auto x = random_vector<std::int32_t>(rng, count, -2000000000, 2000000000);
  x[0] = INT32_MIN;
  x[1] = INT32_MAX;
  std::vector<std::int32_t> params;
  const int shifts[channels] = {0, 1, 8, 31, 40, 62, 20};
  for (int c = 0; c < channels; ++c) {
    params.push_back(c == 3 ? INT32_MIN : rng.i32(-2000000000, 2000000000));
    params.push_back(shifts[c]);
  }
  Harness h;
  h.put(0, x);
  h.put(8192, params);
  auto i = make(Opcode::Requantize);
  i.set(Field::src_addr, 0);
  i.set(Field::param_addr, 8192);
  i.set(Field::dst_addr, 16384);
  i.set(Field::count, count);
  i.set(Field::channels, channels);
  i.set(Field::zero_point, -5);
  i.set(Field::clamp_min, -100);
  i.set(Field::clamp_max, 120);
  h.op(i);
  h.get(16384, count);
  auto r = h.run();
  auto y = h.read<std::int8_t>(16384, count);
  for (int k = 0; k < count; ++k) {
    const int c = k % channels, s = params[2 * c + 1];
    const __int128 v = static_cast<__int128>(x[k]) * params[2 * c] + (s ? (static_cast<__int128>(1) << (s - 1)) : 0);
    REQUIRE(y[k] == clamp8(floor_shift(v, s) - 5, -100, 120));
  }
  // Timing: latency 4 + ceil(1000 / 16) = 67 cycles.
  CHECK(r.vector.busy_cycles == 4 + 63);
}

TEST_CASE("qadd: two scales, rounding half up, clamp", "[functional][vector]") {
  Rng rng;
  const int count = 777;
  auto a = random_vector<std::int8_t>(rng, count, -128, 127);
  auto b = random_vector<std::int8_t>(rng, count, -128, 127);
  Harness h;
  h.put(0, a);
  h.put(1024, b);
  auto i = make(Opcode::QuantizedAdd);
  i.set(Field::a_addr, 0);
  i.set(Field::b_addr, 1024);
  i.set(Field::dst_addr, 2048);
  i.set(Field::count, count);
  i.set(Field::a_zero_point, 3);
  i.set(Field::b_zero_point, -7);
  i.set(Field::zero_point, 10);
  i.set(Field::a_multiplier, 1518500250);
  i.set(Field::b_multiplier, -1073741824);
  i.set(Field::shift, 31);
  i.set(Field::clamp_min, -128);
  i.set(Field::clamp_max, 127);
  h.op(i);
  h.get(2048, count);
  h.run();
  auto y = h.read<std::int8_t>(2048, count);
  for (int k = 0; k < count; ++k) {
    const __int128 v = static_cast<__int128>(a[k] - 3) * 1518500250 + static_cast<__int128>(b[k] + 7) * -1073741824 +
                       (static_cast<__int128>(1) << 30);
    REQUIRE(y[k] == clamp8(floor_shift(v, 31) + 10, -128, 127));
  }
}

TEST_CASE("lut: table indexed by the unsigned byte", "[functional][vector]") {
  Rng rng;
  auto x = random_vector<std::int8_t>(rng, 300, -128, 127);
  auto table = random_vector<std::int8_t>(rng, 256, -128, 127);
  Harness h;
  h.put(0, x);
  h.put(1024, table);
  auto i = make(Opcode::Lut);
  i.set(Field::src_addr, 0);
  i.set(Field::table_addr, 1024);
  i.set(Field::dst_addr, 2048);
  i.set(Field::count, 300);
  h.op(i);
  h.get(2048, 300);
  h.run();
  auto y = h.read<std::int8_t>(2048, 300);
  for (int k = 0; k < 300; ++k) REQUIRE(y[k] == table[static_cast<std::uint8_t>(x[k])]);
}

namespace {

struct PoolCase {
  int in_h, in_w, c, kh, kw, sh, sw, pt, pl, pb, pr, mode, include_pad, pad_value;
};

// Reference: max reads pad_value at padded positions; average adds pad_value per counted
// padded position, divides by the count and rounds half away from zero.
std::vector<std::int8_t> ref_pool(const PoolCase& p, const std::vector<std::int8_t>& x) {
  const int oh = (p.in_h + p.pt + p.pb - p.kh) / p.sh + 1, ow = (p.in_w + p.pl + p.pr - p.kw) / p.sw + 1;
  std::vector<std::int8_t> y;
  for (int oy = 0; oy < oh; ++oy)
    for (int ox = 0; ox < ow; ++ox)
      for (int ch = 0; ch < p.c; ++ch) {
        int best = -1000, sum = 0, n = 0;
        for (int ky = 0; ky < p.kh; ++ky)
          for (int kx = 0; kx < p.kw; ++kx) {
            const int iy = oy * p.sh + ky - p.pt, ix = ox * p.sw + kx - p.pl;
            const bool inside = iy >= 0 && ix >= 0 && iy < p.in_h && ix < p.in_w;
            if (!inside && p.mode == 1 && !p.include_pad) continue;
            const int v = inside ? x[(iy * p.in_w + ix) * p.c + ch] : p.pad_value;
            best = std::max(best, v);
            sum += v;
            ++n;
          }
        if (p.mode == 0) {
          y.push_back(static_cast<std::int8_t>(best));
        } else {
          const double q = static_cast<double>(sum) / n;
          y.push_back(static_cast<std::int8_t>(q >= 0 ? std::floor(q + 0.5) : -std::floor(-q + 0.5)));
        }
      }
  return y;
}

void check_pool(const PoolCase& p) {
  Rng rng;
  auto x = random_vector<std::int8_t>(rng, static_cast<std::size_t>(p.in_h) * p.in_w * p.c, -128, 127);
  Harness h;
  h.put(0, x);
  auto i = make(Opcode::Pool);
  i.set(Field::dtype, 0);
  i.set(Field::mode, p.mode);
  i.set(Field::count_include_pad, p.include_pad);
  i.set(Field::src_addr, 0);
  i.set(Field::dst_addr, 0x8000);
  i.set(Field::in_h, p.in_h);
  i.set(Field::in_w, p.in_w);
  i.set(Field::channels, p.c);
  i.set(Field::kernel_h, p.kh);
  i.set(Field::kernel_w, p.kw);
  i.set(Field::stride_h, p.sh);
  i.set(Field::stride_w, p.sw);
  i.set(Field::pad_top, p.pt);
  i.set(Field::pad_left, p.pl);
  i.set(Field::pad_bottom, p.pb);
  i.set(Field::pad_right, p.pr);
  i.set(Field::pad_value, p.pad_value);
  h.op(i);
  const auto ref = ref_pool(p, x);
  h.get(0x8000, ref.size());
  auto r = h.run();
  CHECK(h.read<std::int8_t>(0x8000, ref.size()) == ref);
  // latency + ceil(out_h*out_w*c*kh*kw / lanes)
  const std::uint64_t work = ref.size() * p.kh * p.kw;
  CHECK(r.vector.busy_cycles == 4 + (work + 15) / 16);
}

}  // namespace

TEST_CASE("pool: max and average with padding", "[functional][vector]") {
  check_pool({9, 10, 5, 3, 3, 2, 2, 1, 1, 1, 1, 0, 0, -128});  // max, pad never wins
  check_pool({6, 6, 3, 2, 2, 2, 2, 1, 0, 1, 0, 0, 0, 100});    // max, pad 100 wins at the edge
  check_pool({9, 10, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 0, 0});     // avg, pads skipped
  check_pool({9, 10, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, -3});    // avg, pads counted as -3
  check_pool({7, 7, 16, 7, 7, 1, 1, 0, 0, 0, 0, 1, 0, 0});     // global average
}

TEST_CASE("element-wise ops saturate, round half to even and keep fp semantics", "[functional][vector]") {
  Harness h;
  const std::vector<std::int8_t> a8 = {100, -100, 7, -128, 127, 0, 5, -5};
  const std::vector<std::int8_t> b8 = {100, -100, -8, -1, 1, 0, 30, 30};
  const std::vector<std::int32_t> a32 = {2000000000, -2000000000, 65536, 3};
  const std::vector<std::int32_t> b32 = {2000000000, -2000000000, 65536, -4};
  const std::vector<float> f = {2.5f, 3.5f, -2.5f, -0.5f, 1e10f, -1e10f, NAN, 127.49f};
  h.put(0, a8);
  h.put(64, b8);
  h.put(128, a32);
  h.put(192, b32);
  h.put(256, f);
  auto elt = [](Opcode op, int dtype, std::uint64_t a, std::uint64_t b, std::uint64_t d, int n) {
    auto i = make(op);
    i.set(Field::dtype, dtype);
    i.set(Field::a_addr, a);
    i.set(Field::b_addr, b);
    i.set(Field::dst_addr, d);
    i.set(Field::count, n);
    return i;
  };
  auto cast = [](int s, int d, std::uint64_t src, std::uint64_t dst, int n) {
    auto i = make(Opcode::Cast);
    i.set(Field::src_dtype, s);
    i.set(Field::dst_dtype, d);
    i.set(Field::src_addr, src);
    i.set(Field::dst_addr, dst);
    i.set(Field::count, n);
    return i;
  };
  h.op(elt(Opcode::Add, 0, 0, 64, 1024, 8));
  h.op(elt(Opcode::Mul, 0, 0, 64, 1088, 8));
  h.op(elt(Opcode::Add, 1, 128, 192, 1152, 4));
  h.op(elt(Opcode::Mul, 1, 128, 192, 1216, 4));
  h.op(cast(3, 0, 256, 1280, 8));  // fp32 -> int8
  h.op(cast(3, 2, 256, 1344, 8));  // fp32 -> fp16
  h.op(cast(0, 1, 0, 1408, 8));    // int8 -> int32
  auto clip = make(Opcode::Clip);
  clip.set(Field::dtype, 0);
  clip.set(Field::src_addr, 0);
  clip.set(Field::dst_addr, 1472);
  clip.set(Field::count, 8);
  clip.set_float(Field::lo, 0.0f);
  clip.set_float(Field::hi, 6.0f);
  h.op(clip);
  auto bias = make(Opcode::BiasAdd);
  bias.set(Field::dtype, 1);
  bias.set(Field::src_addr, 128);
  bias.set(Field::param_addr, 192);
  bias.set(Field::dst_addr, 1536);
  bias.set(Field::count, 4);
  bias.set(Field::channels, 2);
  h.op(bias);
  h.get(1024, 1600 - 1024);
  h.run();
  CHECK(h.read<std::int8_t>(1024, 8) == std::vector<std::int8_t>{127, -128, -1, -128, 127, 0, 35, 25});
  CHECK(h.read<std::int8_t>(1088, 8) == std::vector<std::int8_t>{127, 127, -56, 127, 127, 0, 127, -128});
  CHECK(h.read<std::int32_t>(1152, 4) == std::vector<std::int32_t>{INT32_MAX, INT32_MIN, 131072, -1});
  CHECK(h.read<std::int32_t>(1216, 4) == std::vector<std::int32_t>{INT32_MAX, INT32_MAX, INT32_MAX, -12});
  // 2.5 -> 2, 3.5 -> 4, -2.5 -> -2, -0.5 -> 0 (half to even), saturate, NaN -> 0, 127.49 -> 127.
  CHECK(h.read<std::int8_t>(1280, 8) == std::vector<std::int8_t>{2, 4, -2, 0, 127, -128, 0, 127});
  const auto halves = h.read<std::uint16_t>(1344, 8);
  CHECK(halves[0] == isa::float_to_half(2.5f));
  CHECK(halves[4] == 0x7c00);  // 1e10 overflows to +inf
  CHECK(halves[5] == 0xfc00);
  CHECK(std::isnan(isa::half_to_float(halves[6])));
  CHECK(h.read<std::int32_t>(1408, 8) == std::vector<std::int32_t>{100, -100, 7, -128, 127, 0, 5, -5});
  CHECK(h.read<std::int8_t>(1472, 8) == std::vector<std::int8_t>{6, 0, 6, 0, 6, 0, 5, 0});
  // bias: x + param[i % 2] with params {2000000000, -2000000000}, saturating.
  CHECK(h.read<std::int32_t>(1536, 4) == std::vector<std::int32_t>{INT32_MAX, INT32_MIN, 2000065536, -1999999997});
}

TEST_CASE("activations and softmax in fp32 and fp16", "[functional][vector]") {
  const std::vector<float> x = {-3.0f, -1.0f, -0.25f, 0.0f, 0.5f, 1.0f, 2.0f, 4.0f};
  Harness h;
  h.put(0, x);
  std::vector<std::uint16_t> xh;
  for (float v : x) xh.push_back(isa::float_to_half(v));
  h.put(64, xh);
  auto act = [](int fn, int dtype, std::uint64_t src, std::uint64_t dst) {
    auto i = make(Opcode::Activation);
    i.set(Field::dtype, dtype);
    i.set(Field::function, fn);
    i.set(Field::src_addr, src);
    i.set(Field::dst_addr, dst);
    i.set(Field::count, 8);
    i.set_float(Field::alpha, 0.2f);
    i.set_float(Field::beta, 0.5f);
    return i;
  };
  for (int fn = 0; fn <= 6; ++fn) h.op(act(fn, 3, 0, 1024 + 64 * fn));
  h.op(act(4, 2, 64, 2048));  // silu in fp16
  auto sm = make(Opcode::Softmax);
  sm.set(Field::dtype, 3);
  sm.set(Field::src_addr, 0);
  sm.set(Field::dst_addr, 2112);
  sm.set(Field::rows, 2);
  sm.set(Field::cols, 4);
  h.op(sm);
  h.get(1024, 2176 - 1024);
  auto r = h.run();
  auto sig = [](double v) { return 1.0 / (1.0 + std::exp(-v)); };
  const std::function<double(double)> fns[] = {
      sig,
      [](double v) { return std::tanh(v); },
      [](double v) { return std::max(0.0, std::min(1.0, 0.2 * v + 0.5)); },
      [](double v) { return v * std::max(0.0, std::min(1.0, v / 6 + 0.5)); },
      [&](double v) { return v * sig(v); },
      [](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); },
      [](double v) { return std::exp(v); }};
  for (int fn = 0; fn <= 6; ++fn) {
    auto y = h.read<float>(1024 + 64 * fn, 8);
    for (int k = 0; k < 8; ++k) CHECK(y[k] == Approx(fns[fn](x[k])).epsilon(1e-5).margin(1e-6));
  }
  auto yh = h.read<std::uint16_t>(2048, 8);
  for (int k = 0; k < 8; ++k) CHECK(isa::half_to_float(yh[k]) == Approx(x[k] * sig(x[k])).epsilon(1e-3).margin(1e-3));
  auto s = h.read<float>(2112, 8);
  for (int row = 0; row < 2; ++row) {
    double sum = 0;
    for (int j = 0; j < 4; ++j) sum += std::exp(x[row * 4 + j]);
    for (int j = 0; j < 4; ++j) CHECK(s[row * 4 + j] == Approx(std::exp(x[row * 4 + j]) / sum).epsilon(1e-5));
  }
  // act: 4 + passes*ceil(8/16): 8 cycles for the 4-pass functions (6 of them: sigmoid, tanh,
  // silu, gelu, exp, silu fp16), 5 for hardsigmoid and hardswish (1 pass); softmax:
  // 4 + 3*2*ceil(4/16) = 10.
  CHECK(r.vector.busy_cycles == 6 * 8 + 2 * 5 + 10);
}
