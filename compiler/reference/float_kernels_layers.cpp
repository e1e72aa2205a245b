// Layer kernels: Conv and ConvTranspose (1-D and 2-D), pooling, Gemm/MatMul, the fused NPU
// layers, normalisations (BatchNorm, InstanceNorm, LayerNorm, LRN).
#include <algorithm>
#include <cmath>
#include <limits>

#include "compiler/reference/float_gemm.h"
#include "compiler/reference/float_kernels.h"
#include "compiler/reference/node_geometry.h"

namespace npu::compiler {
namespace {

// A 1-D window op (N, C, L) seen as 2-D (N, C, 1, L): the node's window attributes gain a
// leading 1 (pads gain zeros) so window_geometry applies.
Node as_2d_window(const Node& n) {
  Node m = n;
  auto widen = [&](const char* name, std::int64_t lead) {
    if (!n.has(name)) return;
    auto v = n.get_ints(name);
    if (v.size() == 1) m.set_ints(name, {lead, v[0]});
    if (v.size() == 2 && std::string(name) == "pads") m.set_ints(name, {0, v[0], 0, v[1]});
  };
  widen("kernel_shape", 1);
  widen("strides", 1);
  widen("dilations", 1);
  widen("pads", 0);
  if (n.has("output_padding")) widen("output_padding", 0);
  if (n.has("output_shape")) widen("output_shape", 1);
  return m;
}

FloatTensor with_unit_h(const FloatTensor& x) {
  FloatTensor y = x;
  y.shape.insert(y.shape.begin() + 2, 1);
  return y;
}

FloatTensor drop_unit_h(FloatTensor y) {
  y.shape.erase(y.shape.begin() + 2);
  return y;
}

// Depthwise and other thin groups: too few output channels per group for a gemm to pay off.
void conv_direct(const WindowGeometry& geo, const float* in, const float* w, float* out, std::int64_t cg,
                 std::int64_t H, std::int64_t W) {
  const std::int64_t OH = geo.out_h, OW = geo.out_w, KH = geo.kernel_h, KW = geo.kernel_w;
  for (std::int64_t c = 0; c < cg; ++c, in += H * W)
    for (std::int64_t kh = 0; kh < KH; ++kh)
      for (std::int64_t kw = 0; kw < KW; ++kw) {
        float wv = w[(c * KH + kh) * KW + kw];
        if (wv == 0.0f) continue;
        for (std::int64_t oh = 0; oh < OH; ++oh) {
          std::int64_t ih = oh * geo.stride_h - geo.pad_top + kh * geo.dilation_h;
          if (ih < 0 || ih >= H) continue;
          const float* row = in + ih * W;
          float* orow = out + oh * OW;
          std::int64_t iw0 = -geo.pad_left + kw * geo.dilation_w;
          // the ow range whose iw lands inside the row
          std::int64_t lo = iw0 >= 0 ? 0 : (-iw0 + geo.stride_w - 1) / geo.stride_w;
          std::int64_t hi = W - 1 - iw0 < 0 ? -1 : std::min(OW - 1, (W - 1 - iw0) / geo.stride_w);
          for (std::int64_t ow = lo; ow <= hi; ++ow) orow[ow] += wv * row[ow * geo.stride_w + iw0];
        }
      }
}

// col[(c * KH + kh) * KW + kw][oh * OW + ow] = input pixel under that tap (0 in the padding).
// Every element is written once (no zero pre-fill: the buffer is reused across convs).
void im2col(const WindowGeometry& geo, const float* in, std::int64_t cg, std::int64_t H, std::int64_t W,
            std::vector<float>& col) {
  const std::int64_t OH = geo.out_h, OW = geo.out_w, KH = geo.kernel_h, KW = geo.kernel_w;
  col.resize(static_cast<std::size_t>(cg * KH * KW * OH * OW));
  float* dst = col.data();
  for (std::int64_t c = 0; c < cg; ++c)
    for (std::int64_t kh = 0; kh < KH; ++kh)
      for (std::int64_t kw = 0; kw < KW; ++kw, dst += OH * OW)
        for (std::int64_t oh = 0; oh < OH; ++oh) {
          float* orow = dst + oh * OW;
          std::int64_t ih = oh * geo.stride_h - geo.pad_top + kh * geo.dilation_h;
          if (ih < 0 || ih >= H) {
            std::fill_n(orow, OW, 0.0f);
            continue;
          }
          const float* row = in + (c * H + ih) * W;
          std::int64_t iw0 = -geo.pad_left + kw * geo.dilation_w;
          std::int64_t lo = iw0 >= 0 ? 0 : std::min(OW, (-iw0 + geo.stride_w - 1) / geo.stride_w);
          std::int64_t hi = W - 1 - iw0 < 0 ? -1 : std::min(OW - 1, (W - 1 - iw0) / geo.stride_w);
          std::fill_n(orow, lo, 0.0f);
          if (hi >= lo) {
            if (geo.stride_w == 1) std::copy(row + lo + iw0, row + hi + 1 + iw0, orow + lo);
            else
              for (std::int64_t ow = lo; ow <= hi; ++ow) orow[ow] = row[ow * geo.stride_w + iw0];
          }
          const std::int64_t tail = std::max(hi + 1, lo);
          std::fill_n(orow + tail, OW - tail, 0.0f);
        }
}

// Per group: Y[mg x OH*OW] = W[mg x cg*KH*KW] * im2col(X); a 1x1 stride-1 unpadded conv needs no
// im2col (the input already is that matrix).
FloatTensor conv2d(const EvalNode& e, const Node& n, const FloatTensor& x, const FloatTensor& w, const FloatTensor* b) {
  if (w.shape.size() != 4) e.fail("weights are not 4-D");
  auto geo = window_geometry(n, x.shape, w.shape[2], w.shape[3]);
  std::int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  std::int64_t M = w.shape[0], group = n.get_int("group", 1);
  if (group <= 0 || C % group || M % group || w.shape[1] * group != C)
    e.fail("input has " + std::to_string(C) + " channels, weights expect " + std::to_string(w.shape[1] * group));
  std::int64_t cg = C / group, mg = M / group;
  std::int64_t OH = geo.out_h, OW = geo.out_w, K = cg * geo.kernel_h * geo.kernel_w, P = OH * OW;
  const bool pointwise = geo.kernel_h == 1 && geo.kernel_w == 1 && geo.stride_h == 1 && geo.stride_w == 1 &&
                         geo.pad_top == 0 && geo.pad_left == 0 && geo.pad_bottom == 0 && geo.pad_right == 0;
  FloatTensor y;
  y.shape = {N, M, OH, OW};
  y.data.resize(static_cast<std::size_t>(N * M * P));
  for (std::int64_t m = 0; m < N * M; ++m) std::fill_n(&y.data[m * P], P, b ? b->data[m % M] : 0.0f);
  // Reused across convs: allocating (and the kernel zeroing) a fresh multi-megabyte buffer per
  // conv cost more than the copy itself at 640x640.
  thread_local std::vector<float> col;
  for (std::int64_t nn = 0; nn < N; ++nn)
    for (std::int64_t grp = 0; grp < group; ++grp) {
      const float* in = &x.data[(nn * C + grp * cg) * H * W];
      const float* wg = &w.data[grp * mg * K];
      float* out = &y.data[(nn * M + grp * mg) * P];
      if (mg < 4) {
        for (std::int64_t m = 0; m < mg; ++m) conv_direct(geo, in, wg + m * K, out + m * P, cg, H, W);
        continue;
      }
      const float* B = in;
      if (!pointwise) {
        im2col(geo, in, cg, H, W, col);
        B = col.data();
      }
      gemm_accumulate(mg, P, K, wg, K, B, P, out, P);
    }
  return y;
}

FloatTensor conv(const EvalNode& e, const FloatTensor& x, const FloatTensor& w, const FloatTensor* b) {
  if (x.shape.size() == 3 && w.shape.size() == 3) {
    FloatTensor w4 = with_unit_h(w);
    return drop_unit_h(conv2d(e, as_2d_window(e.node), with_unit_h(x), w4, b));
  }
  if (x.shape.size() != 4) e.fail("only 1-D and 2-D convolution are supported");
  return conv2d(e, e.node, x, w, b);
}

// ConvTranspose as a gemm per group (cols = W^T * X) scattered into the output (col2im).
FloatTensor conv_transpose2d(const EvalNode& e, const Node& n, const FloatTensor& x, const FloatTensor& w,
                             const FloatTensor* b) {
  if (w.shape.size() != 4) e.fail("weights are not 4-D");
  const std::int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  const std::int64_t group = n.get_int("group", 1);
  if (group <= 0 || w.shape[0] != C || C % group) e.fail("weights do not match the input channels");
  const std::int64_t cg = C / group, mg = w.shape[1], M = mg * group, KH = w.shape[2], KW = w.shape[3];
  auto strides = n.get_ints("strides", {1, 1}), dil = n.get_ints("dilations", {1, 1});
  auto out_pad = n.get_ints("output_padding", {0, 0}), pads = n.get_ints("pads", {0, 0, 0, 0});
  if (strides.size() != 2 || dil.size() != 2 || out_pad.size() != 2 || pads.size() != 4)
    e.fail("strides/dilations/pads are not 2-D");
  std::int64_t in_hw[2] = {H, W}, k[2] = {KH, KW}, out_hw[2];
  const std::string auto_pad = n.get_string("auto_pad", "NOTSET");
  auto out_shape = n.get_ints("output_shape");
  for (int d = 0; d < 2; ++d) {
    const std::int64_t full = strides[d] * (in_hw[d] - 1) + out_pad[d] + (k[d] - 1) * dil[d] + 1;
    if (!out_shape.empty() || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const std::int64_t target = !out_shape.empty() ? out_shape[out_shape.size() - 2 + d] : in_hw[d] * strides[d];
      // negative when output_shape asks for more than the full output: extra rows at the end
      const std::int64_t total = full - target;
      const bool upper_extra = auto_pad != "SAME_LOWER";  // ONNX: SAME_UPPER puts the odd pad at the end
      pads[d] = upper_extra ? total / 2 : total - total / 2;  // C++ / truncates as ONNX Runtime does
      pads[d + 2] = total - pads[d];
    } else if (auto_pad == "VALID") {
      pads[d] = pads[d + 2] = 0;
    }
    out_hw[d] = full - pads[d] - pads[d + 2];
  }
  const std::int64_t OH = out_hw[0], OW = out_hw[1], HW = H * W, rows = mg * KH * KW;
  FloatTensor y;
  y.shape = {N, M, OH, OW};
  y.data.assign(static_cast<std::size_t>(N * M * OH * OW), 0.0f);
  std::vector<float> wt(static_cast<std::size_t>(rows * cg)), cols(static_cast<std::size_t>(rows * HW));
  for (std::int64_t grp = 0; grp < group; ++grp) {
    // wt[rows x cg] = transpose of this group's weights [cg x rows]
    const float* wg = &w.data[grp * cg * rows];
    for (std::int64_t c = 0; c < cg; ++c)
      for (std::int64_t r = 0; r < rows; ++r) wt[r * cg + c] = wg[c * rows + r];
    for (std::int64_t nn = 0; nn < N; ++nn) {
      std::fill(cols.begin(), cols.end(), 0.0f);
      gemm_accumulate(rows, HW, cg, wt.data(), cg, &x.data[(nn * C + grp * cg) * HW], HW, cols.data(), HW);
      for (std::int64_t m = 0; m < mg; ++m) {
        float* out = &y.data[(nn * M + grp * mg + m) * OH * OW];
        for (std::int64_t kh = 0; kh < KH; ++kh)
          for (std::int64_t kw = 0; kw < KW; ++kw) {
            const float* src = &cols[((m * KH + kh) * KW + kw) * HW];
            for (std::int64_t ih = 0; ih < H; ++ih) {
              const std::int64_t oh = ih * strides[0] + kh * dil[0] - pads[0];
              if (oh < 0 || oh >= OH) continue;
              for (std::int64_t iw = 0; iw < W; ++iw) {
                const std::int64_t ow = iw * strides[1] + kw * dil[1] - pads[1];
                if (ow >= 0 && ow < OW) out[oh * OW + ow] += src[ih * W + iw];
              }
            }
          }
      }
    }
  }
  if (b)
    for (std::int64_t nm = 0; nm < N * M; ++nm)
      for (std::int64_t p = 0; p < OH * OW; ++p) y.data[nm * OH * OW + p] += b->data[nm % M];
  return y;
}

FloatOutputs conv_transpose(const EvalNode& e) {
  const FloatTensor& x = e.need(0);
  const FloatTensor& w = e.need(1);
  if (x.shape.size() == 3 && w.shape.size() == 3)
    return outputs(drop_unit_h(conv_transpose2d(e, as_2d_window(e.node), with_unit_h(x), with_unit_h(w), e.optional(2))));
  if (x.shape.size() != 4) e.fail("only 1-D and 2-D ConvTranspose are supported");
  return outputs(conv_transpose2d(e, e.node, x, w, e.optional(2)));
}

FloatOutputs pool2d(const EvalNode& e, const Node& n, const FloatTensor& x, bool is_max) {
  auto k = n.get_ints("kernel_shape");
  if (k.size() != 2) e.fail("kernel_shape is not 2-D");
  auto geo = window_geometry(n, x.shape, k[0], k[1]);
  const bool include_pad = n.get_int("count_include_pad", 0) != 0;
  const bool want_indices = e.wants_output(1), column_major = n.get_int("storage_order", 0) != 0;
  std::int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  FloatTensor y, idx;
  y.shape = {N, C, geo.out_h, geo.out_w};
  y.data.resize(static_cast<std::size_t>(N * C * geo.out_h * geo.out_w));
  if (want_indices) {
    idx.shape = y.shape;
    idx.data.resize(y.data.size());
  }
  std::int64_t o = 0;
  for (std::int64_t nc = 0; nc < N * C; ++nc)
    for (std::int64_t oh = 0; oh < geo.out_h; ++oh)
      for (std::int64_t ow = 0; ow < geo.out_w; ++ow, ++o) {
        float acc = is_max ? -std::numeric_limits<float>::infinity() : 0.0f;
        std::int64_t valid = 0, in_window = 0, arg = 0;
        for (std::int64_t kh = 0; kh < geo.kernel_h; ++kh)
          for (std::int64_t kw = 0; kw < geo.kernel_w; ++kw) {
            std::int64_t ih = oh * geo.stride_h - geo.pad_top + kh * geo.dilation_h;
            std::int64_t iw = ow * geo.stride_w - geo.pad_left + kw * geo.dilation_w;
            // Windows that reach past the padded input (ceil_mode) do not count those cells.
            if (ih < H + geo.pad_bottom && iw < W + geo.pad_right) ++in_window;
            if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
            const std::int64_t at = (nc * H + ih) * W + iw;
            float v = x.data[at];
            if (is_max) {
              // Indices: row-major over N, C, H, W; storage_order 1 walks each plane column-major
              if (v > acc) { acc = v; arg = column_major ? (nc * W + iw) * H + ih : at; }
            } else {
              acc += v;
            }
            ++valid;
          }
        y.data[o] = is_max ? acc : acc / static_cast<float>(include_pad ? in_window : std::max<std::int64_t>(valid, 1));
        if (want_indices) idx.data[o] = static_cast<float>(arg);
      }
  FloatOutputs out{std::move(y)};
  if (want_indices) out.push_back(std::move(idx));
  return out;
}

FloatOutputs pool(const EvalNode& e, bool is_max) {
  const FloatTensor& x = e.need(0);
  if (x.shape.size() == 3) {
    auto out = pool2d(e, as_2d_window(e.node), with_unit_h(x), is_max);
    for (auto& t : out) t = drop_unit_h(std::move(t));
    return out;
  }
  if (x.shape.size() != 4) e.fail("only 1-D and 2-D pooling are supported");
  return pool2d(e, e.node, x, is_max);
}

FloatOutputs global_pool(const EvalNode& e, bool is_max) {
  const FloatTensor& x = e.need(0);
  if (x.shape.size() < 2) e.fail("input rank below 2");
  std::int64_t nc = x.shape[0] * x.shape[1], hw = nc ? x.elements() / nc : 0;
  FloatTensor y;
  y.shape = x.shape;
  for (std::size_t d = 2; d < y.shape.size(); ++d) y.shape[d] = 1;
  for (std::int64_t i = 0; i < nc; ++i) {
    double acc = is_max ? -std::numeric_limits<double>::infinity() : 0.0;
    for (std::int64_t j = 0; j < hw; ++j) {
      float v = x.data[i * hw + j];
      acc = is_max ? std::max<double>(acc, v) : acc + v;
    }
    y.data.push_back(static_cast<float>(is_max ? acc : acc / std::max<std::int64_t>(hw, 1)));
  }
  return outputs(std::move(y));
}

// x [R x C] as [C x R], in square tiles: the generic transpose's index arithmetic per element
// cost more than the classifier's gemm it feeds (2048 x 1000 weights per calibration sample).
FloatTensor transposed_2d(const FloatTensor& x) {
  const std::int64_t R = x.shape[0], C = x.shape[1];
  constexpr std::int64_t kTile = 32;
  FloatTensor t;
  t.shape = {C, R};
  t.data.resize(static_cast<std::size_t>(R * C));
  const float* src = x.data.data();
  float* dst = t.data.data();
  for (std::int64_t r0 = 0; r0 < R; r0 += kTile)
    for (std::int64_t c0 = 0; c0 < C; c0 += kTile) {
      const std::int64_t r1 = std::min(R, r0 + kTile), c1 = std::min(C, c0 + kTile);
      for (std::int64_t r = r0; r < r1; ++r)
        for (std::int64_t c = c0; c < c1; ++c) dst[c * R + r] = src[r * C + c];
    }
  return t;
}

// C[M x N] = op(A) * op(B), materialising transposes so the blocked gemm sees row-major operands.
FloatTensor matmul2d(const FloatTensor& a, const FloatTensor& b, bool ta, bool tb) {
  const std::int64_t M = ta ? a.shape[1] : a.shape[0], K = ta ? a.shape[0] : a.shape[1];
  const std::int64_t N = tb ? b.shape[0] : b.shape[1];
  FloatTensor at, bt;
  const FloatTensor* A = &a;
  const FloatTensor* B = &b;
  if (ta) { at = transposed_2d(a); A = &at; }
  if (tb) { bt = transposed_2d(b); B = &bt; }
  FloatTensor y;
  y.shape = {M, N};
  y.data.assign(static_cast<std::size_t>(M * N), 0.0f);
  gemm_accumulate(M, N, K, A->data.data(), K, B->data.data(), N, y.data.data(), N);
  return y;
}

FloatTensor matmul_batched(const EvalNode& e, const FloatTensor& a, const FloatTensor& b) {
  Shape as = a.shape, bs = b.shape;
  if (as.empty() || bs.empty()) e.fail("MatMul of a scalar");
  if (as.size() == 1) as.insert(as.begin(), 1);
  if (bs.size() == 1) bs.push_back(1);
  const std::int64_t M = as[as.size() - 2], K = as.back(), N = bs.back();
  if (bs[bs.size() - 2] != K) e.fail("inner dimensions differ (" + std::to_string(K) + " vs " + std::to_string(bs[bs.size() - 2]) + ")");
  Shape ab(as.begin(), as.end() - 2), bb(bs.begin(), bs.end() - 2);
  Shape batch = broadcast_shapes(ab, bb, e.graph.source + ": node '" + e.node.name + "'");
  auto sa = broadcast_strides(ab, batch), sb = broadcast_strides(bb, batch);
  const std::int64_t nb = shape_elements(batch);
  FloatTensor y;
  y.shape = batch;
  y.shape.push_back(M);
  y.shape.push_back(N);
  y.data.assign(static_cast<std::size_t>(nb * M * N), 0.0f);
  if (shape_elements(bb) == 1 && shape_elements(ab) == nb) {
    // One B for the whole batch and A's matrices one after another: a single gemm of nb * M
    // rows, the same sums (each output is its own chain over k), with B packed once instead of
    // once per matrix. PyTorch's attention input projection is [197, 1, 768] x [768, 2304] in
    // ViT-B/16: 197 one-row gemms that each read all of B took most of the calibration time.
    gemm_accumulate(nb * M, N, K, a.data.data(), K, b.data.data(), N, y.data.data(), N);
    if (a.shape.size() == 1) y.shape.erase(y.shape.end() - 2);
    if (b.shape.size() == 1) y.shape.pop_back();
    return y;
  }
  std::vector<std::int64_t> idx(batch.size(), 0);
  for (std::int64_t bi = 0; bi < nb; ++bi) {
    std::int64_t ia = 0, ib = 0;
    for (std::size_t d = 0; d < idx.size(); ++d) {
      ia += idx[d] * sa[d];
      ib += idx[d] * sb[d];
    }
    gemm_accumulate(M, N, K, a.data.data() + ia * M * K, K, b.data.data() + ib * K * N, N, y.data.data() + bi * M * N, N);
    for (int d = static_cast<int>(idx.size()) - 1; d >= 0; --d) {
      if (++idx[d] < batch[d]) break;
      idx[d] = 0;
    }
  }
  if (a.shape.size() == 1) y.shape.erase(y.shape.end() - 2);
  if (b.shape.size() == 1) y.shape.pop_back();
  return y;
}

FloatTensor add(const EvalNode& e, const FloatTensor& a, const FloatTensor& b) {
  Shape out = a.shape == b.shape ? a.shape : broadcast_shapes(a.shape, b.shape, e.node.name);
  return broadcast_binary<float, float, float>(a, b, out, [](float x, float y) { return x + y; });
}

// Conv/Gemm/MatMul and their fused NPU forms (bias, activation, residual Add, post activation).
FloatOutputs compute_layer(const EvalNode& e) {
  const std::string& op = e.node.op_type;
  FloatTensor y;
  const FloatTensor* bias = e.optional(2);
  if (op == "Conv" || op == "FusedConv") {
    y = conv(e, e.need(0), e.need(1), bias);
  } else if (op == "Gemm" || op == "FusedGemm") {
    FloatTensor a = e.need(0);
    const FloatTensor& b = e.need(1);
    // FusedGemm (a MatMul by constant weights) keeps the input's leading dims: rows of K.
    Shape lead;
    if (op == "FusedGemm" && a.shape.size() > 2) {
      lead.assign(a.shape.begin(), a.shape.end() - 1);
      a.shape = {a.elements() / a.shape.back(), a.shape.back()};
    }
    if (a.shape.size() != 2 || b.shape.size() != 2) e.fail("Gemm operands are not 2-D");
    y = matmul2d(a, b, e.node.get_int("transA", 0) != 0, e.node.get_int("transB", 0) != 0);
    if (!lead.empty()) {
      lead.push_back(y.shape.back());
      y.shape = lead;
    }
    const float alpha = e.node.get_float("alpha", 1.0f), beta = e.node.get_float("beta", 1.0f);
    if (alpha != 1.0f)
      for (auto& v : y.data) v *= alpha;
    if (bias) {
      FloatTensor c = *bias;
      if (beta != 1.0f)
        for (auto& v : c.data) v *= beta;
      y = add(e, y, c);
    }
  } else {
    y = matmul_batched(e, e.need(0), e.need(1));
    if (bias) y = add(e, y, *bias);  // FusedMatMul's bias
  }
  if (e.node.domain == "npusim") {
    auto act = resolve_activation(e.node.get_string("activation", ""), e.node.get_float("act_alpha", 0.0f),
                                  e.node.get_float("act_beta", 0.0f));
    act.apply(y.data);
    if (const FloatTensor* residual = e.optional(3)) {
      y = add(e, y, *residual);
      auto post = resolve_activation(e.node.get_string("post_activation", ""), e.node.get_float("post_alpha", 0.0f),
                                     e.node.get_float("post_beta", 0.0f));
      post.apply(y.data);
    }
  }
  return outputs(std::move(y));
}

// Per-channel (dim 1) normalisation with given mean/variance: BatchNormalization.
FloatOutputs batch_norm(const EvalNode& e) {
  if (e.wants_output(1) || e.wants_output(2) || e.node.get_int("training_mode", 0))
    e.fail("training-mode outputs are not supported");
  const FloatTensor &x = e.need(0), &s = e.need(1), &b = e.need(2), &m = e.need(3), &v = e.need(4);
  const float eps = e.node.get_float("epsilon", 1e-5f);
  const std::int64_t C = x.shape.size() > 1 ? x.shape[1] : 1;
  if (static_cast<std::int64_t>(s.data.size()) != C || b.data.size() != s.data.size() || m.data.size() != s.data.size() ||
      v.data.size() != s.data.size())
    e.fail("parameters do not have " + std::to_string(C) + " channels");
  std::int64_t inner = 1;
  for (std::size_t d = 2; d < x.shape.size(); ++d) inner *= x.shape[d];
  std::vector<float> scale(C), shift(C);
  for (std::int64_t c = 0; c < C; ++c) {
    scale[c] = s.data[c] / std::sqrt(v.data[c] + eps);
    shift[c] = b.data[c] - m.data[c] * scale[c];
  }
  FloatTensor y = x;
  for (std::int64_t i = 0, n = x.elements(); i < n; ++i) {
    const std::int64_t c = (i / inner) % C;
    y.data[i] = x.data[i] * scale[c] + shift[c];
  }
  return outputs(std::move(y));
}

FloatOutputs instance_norm(const EvalNode& e) {
  const FloatTensor &x = e.need(0), &s = e.need(1), &b = e.need(2);
  const float eps = e.node.get_float("epsilon", 1e-5f);
  const std::int64_t C = x.shape.at(1), nc = x.shape.at(0) * C, inner = nc ? x.elements() / nc : 0;
  FloatTensor y = x;
  for (std::int64_t i = 0; i < nc; ++i) {
    double sum = 0, sq = 0;
    for (std::int64_t j = 0; j < inner; ++j) sum += x.data[i * inner + j];
    const double mean = sum / inner;
    for (std::int64_t j = 0; j < inner; ++j) sq += (x.data[i * inner + j] - mean) * (x.data[i * inner + j] - mean);
    const double inv = 1.0 / std::sqrt(sq / inner + eps);
    for (std::int64_t j = 0; j < inner; ++j)
      y.data[i * inner + j] = static_cast<float>((x.data[i * inner + j] - mean) * inv * s.data[i % C] + b.data[i % C]);
  }
  return outputs(std::move(y));
}

// LayerNormalization-17: normalise over dims [axis, rank), then scale and bias (broadcast).
FloatOutputs layer_norm(const EvalNode& e) {
  const FloatTensor& x = e.need(0);
  const auto r = static_cast<std::int64_t>(x.shape.size());
  const std::int64_t axis = normalize_axis_checked(e.node.get_int("axis", -1), r);
  const float eps = e.node.get_float("epsilon", 1e-5f);
  std::int64_t outer = 1, inner = 1;
  for (std::int64_t d = 0; d < r; ++d) (d < axis ? outer : inner) *= x.shape[d];
  const FloatTensor* scale = e.optional(1);
  const FloatTensor* bias = e.optional(2);
  auto param = [&](const FloatTensor* p, std::int64_t j, float fallback) {
    if (!p) return fallback;
    return p->data.size() == 1 ? p->data[0] : p->data[static_cast<std::size_t>(j % static_cast<std::int64_t>(p->data.size()))];
  };
  if (scale && scale->elements() != 1 && scale->elements() != inner) e.fail("scale does not match the normalised dims");
  if (bias && bias->elements() != 1 && bias->elements() != inner) e.fail("bias does not match the normalised dims");
  FloatTensor y = x, mean_t, inv_t;
  mean_t.shape = inv_t.shape = x.shape;
  for (std::int64_t d = axis; d < r; ++d) mean_t.shape[d] = inv_t.shape[d] = 1;
  for (std::int64_t o = 0; o < outer; ++o) {
    const float* row = &x.data[o * inner];
    double sum = 0, sq = 0;
    for (std::int64_t j = 0; j < inner; ++j) sum += row[j];
    const double mean = sum / inner;
    for (std::int64_t j = 0; j < inner; ++j) sq += (row[j] - mean) * (row[j] - mean);
    const double inv = 1.0 / std::sqrt(sq / inner + eps);
    for (std::int64_t j = 0; j < inner; ++j)
      y.data[o * inner + j] = static_cast<float>((row[j] - mean) * inv) * param(scale, j, 1.0f) + param(bias, j, 0.0f);
    mean_t.data.push_back(static_cast<float>(mean));
    inv_t.data.push_back(static_cast<float>(inv));
  }
  FloatOutputs out{std::move(y)};
  if (e.wants_output(1) || e.wants_output(2)) {
    out.push_back(std::move(mean_t));
    out.push_back(std::move(inv_t));
  }
  return out;
}

FloatOutputs lrn(const EvalNode& e) {
  const FloatTensor& x = e.need(0);
  const float alpha = e.node.get_float("alpha", 1e-4f), beta = e.node.get_float("beta", 0.75f),
              bias = e.node.get_float("bias", 1.0f);
  const std::int64_t size = e.node.get_int("size", 1);
  const std::int64_t N = x.shape.at(0), C = x.shape.at(1), inner = x.elements() / std::max<std::int64_t>(N * C, 1);
  FloatTensor y = x;
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t c = 0; c < C; ++c)
      for (std::int64_t i = 0; i < inner; ++i) {
        double sq = 0;
        const std::int64_t lo = std::max<std::int64_t>(0, c - (size - 1) / 2), hi = std::min(C - 1, c + size / 2);
        for (std::int64_t k = lo; k <= hi; ++k) {
          const float v = x.data[(n * C + k) * inner + i];
          sq += static_cast<double>(v) * v;
        }
        const std::int64_t at = (n * C + c) * inner + i;
        y.data[at] = static_cast<float>(x.data[at] / std::pow(bias + alpha / size * sq, beta));
      }
  return outputs(std::move(y));
}

}  // namespace

void add_layer_kernels(KernelTable& t) {
  for (const char* op : {"Conv", "FusedConv", "Gemm", "FusedGemm", "MatMul", "FusedMatMul"}) t[op] = compute_layer;
  t["ConvTranspose"] = conv_transpose;
  t["MaxPool"] = [](const EvalNode& e) { return pool(e, true); };
  t["AveragePool"] = [](const EvalNode& e) { return pool(e, false); };
  t["GlobalAveragePool"] = [](const EvalNode& e) { return global_pool(e, false); };
  t["GlobalMaxPool"] = [](const EvalNode& e) { return global_pool(e, true); };
  t["BatchNormalization"] = batch_norm;
  t["InstanceNormalization"] = instance_norm;
  t["LayerNormalization"] = layer_norm;
  t["LRN"] = lrn;
}

}  // namespace npu::compiler
