#include "compiler/float_evaluator.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>

#include "compiler/float_evaluator_checks.h"
#include "compiler/float_gemm.h"
#include "compiler/shape_inference.h"

namespace npu::compiler {
namespace {

using Shape = std::vector<std::int64_t>;

std::int64_t count(const Shape& s) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

[[noreturn]] void fail(const Graph& g, const Node& n, const std::string& what) {
  throw CompileError(g.source + ": node '" + n.name + "' (" + n.op_type + "): " + what);
}

std::int64_t axis_of(std::int64_t a, std::size_t rank) {
  return a < 0 ? a + static_cast<std::int64_t>(rank) : a;
}

// Strides of a row-major shape, broadcast against `out` (0 where the dim is broadcast).
std::vector<std::int64_t> broadcast_strides(const Shape& s, const Shape& out) {
  std::vector<std::int64_t> st(out.size(), 0);
  std::int64_t stride = 1;
  for (std::size_t i = 0; i < s.size(); ++i) {
    std::size_t si = s.size() - 1 - i, oi = out.size() - 1 - i;
    st[oi] = s[si] == 1 ? 0 : stride;
    stride *= s[si];
  }
  return st;
}

FloatTensor binary(const FloatTensor& a, const FloatTensor& b, const std::function<float(float, float)>& f,
                   const std::string& where) {
  FloatTensor out;
  out.shape = broadcast_shapes(a.shape, b.shape, where);
  std::int64_t n = count(out.shape);
  out.data.resize(n);
  if (a.shape == b.shape) {
    for (std::int64_t i = 0; i < n; ++i) out.data[i] = f(a.data[i], b.data[i]);
    return out;
  }
  auto sa = broadcast_strides(a.shape, out.shape), sb = broadcast_strides(b.shape, out.shape);
  std::vector<std::int64_t> idx(out.shape.size(), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t ia = 0, ib = 0;
    for (std::size_t d = 0; d < idx.size(); ++d) {
      ia += idx[d] * sa[d];
      ib += idx[d] * sb[d];
    }
    out.data[i] = f(a.data[ia], b.data[ib]);
    for (int d = static_cast<int>(idx.size()) - 1; d >= 0; --d) {
      if (++idx[d] < out.shape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
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
          for (std::int64_t ow = 0; ow < OW; ++ow) {
            std::int64_t iw = ow * geo.stride_w - geo.pad_left + kw * geo.dilation_w;
            if (iw >= 0 && iw < W) orow[ow] += wv * row[iw];
          }
        }
      }
}

// col[(c * KH + kh) * KW + kw][oh * OW + ow] = input pixel under that tap (0 in the padding).
void im2col(const WindowGeometry& geo, const float* in, std::int64_t cg, std::int64_t H, std::int64_t W,
            std::vector<float>& col) {
  const std::int64_t OH = geo.out_h, OW = geo.out_w, KH = geo.kernel_h, KW = geo.kernel_w;
  col.assign(static_cast<std::size_t>(cg * KH * KW * OH * OW), 0.0f);
  float* dst = col.data();
  for (std::int64_t c = 0; c < cg; ++c)
    for (std::int64_t kh = 0; kh < KH; ++kh)
      for (std::int64_t kw = 0; kw < KW; ++kw, dst += OH * OW)
        for (std::int64_t oh = 0; oh < OH; ++oh) {
          std::int64_t ih = oh * geo.stride_h - geo.pad_top + kh * geo.dilation_h;
          if (ih < 0 || ih >= H) continue;
          const float* row = in + (c * H + ih) * W;
          float* orow = dst + oh * OW;
          for (std::int64_t ow = 0; ow < OW; ++ow) {
            std::int64_t iw = ow * geo.stride_w - geo.pad_left + kw * geo.dilation_w;
            if (iw >= 0 && iw < W) orow[ow] = row[iw];
          }
        }
}

// Per group: Y[mg x OH*OW] = W[mg x cg*KH*KW] * im2col(X); a 1x1 stride-1 unpadded conv needs no
// im2col (the input already is that matrix).
FloatTensor conv(const Graph& g, const Node& n, const FloatTensor& x, const FloatTensor& w,
                 const FloatTensor* b) {
  auto geo = window_geometry(n, x.shape, w.shape[2], w.shape[3]);
  std::int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  std::int64_t M = w.shape[0], group = n.get_int("group", 1), cg = C / group, mg = M / group;
  std::int64_t OH = geo.out_h, OW = geo.out_w, K = cg * geo.kernel_h * geo.kernel_w, P = OH * OW;
  const bool pointwise = geo.kernel_h == 1 && geo.kernel_w == 1 && geo.stride_h == 1 && geo.stride_w == 1 &&
                         geo.pad_top == 0 && geo.pad_left == 0 && geo.pad_bottom == 0 && geo.pad_right == 0;
  FloatTensor y;
  y.shape = {N, M, OH, OW};
  y.data.resize(count(y.shape));
  for (std::int64_t m = 0; m < N * M; ++m)
    std::fill_n(&y.data[m * P], P, b ? b->data[m % M] : 0.0f);
  std::vector<float> col;
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

FloatTensor pool(const Node& n, const FloatTensor& x, bool is_max) {
  auto k = n.get_ints("kernel_shape");
  if (k.size() != 2) throw CompileError("node '" + n.name + "': kernel_shape is not 2-D");
  auto geo = window_geometry(n, x.shape, k[0], k[1]);
  bool include_pad = n.get_int("count_include_pad", 0) != 0;
  std::int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  FloatTensor y;
  y.shape = {N, C, geo.out_h, geo.out_w};
  y.data.resize(count(y.shape));
  std::int64_t o = 0;
  for (std::int64_t nc = 0; nc < N * C; ++nc)
    for (std::int64_t oh = 0; oh < geo.out_h; ++oh)
      for (std::int64_t ow = 0; ow < geo.out_w; ++ow) {
        float acc = is_max ? -std::numeric_limits<float>::infinity() : 0.0f;
        std::int64_t valid = 0, in_window = 0;
        for (std::int64_t kh = 0; kh < geo.kernel_h; ++kh)
          for (std::int64_t kw = 0; kw < geo.kernel_w; ++kw) {
            std::int64_t ih = oh * geo.stride_h - geo.pad_top + kh * geo.dilation_h;
            std::int64_t iw = ow * geo.stride_w - geo.pad_left + kw * geo.dilation_w;
            // Windows that reach past the padded input (ceil_mode) do not count those cells.
            if (ih < H + geo.pad_bottom && iw < W + geo.pad_right) ++in_window;
            if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
            float v = x.data[(nc * H + ih) * W + iw];
            acc = is_max ? std::max(acc, v) : acc + v;
            ++valid;
          }
        y.data[o++] = is_max ? acc : acc / static_cast<float>(include_pad ? in_window : std::max<std::int64_t>(valid, 1));
      }
  return y;
}

FloatTensor matmul(const FloatTensor& a, const FloatTensor& b, bool ta, bool tb) {
  // 2-D only here; batched MatMul goes through matmul_batched.
  std::int64_t M = ta ? a.shape[1] : a.shape[0], K = ta ? a.shape[0] : a.shape[1];
  std::int64_t N = tb ? b.shape[0] : b.shape[1];
  FloatTensor y;
  y.shape = {M, N};
  y.data.assign(M * N, 0.0f);
  for (std::int64_t i = 0; i < M; ++i)
    for (std::int64_t k = 0; k < K; ++k) {
      float av = ta ? a.data[k * M + i] : a.data[i * K + k];
      if (av == 0.0f) continue;
      for (std::int64_t j = 0; j < N; ++j) y.data[i * N + j] += av * (tb ? b.data[j * K + k] : b.data[k * N + j]);
    }
  return y;
}

FloatTensor matmul_batched(const Graph& g, const Node& n, const FloatTensor& a, const FloatTensor& b) {
  Shape as = a.shape, bs = b.shape;
  if (as.size() == 1) as.insert(as.begin(), 1);
  if (bs.size() == 1) bs.push_back(1);
  std::int64_t M = as[as.size() - 2], K = as.back(), N = bs.back();
  Shape ab(as.begin(), as.end() - 2), bb(bs.begin(), bs.end() - 2);
  Shape batch = broadcast_shapes(ab, bb, n.name);
  auto sa = broadcast_strides(ab, batch), sb = broadcast_strides(bb, batch);
  std::int64_t nb = count(batch);
  FloatTensor y;
  y.shape = batch;
  y.shape.push_back(M);
  y.shape.push_back(N);
  y.data.assign(nb * M * N, 0.0f);
  std::vector<std::int64_t> idx(batch.size(), 0);
  for (std::int64_t bi = 0; bi < nb; ++bi) {
    std::int64_t ia = 0, ib = 0;
    for (std::size_t d = 0; d < idx.size(); ++d) {
      ia += idx[d] * sa[d];
      ib += idx[d] * sb[d];
    }
    FloatTensor A{{M, K}, std::vector<float>(a.data.begin() + ia * M * K, a.data.begin() + (ia + 1) * M * K)};
    FloatTensor B{{K, N}, std::vector<float>(b.data.begin() + ib * K * N, b.data.begin() + (ib + 1) * K * N)};
    auto C = matmul(A, B, false, false);
    std::copy(C.data.begin(), C.data.end(), y.data.begin() + bi * M * N);
    for (int d = static_cast<int>(idx.size()) - 1; d >= 0; --d) {
      if (++idx[d] < batch[d]) break;
      idx[d] = 0;
    }
  }
  if (a.shape.size() == 1) y.shape.erase(y.shape.end() - 2);
  if (b.shape.size() == 1) y.shape.pop_back();
  return y;
}

FloatTensor transpose(const FloatTensor& x, std::vector<std::int64_t> perm) {
  std::size_t r = x.shape.size();
  if (perm.empty())
    for (std::size_t d = 0; d < r; ++d) perm.push_back(static_cast<std::int64_t>(r - 1 - d));
  FloatTensor y;
  for (auto p : perm) y.shape.push_back(x.shape[p]);
  y.data.resize(x.data.size());
  std::vector<std::int64_t> in_strides(r, 1);
  for (int d = static_cast<int>(r) - 2; d >= 0; --d) in_strides[d] = in_strides[d + 1] * x.shape[d + 1];
  std::vector<std::int64_t> idx(r, 0);
  for (std::size_t i = 0; i < y.data.size(); ++i) {
    std::int64_t src = 0;
    for (std::size_t d = 0; d < r; ++d) src += idx[d] * in_strides[perm[d]];
    y.data[i] = x.data[src];
    for (int d = static_cast<int>(r) - 1; d >= 0; --d) {
      if (++idx[d] < y.shape[d]) break;
      idx[d] = 0;
    }
  }
  return y;
}

FloatTensor softmax(const FloatTensor& x, std::int64_t axis, std::int64_t opset) {
  FloatTensor y = x;
  std::size_t r = x.shape.size();
  axis = axis_of(axis, r);
  // Before opset 13 Softmax flattens to 2-D at `axis`; from 13 it works along one axis.
  std::int64_t outer = 1, len = 1, inner = 1;
  for (std::size_t d = 0; d < r; ++d) {
    if (static_cast<std::int64_t>(d) < axis) outer *= x.shape[d];
    else if (static_cast<std::int64_t>(d) == axis || opset < 13) len *= x.shape[d];
    else inner *= x.shape[d];
  }
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i) {
      auto at = [&](std::int64_t k) -> float& { return y.data[(o * len + k) * inner + i]; };
      float mx = -std::numeric_limits<float>::infinity();
      for (std::int64_t k = 0; k < len; ++k) mx = std::max(mx, at(k));
      double sum = 0;
      for (std::int64_t k = 0; k < len; ++k) sum += (at(k) = std::exp(at(k) - mx));
      for (std::int64_t k = 0; k < len; ++k) at(k) = static_cast<float>(at(k) / sum);
    }
  return y;
}

FloatTensor resize_nearest(const Graph& g, const Node& n, const FloatTensor& x, const Shape& out_shape) {
  std::string mode = n.get_string("mode", "nearest");
  std::string ctm = n.get_string("coordinate_transformation_mode", "half_pixel");
  std::string nm = n.get_string("nearest_mode", "round_prefer_floor");
  if (n.op_type == "Upsample") { ctm = "asymmetric"; nm = "floor"; }
  if (mode != "nearest") fail(g, n, "mode '" + mode + "' is not supported");
  std::size_t r = x.shape.size();
  FloatTensor y;
  y.shape = out_shape;
  y.data.resize(count(out_shape));
  std::vector<std::vector<std::int64_t>> src(r);
  for (std::size_t d = 0; d < r; ++d) {
    for (std::int64_t o = 0; o < out_shape[d]; ++o) {
      std::int64_t i = nearest_source_index(ctm, nm, o, x.shape[d], out_shape[d]);
      if (i < 0) fail(g, n, "coordinate_transformation_mode '" + ctm + "' is not supported");
      src[d].push_back(std::clamp<std::int64_t>(i, 0, x.shape[d] - 1));
    }
  }
  std::vector<std::int64_t> in_strides(r, 1), idx(r, 0);
  for (int d = static_cast<int>(r) - 2; d >= 0; --d) in_strides[d] = in_strides[d + 1] * x.shape[d + 1];
  for (std::size_t i = 0; i < y.data.size(); ++i) {
    std::int64_t s = 0;
    for (std::size_t d = 0; d < r; ++d) s += src[d][idx[d]] * in_strides[d];
    y.data[i] = x.data[s];
    for (int d = static_cast<int>(r) - 1; d >= 0; --d) {
      if (++idx[d] < y.shape[d]) break;
      idx[d] = 0;
    }
  }
  return y;
}

const std::set<std::string> kSupported = {
    "Conv", "FusedConv", "Gemm", "FusedGemm", "MatMul", "FusedMatMul", "Relu", "Clip", "Sigmoid",
    "HardSigmoid", "HardSwish", "LeakyRelu", "Tanh", "Add", "Sub", "Mul", "Div", "MaxPool",
    "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "Concat", "Flatten", "Reshape",
    "Transpose", "Squeeze", "Unsqueeze", "Identity", "Dropout", "Resize", "Upsample", "Softmax",
    "BatchNormalization", "Shape", "Gather", "Cast", "Sqrt", "Exp", "Neg", "Reciprocal", "Pow"};

}  // namespace

std::int64_t nearest_source_index(const std::string& ctm, const std::string& nm, std::int64_t o,
                                  std::int64_t in_size, std::int64_t out_size) {
  double scale = static_cast<double>(out_size) / in_size;
  double c;
  if (ctm == "asymmetric") c = o / scale;
  else if (ctm == "align_corners") c = out_size > 1 ? o * (in_size - 1.0) / (out_size - 1.0) : 0;
  else if (ctm == "pytorch_half_pixel") c = out_size > 1 ? (o + 0.5) / scale - 0.5 : 0;
  else if (ctm == "half_pixel") c = (o + 0.5) / scale - 0.5;
  else return -1;
  std::int64_t i;
  if (nm == "floor") i = static_cast<std::int64_t>(std::floor(c));
  else if (nm == "ceil") i = static_cast<std::int64_t>(std::ceil(c));
  else if (nm == "round_prefer_ceil") i = static_cast<std::int64_t>(std::floor(c + 0.5));
  else i = static_cast<std::int64_t>(std::ceil(c - 0.5));  // round_prefer_floor
  return std::clamp<std::int64_t>(i, 0, in_size - 1);
}

std::int64_t FloatTensor::elements() const { return count(shape); }

bool evaluator_supports(const Node& n) {
  return (n.domain.empty() || n.domain == "npusim") && kSupported.count(n.op_type) != 0;
}

float apply_activation(const std::string& a, float alpha, float beta, float x) {
  if (a.empty()) return x;
  if (a == "Relu") return std::max(x, 0.0f);
  if (a == "Clip") return std::min(std::max(x, alpha), beta);
  if (a == "Sigmoid") return 1.0f / (1.0f + std::exp(-x));
  if (a == "HardSigmoid") return std::clamp(alpha * x + beta, 0.0f, 1.0f);
  if (a == "HardSwish") return x * std::clamp(x / 6.0f + 0.5f, 0.0f, 1.0f);
  if (a == "SiLU") return x / (1.0f + std::exp(-x));
  if (a == "LeakyRelu") return x >= 0 ? x : alpha * x;
  if (a == "Tanh") return std::tanh(x);
  throw CompileError("unknown fused activation '" + a + "'");
}

FloatTensor constant_as_float(const Tensor& t) {
  FloatTensor f;
  f.shape = t.shape;
  if (!t.floats.empty() || t.ints.empty()) f.data = t.floats;
  else
    for (auto i : t.ints) f.data.push_back(static_cast<float>(i));
  return f;
}

std::vector<FloatTensor> evaluate_node(const Graph& g, const Node& n,
                                       const std::vector<const FloatTensor*>& in) {
  const std::string& op = n.op_type;
  auto need = [&](std::size_t i) -> const FloatTensor& {
    if (i >= in.size() || !in[i]) fail(g, n, "missing input " + std::to_string(i));
    return *in[i];
  };
  auto unary = [&](const std::function<float(float)>& f) {
    FloatTensor y = need(0);
    for (auto& v : y.data) v = f(v);
    return std::vector<FloatTensor>{y};
  };
  std::string where = g.source + ": node '" + n.name + "'";
  check_evaluator_inputs(g, n, in);
  if (op == "Conv" || op == "FusedConv" || op == "Gemm" || op == "FusedGemm" || op == "MatMul" ||
      op == "FusedMatMul") {
    FloatTensor y;
    const FloatTensor* bias = in.size() > 2 ? in[2] : nullptr;
    if (op == "Conv" || op == "FusedConv") {
      if (need(0).shape.size() != 4) fail(g, n, "only 2-D convolution is supported");
      y = conv(g, n, need(0), need(1), bias);
      bias = nullptr;
    } else if (op == "Gemm" || op == "FusedGemm") {
      y = matmul(need(0), need(1), n.get_int("transA", 0) != 0, n.get_int("transB", 0) != 0);
      float alpha = n.get_float("alpha", 1.0f), beta = n.get_float("beta", 1.0f);
      for (auto& v : y.data) v *= alpha;
      if (bias) {
        FloatTensor b = *bias;
        for (auto& v : b.data) v *= beta;
        y = binary(y, b, std::plus<float>(), where);
      }
      bias = nullptr;
    } else {
      y = matmul_batched(g, n, need(0), need(1));
      if (bias) y = binary(y, *bias, std::plus<float>(), where);  // FusedMatMul's bias
    }
    if (n.domain == "npusim") {
      std::string act = n.get_string("activation", "");
      float a = n.get_float("act_alpha", 0.0f), b = n.get_float("act_beta", 0.0f);
      for (auto& v : y.data) v = apply_activation(act, a, b, v);
      if (in.size() > 3 && in[3]) {
        y = binary(y, *in[3], std::plus<float>(), where);
        std::string post = n.get_string("post_activation", "");
        float pa = n.get_float("post_alpha", 0.0f), pb = n.get_float("post_beta", 0.0f);
        for (auto& v : y.data) v = apply_activation(post, pa, pb, v);
      }
    }
    return {y};
  }
  if (op == "Relu") return unary([](float v) { return std::max(v, 0.0f); });
  if (op == "Sigmoid") return unary([](float v) { return 1.0f / (1.0f + std::exp(-v)); });
  if (op == "Tanh") return unary([](float v) { return std::tanh(v); });
  if (op == "Sqrt") return unary([](float v) { return std::sqrt(v); });
  if (op == "Exp") return unary([](float v) { return std::exp(v); });
  if (op == "Neg") return unary([](float v) { return -v; });
  if (op == "Reciprocal") return unary([](float v) { return 1.0f / v; });
  if (op == "Identity" || op == "Dropout") return {need(0)};
  if (op == "HardSwish") return unary([](float v) { return apply_activation("HardSwish", 0, 0, v); });
  if (op == "HardSigmoid") {
    float a = n.get_float("alpha", 0.2f), b = n.get_float("beta", 0.5f);
    return unary([=](float v) { return std::clamp(a * v + b, 0.0f, 1.0f); });
  }
  if (op == "LeakyRelu") {
    float a = n.get_float("alpha", 0.01f);
    return unary([=](float v) { return v >= 0 ? v : a * v; });
  }
  if (op == "Clip") {
    float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
    if (n.has("min")) lo = n.get_float("min", lo);
    if (n.has("max")) hi = n.get_float("max", hi);
    if (in.size() > 1 && in[1]) lo = in[1]->data.at(0);
    if (in.size() > 2 && in[2]) hi = in[2]->data.at(0);
    return unary([=](float v) { return std::min(std::max(v, lo), hi); });
  }
  if (op == "Add") return {binary(need(0), need(1), std::plus<float>(), where)};
  if (op == "Sub") return {binary(need(0), need(1), std::minus<float>(), where)};
  if (op == "Mul") return {binary(need(0), need(1), std::multiplies<float>(), where)};
  if (op == "Div") return {binary(need(0), need(1), std::divides<float>(), where)};
  if (op == "Pow") return {binary(need(0), need(1), [](float a, float b) { return std::pow(a, b); }, where)};
  if (op == "MaxPool" || op == "AveragePool") {
    if (need(0).shape.size() != 4) fail(g, n, "only 2-D pooling is supported");
    if (op == "MaxPool" && n.outputs.size() > 1 && !n.outputs[1].empty()) fail(g, n, "Indices output is not supported");
    return {pool(n, need(0), op == "MaxPool")};
  }
  if (op == "GlobalAveragePool" || op == "GlobalMaxPool") {
    const FloatTensor& x = need(0);
    std::int64_t nc = x.shape[0] * x.shape[1], hw = count(x.shape) / std::max<std::int64_t>(nc, 1);
    FloatTensor y;
    y.shape = x.shape;
    for (std::size_t d = 2; d < y.shape.size(); ++d) y.shape[d] = 1;
    for (std::int64_t i = 0; i < nc; ++i) {
      double acc = op == "GlobalMaxPool" ? -1e38 : 0.0;
      for (std::int64_t j = 0; j < hw; ++j) {
        float v = x.data[i * hw + j];
        acc = op == "GlobalMaxPool" ? std::max<double>(acc, v) : acc + v;
      }
      y.data.push_back(static_cast<float>(op == "GlobalMaxPool" ? acc : acc / hw));
    }
    return {y};
  }
  if (op == "BatchNormalization") {
    const FloatTensor &x = need(0), &s = need(1), &b = need(2), &m = need(3), &v = need(4);
    float eps = n.get_float("epsilon", 1e-5f);
    FloatTensor y = x;
    std::int64_t C = x.shape.size() > 1 ? x.shape[1] : 1, inner = 1;
    for (std::size_t d = 2; d < x.shape.size(); ++d) inner *= x.shape[d];
    for (std::size_t i = 0; i < y.data.size(); ++i) {
      std::int64_t c = (static_cast<std::int64_t>(i) / inner) % C;
      y.data[i] = (x.data[i] - m.data[c]) / std::sqrt(v.data[c] + eps) * s.data[c] + b.data[c];
    }
    return {y};
  }
  if (op == "Concat") {
    const FloatTensor& x = need(0);
    std::int64_t axis = axis_of(n.get_int("axis", 0), x.shape.size());
    FloatTensor y;
    y.shape = x.shape;
    y.shape[axis] = 0;
    std::int64_t outer = 1;
    for (std::int64_t d = 0; d < axis; ++d) outer *= x.shape[d];
    for (std::size_t i = 0; i < in.size(); ++i) y.shape[axis] += need(i).shape[axis];
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::size_t i = 0; i < in.size(); ++i) {
        std::int64_t chunk = count(need(i).shape) / std::max<std::int64_t>(outer, 1);
        y.data.insert(y.data.end(), need(i).data.begin() + o * chunk, need(i).data.begin() + (o + 1) * chunk);
      }
    return {y};
  }
  if (op == "Flatten" || op == "Reshape" || op == "Squeeze" || op == "Unsqueeze") {
    const Tensor& out = g.tensor(n.outputs[0]);
    if (!out.shape_known) fail(g, n, "output shape is unknown");
    FloatTensor y = need(0);
    y.shape = out.shape;
    if (out.layout == Layout::NHWC && out.shape.size() == 4)  // stored NHWC after the layout pass
      y.shape = {out.shape[0], out.shape[3], out.shape[1], out.shape[2]};
    return {y};
  }
  if (op == "Transpose") return {transpose(need(0), n.get_ints("perm"))};
  if (op == "Resize" || op == "Upsample") {
    const Tensor& out = g.tensor(n.outputs[0]);
    if (!out.shape_known) fail(g, n, "output shape is unknown");
    return {resize_nearest(g, n, need(0), out.shape)};
  }
  if (op == "Softmax") {
    std::int64_t def = g.opset >= 13 ? -1 : 1;
    return {softmax(need(0), n.get_int("axis", def), g.opset)};
  }
  if (op == "Shape") {
    FloatTensor y;
    y.shape = {static_cast<std::int64_t>(need(0).shape.size())};
    for (auto d : need(0).shape) y.data.push_back(static_cast<float>(d));
    return {y};
  }
  if (op == "Cast") return {need(0)};
  if (op == "Gather") {
    const FloatTensor &x = need(0), &idx = need(1);
    std::int64_t axis = axis_of(n.get_int("axis", 0), x.shape.size());
    std::int64_t outer = 1, inner = 1;
    for (std::int64_t d = 0; d < axis; ++d) outer *= x.shape[d];
    for (std::size_t d = axis + 1; d < x.shape.size(); ++d) inner *= x.shape[d];
    FloatTensor y;
    y.shape.assign(x.shape.begin(), x.shape.begin() + axis);
    y.shape.insert(y.shape.end(), idx.shape.begin(), idx.shape.end());
    y.shape.insert(y.shape.end(), x.shape.begin() + axis + 1, x.shape.end());
    for (std::int64_t o = 0; o < outer; ++o)
      for (float fi : idx.data) {
        auto i = static_cast<std::int64_t>(fi);
        if (i < 0) i += x.shape[axis];
        auto start = x.data.begin() + (o * x.shape[axis] + i) * inner;
        y.data.insert(y.data.end(), start, start + inner);
      }
    return {y};
  }
  fail(g, n, "the FP32 evaluator has no kernel for this op");
}

TensorMap graph_constants(const Graph& g) {
  TensorMap constants;
  for (const auto& [name, t] : g.tensors)
    if (t.is_constant) constants[name] = constant_as_float(t);
  return constants;
}

TensorMap evaluate_graph(const Graph& g, const TensorMap& inputs, bool best_effort, const TensorMap* constants) {
  TensorMap values = inputs;
  if (!constants)
    for (const auto& [name, t] : g.tensors)
      if (t.is_constant) values[name] = constant_as_float(t);
  for (const auto& in : g.inputs)
    if (!values.count(in)) throw CompileError(g.source + ": no value given for input '" + in + "'");
  for (const auto& n : g.nodes) {
    std::vector<const FloatTensor*> args;
    bool missing = false;
    for (const auto& i : n.inputs) {
      if (i.empty()) { args.push_back(nullptr); continue; }
      auto it = values.find(i);
      if (it == values.end() && constants) {
        auto c = constants->find(i);
        if (c != constants->end()) {
          args.push_back(&c->second);
          continue;
        }
      }
      if (it == values.end()) {
        if (!best_effort) throw CompileError(g.source + ": node '" + n.name + "' input '" + i + "' has no value");
        missing = true;
        break;
      }
      args.push_back(&it->second);
    }
    if (missing || (best_effort && !evaluator_supports(n))) continue;
    std::vector<FloatTensor> outs;
    try {
      outs = evaluate_node(g, n, args);
    } catch (const CompileError&) {
      if (!best_effort) throw;
      continue;
    }
    for (std::size_t o = 0; o < outs.size() && o < n.outputs.size(); ++o)
      if (!n.outputs[o].empty()) values[n.outputs[o]] = std::move(outs[o]);
  }
  return values;
}

}  // namespace npu::compiler
