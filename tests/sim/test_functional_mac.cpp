// MAC-array arithmetic against plain C++ references, bit-exact for int8.
#include <cmath>

#include "costmodel/mac_shapes.h"
#include "isa/fp16.h"
#include "tests/sim/functional_harness.h"

using namespace simtest;
namespace isa = npu::isa;

namespace {

std::vector<std::int32_t> ref_gemm(const std::vector<std::int8_t>& a, const std::vector<std::int8_t>& b, int m, int n,
                                   int k) {
  std::vector<std::int32_t> c(static_cast<std::size_t>(m) * n, 0);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      std::int32_t s = 0;
      for (int p = 0; p < k; ++p) s += a[i * k + p] * b[p * n + j];
      c[i * n + j] = s;
    }
  return c;
}

struct ConvCase {
  int in_h, in_w, in_c, out_c, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, groups, pad_value;
};

int out_dim(int in, int pads, int k, int d, int s) { return (in + pads - d * (k - 1) - 1) / s + 1; }

// Direct definition: out[oy][ox][g*cout_g + co] = sum over ky, kx, ci of
// in(oy*sh + ky*dh - pt, ox*sw + kx*dw - pl, g*cin_g + ci) * w[g][ky][kx][ci][co].
std::vector<std::int32_t> ref_conv(const ConvCase& c, const std::vector<std::int8_t>& in, const std::vector<std::int8_t>& w) {
  const int oh = out_dim(c.in_h, c.pt + c.pb, c.kh, c.dh, c.sh), ow = out_dim(c.in_w, c.pl + c.pr, c.kw, c.dw, c.sw);
  const int cin_g = c.in_c / c.groups, cout_g = c.out_c / c.groups;
  std::vector<std::int32_t> out(static_cast<std::size_t>(oh) * ow * c.out_c, 0);
  for (int oy = 0; oy < oh; ++oy)
    for (int ox = 0; ox < ow; ++ox)
      for (int g = 0; g < c.groups; ++g)
        for (int co = 0; co < cout_g; ++co) {
          std::int32_t s = 0;
          for (int ky = 0; ky < c.kh; ++ky)
            for (int kx = 0; kx < c.kw; ++kx)
              for (int ci = 0; ci < cin_g; ++ci) {
                const int iy = oy * c.sh + ky * c.dh - c.pt, ix = ox * c.sw + kx * c.dw - c.pl;
                const bool inside = iy >= 0 && iy < c.in_h && ix >= 0 && ix < c.in_w;
                const int x = inside ? in[(iy * c.in_w + ix) * c.in_c + g * cin_g + ci] : c.pad_value;
                s += x * w[(((g * c.kh + ky) * c.kw + kx) * cin_g + ci) * cout_g + co];
              }
          out[(oy * ow + ox) * c.out_c + g * cout_g + co] = s;
        }
  return out;
}

void check_conv(const ConvCase& c, npu::cost::ArrayMapping mapping = {}) {
  Rng rng;
  auto in = random_vector<std::int8_t>(rng, static_cast<std::size_t>(c.in_h) * c.in_w * c.in_c, -128, 127);
  auto w = random_vector<std::int8_t>(rng, static_cast<std::size_t>(c.kh) * c.kw * (c.in_c / c.groups) * c.out_c, -128, 127);
  const int oh = out_dim(c.in_h, c.pt + c.pb, c.kh, c.dh, c.sh), ow = out_dim(c.in_w, c.pl + c.pr, c.kw, c.dw, c.sw);
  const std::uint64_t IN = 0, W = 0x10000, OUT = 0x20000;
  Harness h;
  h.put(IN, in);
  h.put(W, w);
  auto i = make(Opcode::Conv);
  i.set(Field::in_addr, IN);
  i.set(Field::w_addr, W);
  i.set(Field::out_addr, OUT);
  i.set(Field::in_h, c.in_h);
  i.set(Field::in_w, c.in_w);
  i.set(Field::in_c, c.in_c);
  i.set(Field::out_c, c.out_c);
  i.set(Field::kernel_h, c.kh);
  i.set(Field::kernel_w, c.kw);
  i.set(Field::stride_h, c.sh);
  i.set(Field::stride_w, c.sw);
  i.set(Field::dilation_h, c.dh);
  i.set(Field::dilation_w, c.dw);
  i.set(Field::pad_top, c.pt);
  i.set(Field::pad_left, c.pl);
  i.set(Field::pad_bottom, c.pb);
  i.set(Field::pad_right, c.pr);
  i.set(Field::groups, c.groups);
  i.set(Field::pad_value, c.pad_value);
  i.set(Field::swap, mapping.swap ? 1 : 0);
  i.set(Field::depthwise, mapping.depthwise ? 1 : 0);
  h.op(i);
  const std::size_t n = static_cast<std::size_t>(oh) * ow * c.out_c;
  h.get(OUT, n * 4);
  auto r = h.run();
  CHECK(h.read<std::int32_t>(OUT, n) == ref_conv(c, in, w));
  // MACs: out_h*out_w*out_c*kh*kw*in_c/groups.
  CHECK(r.macs == static_cast<std::uint64_t>(oh) * ow * c.out_c * c.kh * c.kw * (c.in_c / c.groups));
}

}  // namespace

