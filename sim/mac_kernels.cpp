// Functional MAC-array kernels. Loop orders keep the innermost loop over contiguous output
// columns (n, or out channels per group) so the compiler vectorises it; int32 sums use
// unsigned arithmetic so overflow wraps (defined) exactly like a hardware accumulator.
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "isa/fp16.h"
#include "sim/mac_array.h"

namespace npu::sim {
namespace {

template <typename T>
T* at(std::uint8_t* sram, std::uint64_t addr) {
  return reinterpret_cast<T*>(sram + addr);
}

std::vector<float> halves_to_floats(const std::uint8_t* src, std::uint64_t count) {
  std::vector<float> out(count);
  const auto* h = reinterpret_cast<const std::uint16_t*>(src);
  for (std::uint64_t i = 0; i < count; ++i) out[i] = isa::half_to_float(h[i]);
  return out;
}

// acc[j] += a * b[j] for j < n. int8: wrapping int32 (as uint32); fp16: fp32.
inline void axpy(std::uint32_t* acc, std::int8_t a, const std::int8_t* b, std::uint64_t n) {
  const std::int32_t av = a;
  for (std::uint64_t j = 0; j < n; ++j) acc[j] += static_cast<std::uint32_t>(av * b[j]);
}
// Operands with their zero points subtracted: |a - za| <= 255, so the product fits int32.
inline void axpy(std::uint32_t* acc, std::int16_t a, const std::int16_t* b, std::uint64_t n) {
  const std::int32_t av = a;
  for (std::uint64_t j = 0; j < n; ++j) acc[j] += static_cast<std::uint32_t>(av * b[j]);
}
inline void axpy(float* acc, float a, const float* b, std::uint64_t n) {
  for (std::uint64_t j = 0; j < n; ++j) acc[j] += a * b[j];
}

template <typename In, typename Acc>
void gemm_kernel(const In* a, const In* b, Acc* c, const GemmShape& s) {
  for (std::uint64_t i = 0; i < s.m; ++i) {
    Acc* crow = c + i * s.n;
    if (!s.accumulate) std::fill(crow, crow + s.n, Acc{0});
    const In* arow = a + i * s.k;
    for (std::uint64_t p = 0; p < s.k; ++p) {
      if (std::is_integral_v<In> && arow[p] == In{0}) continue;  // exact for integers only
      axpy(crow, arow[p], b + p * s.n, s.n);
    }
  }
}

// The input pixel (from channel_offset on) that kernel tap (ky, kx) of output (oy, ox) reads —
// the array's own im2col addressing — or the padding row when the tap falls outside the tile.
template <typename In>
const In* tap_input(const In* in, const ConvShape& s, std::uint64_t oy, std::uint64_t ox, std::uint64_t ky,
                    std::uint64_t kx, std::uint64_t channel_offset, const In* pad_row) {
  const std::int64_t iy = static_cast<std::int64_t>(oy * s.stride_h + ky * s.dilation_h) -
                          static_cast<std::int64_t>(s.pad_top);
  const std::int64_t ix = static_cast<std::int64_t>(ox * s.stride_w + kx * s.dilation_w) -
                          static_cast<std::int64_t>(s.pad_left);
  const bool inside = iy >= 0 && ix >= 0 && iy < static_cast<std::int64_t>(s.in_h) && ix < static_cast<std::int64_t>(s.in_w);
  if (!inside) return pad_row;
  return in + (static_cast<std::uint64_t>(iy) * s.in_w + static_cast<std::uint64_t>(ix)) * s.pixel_stride() + channel_offset;
}

// General grouped convolution, NHWC input, weights [g][kh][kw][cin/g][cout/g], output
// [out_h][out_w][out_c] accumulators. Padding positions read `pad`.
template <typename In, typename Acc>
void conv_kernel(const In* in, const In* w, Acc* out, const ConvShape& s, In pad) {
  const std::uint64_t cin_g = s.in_c_per_group(), cout_g = s.out_c_per_group();
  std::vector<In> pad_row(cin_g, pad);
  for (std::uint64_t oy = 0; oy < s.out_h; ++oy)
    for (std::uint64_t ox = 0; ox < s.out_w; ++ox) {
      Acc* o = out + (oy * s.out_w + ox) * s.out_c;
      if (!s.accumulate) std::fill(o, o + s.out_c, Acc{0});
      for (std::uint64_t g = 0; g < s.groups; ++g) {
        Acc* og = o + g * cout_g;
        for (std::uint64_t ky = 0; ky < s.kernel_h; ++ky) {
          for (std::uint64_t kx = 0; kx < s.kernel_w; ++kx) {
            const In* src = tap_input(in, s, oy, ox, ky, kx, g * cin_g, pad_row.data());
            const In* wk = w + (((g * s.kernel_h + ky) * s.kernel_w + kx) * cin_g) * cout_g;
            for (std::uint64_t ci = 0; ci < cin_g; ++ci)
              if (!std::is_integral_v<In> || src[ci] != In{0}) axpy(og, src[ci], wk + ci * cout_g, cout_g);
          }
        }
      }
    }
}

// Depthwise (one input and one output channel per group): vectorise over channels instead,
// with the weights transposed to [kh][kw][channels].
template <typename In, typename Acc>
void depthwise_kernel(const In* in, const In* w, Acc* out, const ConvShape& s, In pad) {
  const std::uint64_t c = s.in_c, taps = s.kernel_h * s.kernel_w;
  std::vector<In> wt(taps * c);
  for (std::uint64_t ch = 0; ch < c; ++ch)
    for (std::uint64_t t = 0; t < taps; ++t) wt[t * c + ch] = w[ch * taps + t];
  std::vector<In> pad_row(c, pad);
  for (std::uint64_t oy = 0; oy < s.out_h; ++oy)
    for (std::uint64_t ox = 0; ox < s.out_w; ++ox) {
      Acc* o = out + (oy * s.out_w + ox) * c;
      if (!s.accumulate) std::fill(o, o + c, Acc{0});
      for (std::uint64_t ky = 0; ky < s.kernel_h; ++ky) {
        for (std::uint64_t kx = 0; kx < s.kernel_w; ++kx) {
          const In* src = tap_input(in, s, oy, ox, ky, kx, 0, pad_row.data());
          const In* wk = wt.data() + (ky * s.kernel_w + kx) * c;
          if constexpr (std::is_same_v<Acc, float>) {
            for (std::uint64_t ch = 0; ch < c; ++ch) o[ch] += src[ch] * wk[ch];
          } else {
            for (std::uint64_t ch = 0; ch < c; ++ch)
              o[ch] += static_cast<std::uint32_t>(static_cast<std::int32_t>(src[ch]) * wk[ch]);
          }
        }
      }
    }
}

template <typename In, typename Acc>
void conv_dispatch(const In* in, const In* w, Acc* out, const ConvShape& s, In pad) {
  if (s.in_c_per_group() == 1 && s.out_c_per_group() == 1)
    depthwise_kernel(in, w, out, s, pad);
  else
    conv_kernel(in, w, out, s, pad);
}

}  // namespace

namespace {

// B as k x n row-major whatever its storage (b_transposed: stored n x k).
template <typename T>
std::vector<T> b_row_major(const T* b, const GemmShape& s) {
  if (!s.b_transposed) return std::vector<T>(b, b + s.k * s.n);
  std::vector<T> out(s.k * s.n);
  for (std::uint64_t j = 0; j < s.n; ++j)
    for (std::uint64_t p = 0; p < s.k; ++p) out[p * s.n + j] = b[j * s.k + p];
  return out;
}

std::vector<std::int16_t> minus_zero_point(const std::int8_t* x, std::uint64_t count, std::int64_t zero_point) {
  std::vector<std::int16_t> out(count);
  for (std::uint64_t i = 0; i < count; ++i) out[i] = static_cast<std::int16_t>(x[i] - zero_point);
  return out;
}

// Packed int4 B (two per byte, low nibble first) sign-extended to int8, in storage order.
std::vector<std::int8_t> unpacked_int4(const std::uint8_t* b, std::uint64_t count) {
  std::vector<std::int8_t> out(count);
  for (std::uint64_t e = 0; e < count; ++e) {
    const int nibble = (b[e / 2] >> (e % 2 ? 4 : 0)) & 0xF;
    out[e] = static_cast<std::int8_t>(nibble >= 8 ? nibble - 16 : nibble);
  }
  return out;
}

}  // namespace

void gemm_int8(const GemmShape& s, std::uint8_t* sram) {
  const auto* a = at<const std::int8_t>(sram, s.a_addr);
  std::vector<std::int8_t> unpacked;
  if (s.b_storage.format == isa::WeightFormat::Int4) unpacked = unpacked_int4(sram + s.b_addr, s.k * s.n);
  const auto* b = unpacked.empty() ? at<const std::int8_t>(sram, s.b_addr) : unpacked.data();
  auto* c = at<std::uint32_t>(sram, s.c_addr);
  if (s.a_zero_point == 0 && s.b_zero_point == 0 && !s.b_transposed) return gemm_kernel(a, b, c, s);
  const std::vector<std::int8_t> b_kn = b_row_major(b, s);
  const auto a16 = minus_zero_point(a, s.m * s.k, s.a_zero_point);
  const auto b16 = minus_zero_point(b_kn.data(), s.k * s.n, s.b_zero_point);
  gemm_kernel(a16.data(), b16.data(), c, s);
}

namespace {

// Weight-only B: each int8 or int4 value times its column's fp16 scale for its group of rows,
// an fp32 product rounded to fp16 (what the dequantiser hands the array), in storage order.
std::vector<float> dequantized_weights(const GemmShape& s, const std::uint8_t* sram) {
  const cost::WeightStorage& w = s.b_storage;
  const std::uint64_t group = w.group_rows(s.k);
  const auto* scales = reinterpret_cast<const std::uint16_t*>(sram + s.b_scale_addr);
  std::vector<std::int8_t> unpacked;
  if (w.format == isa::WeightFormat::Int4) unpacked = unpacked_int4(sram + s.b_addr, s.k * s.n);
  const auto* b = unpacked.empty() ? reinterpret_cast<const std::int8_t*>(sram + s.b_addr) : unpacked.data();
  std::vector<float> out(s.k * s.n);
  for (std::uint64_t e = 0; e < s.k * s.n; ++e) {
    const std::uint64_t p = s.b_transposed ? e % s.k : e / s.n, j = s.b_transposed ? e / s.k : e % s.n;
    const int q = b[e];
    const float scale = isa::half_to_float(scales[(p / group) * s.n + j]);
    out[e] = isa::round_to_half(static_cast<float>(q) * scale);
  }
  return out;
}

}  // namespace

void gemm_fp16(const GemmShape& s, std::uint8_t* sram) {
  const auto a = halves_to_floats(sram + s.a_addr, s.m * s.k);
  const auto b = b_row_major(s.b_storage.quantized() ? dequantized_weights(s, sram).data()
                                                     : halves_to_floats(sram + s.b_addr, s.k * s.n).data(), s);
  gemm_kernel(a.data(), b.data(), at<float>(sram, s.c_addr), s);
}

void conv_int8(const ConvShape& s, std::uint8_t* sram) {
  conv_dispatch(at<const std::int8_t>(sram, s.in_addr), at<const std::int8_t>(sram, s.w_addr),
                at<std::uint32_t>(sram, s.out_addr), s, static_cast<std::int8_t>(s.pad_value));
}

void conv_fp16(const ConvShape& s, std::uint8_t* sram) {
  const auto in = halves_to_floats(sram + s.in_addr, s.in_span());
  const auto w = halves_to_floats(sram + s.w_addr, s.kernel_h * s.kernel_w * s.in_c_per_group() * s.out_c);
  conv_dispatch(in.data(), w.data(), at<float>(sram, s.out_addr), s, 0.0f);  // fp16 pads with 0
}

}  // namespace npu::sim