TEST_CASE("int8 gemm matches the reference, with overwrite and accumulate", "[functional][mac]") {
  Rng rng;
  const int m = 37, n = 29, k = 53;
  auto a = random_vector<std::int8_t>(rng, m * k, -128, 127);
  auto b = random_vector<std::int8_t>(rng, k * n, -128, 127);
  Harness h;
  h.put(0, a);
  h.put(4096, b);
  h.op(gemm(0, 4096, 8192, m, n, k));
  h.op(gemm(0, 4096, 16384, m, n, k));
  h.op(gemm(0, 4096, 16384, m, n, k, false, true));  // accumulate: 2 * A*B
  h.get(8192, m * n * 4);
  h.get(16384, m * n * 4);
  auto r = h.run();
  const auto ref = ref_gemm(a, b, m, n, k);
  CHECK(h.read<std::int32_t>(8192, m * n) == ref);
  auto twice = ref;
  for (auto& x : twice) x *= 2;
  CHECK(h.read<std::int32_t>(16384, m * n) == twice);
  CHECK(r.int8_macs == 3ull * m * n * k);
  CHECK(r.sram_peak_bytes == 16384 + m * n * 4);
}

TEST_CASE("int8 conv: padding, stride, dilation", "[functional][mac]") {
  check_conv({9, 11, 8, 12, 3, 3, 2, 1, 1, 2, 1, 2, 0, 1, 1, -3});
  check_conv({7, 7, 3, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0});       // 1x1
  check_conv({10, 8, 4, 16, 5, 3, 3, 2, 2, 1, 4, 1, 3, 1, 1, 127});   // big pads, pad_value 127
}

TEST_CASE("int8 conv: groups and depthwise", "[functional][mac]") {
  check_conv({9, 11, 8, 12, 3, 3, 1, 2, 1, 1, 1, 1, 1, 1, 4, 2});     // 4 groups, 2 in -> 3 out each
  check_conv({12, 10, 16, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 16, 5});  // depthwise, pad_value 5
  check_conv({12, 10, 16, 16, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 16, -1}); // depthwise, stride/dilation 2
}

TEST_CASE("the swap and depthwise mappings compute the same values", "[functional][mac]") {
  check_conv({9, 11, 8, 12, 3, 3, 2, 1, 1, 2, 1, 2, 0, 1, 1, -3}, {true, false});
  check_conv({12, 10, 16, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 16, 5}, {false, true});
  check_conv({12, 10, 16, 16, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 16, -1}, {true, true});
  Rng rng;
  const int m = 3, n = 40, k = 21;
  auto a = random_vector<std::int8_t>(rng, m * k, -128, 127);
  auto b = random_vector<std::int8_t>(rng, k * n, -128, 127);
  Harness h;
  h.put(0, a);
  h.put(4096, b);
  auto swapped = gemm(0, 4096, 8192, m, n, k);
  swapped.set(Field::swap, 1);
  h.op(swapped);
  h.get(8192, m * n * 4);
  h.run();
  CHECK(h.read<std::int32_t>(8192, m * n) == ref_gemm(a, b, m, n, k));
}

TEST_CASE("fp16 gemm matches a float reference", "[functional][mac][fp16]") {
  Rng rng;
  const int m = 20, n = 33, k = 70;
  std::vector<std::uint16_t> a(m * k), b(k * n);
  std::vector<double> af(m * k), bf(k * n);
  for (int i = 0; i < m * k; ++i) af[i] = isa::half_to_float(a[i] = isa::float_to_half(rng.f(-2, 2)));
  for (int i = 0; i < k * n; ++i) bf[i] = isa::half_to_float(b[i] = isa::float_to_half(rng.f(-2, 2)));
  Harness h;
  h.put(0, a);
  h.put(4096, b);
  h.op(gemm(0, 4096, 16384, m, n, k, true));
  h.get(16384, m * n * 4);
  auto r = h.run();
  auto c = h.read<float>(16384, m * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int p = 0; p < k; ++p) s += af[i * k + p] * bf[p * n + j];
      CHECK(c[i * n + j] == Approx(s).margin(1e-4).epsilon(1e-5));
    }
  CHECK(r.fp16_macs == static_cast<std::uint64_t>(m) * n * k);
}

TEST_CASE("fp16 conv matches a float reference", "[functional][mac][fp16]") {
  Rng rng;
  const int H = 6, W = 5, C = 4, O = 6;
  std::vector<std::uint16_t> in(H * W * C), w(3 * 3 * C * O);
  for (auto& x : in) x = isa::float_to_half(rng.f(-1, 1));
  for (auto& x : w) x = isa::float_to_half(rng.f(-1, 1));
  Harness h;
  h.put(0, in);
  h.put(4096, w);
  auto i = conv3x3_same(0, 4096, 8192, H, W, C, O);
  i.set(Field::mac_dtype, 1);
  h.op(i);
  h.get(8192, H * W * O * 4);
  h.run();
  auto out = h.read<float>(8192, H * W * O);
  for (int oy = 0; oy < H; ++oy)
    for (int ox = 0; ox < W; ++ox)
      for (int o = 0; o < O; ++o) {
        double s = 0;
        for (int ky = 0; ky < 3; ++ky)
          for (int kx = 0; kx < 3; ++kx)
            for (int c = 0; c < C; ++c) {
              const int iy = oy + ky - 1, ix = ox + kx - 1;
              if (iy < 0 || ix < 0 || iy >= H || ix >= W) continue;  // fp16 pads with 0
              s += isa::half_to_float(in[(iy * W + ix) * C + c]) * isa::half_to_float(w[((ky * 3 + kx) * C + c) * O + o]);
            }
        CHECK(out[(oy * W + ox) * O + o] == Approx(s).margin(1e-5));
      }
}

TEST_CASE("fp16 conversion rounds to nearest even and keeps specials", "[fp16]") {
  // Every finite half survives half -> float -> half.
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const auto x = static_cast<std::uint16_t>(h);
    const float f = isa::half_to_float(x);
    if (std::isnan(f)) {
      CHECK(std::isnan(isa::half_to_float(isa::float_to_half(f))));
      continue;
    }
    REQUIRE(isa::float_to_half(f) == x);
  }
  CHECK(isa::float_to_half(65504.0f) == 0x7bff);
  CHECK(isa::float_to_half(65519.99f) == 0x7bff);
  CHECK(isa::float_to_half(65520.0f) == 0x7c00);  // tie between 65504 and 65536 rounds to even: inf
  CHECK(isa::float_to_half(-1e9f) == 0xfc00);
  CHECK(isa::float_to_half(1.0f + 1.0f / 2048) == 0x3c00);  // tie -> even (1.0)
  CHECK(isa::float_to_half(1.0f + 3.0f / 2048) == 0x3c02);  // tie -> even (up)
  CHECK(isa::float_to_half(std::ldexp(1.0f, -24)) == 0x0001);  // smallest subnormal
  CHECK(isa::float_to_half(std::ldexp(1.0f, -25)) == 0x0000);  // tie -> even (0)
  CHECK(isa::float_to_half(std::ldexp(3.0f, -26)) == 0x0001);  // 0.75 ulp -> 1
  CHECK(isa::float_to_half(std::ldexp(3.0f, -25)) == 0x0002);  // 1.5 ulp -> tie -> 2
  CHECK(isa::float_to_half(std::ldexp(1.0f, -14) - std::ldexp(1.0f, -26)) == 0x0400);  // rounds up to min normal
  CHECK(isa::float_to_half(-0.0f) == 0x8000);
  CHECK(isa::float_to_half(INFINITY) == 0x7c00);
  CHECK((isa::float_to_half(NAN) & 0x7e00) == 0x7e00);
}

TEST_CASE("int8 conv with in_stride reads a channel slice of a wider NHWC tensor in place", "[functional][mac]") {
  // A 6x5 tensor of 136 channels; the conv reads channels [64, 72) (in_c 8, in_stride 136) and must
  // equal the same conv over those channels copied out.
  Rng rng;
  const int h = 6, w = 5, wide = 136, c0 = 64, c = 8, oc = 7;  // c0: an aligned address
  auto all = random_vector<std::int8_t>(rng, static_cast<std::size_t>(h) * w * wide, -128, 127);
  std::vector<std::int8_t> slice;
  for (int p = 0; p < h * w; ++p)
    for (int ch = 0; ch < c; ++ch) slice.push_back(all[static_cast<std::size_t>(p * wide + c0 + ch)]);
  auto wts = random_vector<std::int8_t>(rng, static_cast<std::size_t>(9) * c * oc, -128, 127);
  const ConvCase cc{h, w, c, oc, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, -7};
  const std::uint64_t IN = 0, W = 0x10000, OUT = 0x20000;
  Harness hs;
  hs.put(IN, all);
  hs.put(W, wts);
  auto i = conv3x3_same(IN + c0, W, OUT, h, w, c, oc);
  i.set(Field::pad_value, -7);
  i.set(Field::in_stride, wide);
  hs.op(i);
  hs.get(OUT, static_cast<std::size_t>(h) * w * oc * 4);
  hs.run();
  CHECK(hs.read<std::int32_t>(OUT, static_cast<std::size_t>(h) * w * oc) == ref_conv(cc, slice, wts));
}
