#include "tests/support/integer_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "compiler/backend/codegen_context.h"
#include "compiler/backend/matmul_params.h"
#include "compiler/backend/rowwise_params.h"
#include "compiler/core/npu_ops.h"
#include "compiler/core/tensor_layout.h"
#include "compiler/quant/int8_layer_params.h"
#include "compiler/reference/node_geometry.h"
#include "isa/fp16.h"

namespace npu::compiler {
namespace {

using Bytes = std::vector<std::int8_t>;

struct Extents {
  std::int64_t h = 1, w = 1, c = 1;
  std::int64_t elements() const { return h * w * c; }
};

Extents extents(const Graph& g, const std::string& value) {
  Extents e;
  const Tensor& t = g.tensor(value);
  nhwc_extents(t.shape, t.order, e.h, e.w, e.c);
  return e;
}

// A value's bytes as the real numbers they stand for, in logical (row-major) order.
FloatTensor logical_real(const Graph& g, const std::string& value, const Bytes& bytes) {
  const Tensor& t = g.tensor(value);
  FloatTensor f;
  f.shape = t.shape;
  for (std::int8_t q : to_logical(bytes, t.shape, t.order)) f.data.push_back(dequantize_value(q, t.quant.scale, t.quant.zero_point));
  return f;
}

Bytes physical_int8(const Graph& g, const std::string& value, const FloatTensor& f) {
  const Tensor& t = g.tensor(value);
  Bytes q;
  for (float v : f.data) q.push_back(quantize_value(v, t.quant.scale, t.quant.zero_point));
  return to_physical(q, t.shape, t.order);
}

// Data movement keeps every value (input and output share quantisation parameters; a pad or a
// constant operand is quantised on the output's): the FP32 evaluator's op on the dequantised
// logical tensors, quantised again, is exactly what the bytes must be.
std::vector<Bytes> move(const Graph& g, const Node& n, const std::vector<const Bytes*>& in) {
  std::vector<FloatTensor> operands(n.inputs.size());
  std::vector<const FloatTensor*> ptrs;
  for (std::size_t i = 0; i < n.inputs.size(); ++i) {
    const std::string& v = n.inputs[i];
    if (v.empty()) {
      ptrs.push_back(nullptr);
      continue;
    }
    operands[i] = g.is_constant(v) ? constant_as_float(g.tensor(v)) : logical_real(g, v, *in[i]);
    ptrs.push_back(&operands[i]);
  }
  Node logical = n;
  if (n.op_type == "Relayout") {  // the same logical tensor in another order
    logical.op_type = "Identity";
    logical.domain.clear();
  }
  std::vector<FloatTensor> outs = evaluate_node(g, logical, ptrs);
  std::vector<Bytes> r;
  for (std::size_t k = 0; k < n.outputs.size(); ++k)
    r.push_back(n.outputs[k].empty() ? Bytes{} : physical_int8(g, n.outputs[k], outs.at(k)));
  return r;
}

[[noreturn]] void fail(const Graph& g, const Node& n, const std::string& what) {
  throw CompileError(g.source + ": integer reference: node '" + n.name + "' (" + n.op_type + "): " + what);
}

std::int32_t saturate32(std::int64_t v) {
  return static_cast<std::int32_t>(std::clamp<std::int64_t>(v, std::numeric_limits<std::int32_t>::min(),
                                                            std::numeric_limits<std::int32_t>::max()));
}

// The vector epilogue of a fused Conv/Gemm on one output pixel's accumulators.
void epilogue(const Int8ConvParams& p, const std::uint32_t* acc, const std::int8_t* residual, std::int8_t* out,
              std::int64_t channels) {
  for (std::int64_t o = 0; o < channels; ++o) {
    std::int32_t a = saturate32(static_cast<std::int64_t>(static_cast<std::int32_t>(acc[o])) + p.bias[o]);
    std::int8_t v = requantize(a, p.requant[o], p.requant_zero_point, p.clamp_min, p.clamp_max);
    if (!p.lut.empty()) v = p.lut[static_cast<std::uint8_t>(v)];
    if (p.residual) v = quantized_add(v, residual[o], p.qadd);
    out[o] = v;
  }
}

// acc[j] += a * b[j]: int32 accumulators that wrap like the array's (unsigned arithmetic).
void axpy(std::uint32_t* acc, std::int8_t a, const std::int8_t* b, std::int64_t n) {
  const std::int32_t av = a;
  for (std::int64_t j = 0; j < n; ++j) acc[j] += static_cast<std::uint32_t>(av * b[j]);
}

Bytes fused_gemm(const Graph& g, const Node& n, const Bytes& x, const Bytes* residual) {
  const Int8ConvParams p = int8_conv_params(g, n);
  const Extents xe = extents(g, n.inputs[0]), ye = extents(g, n.outputs[0]);
  const std::int64_t M = xe.h * xe.w, K = xe.c, N = ye.c;  // weights [K][N]
  Bytes y(static_cast<std::size_t>(M * N));
  std::vector<std::uint32_t> acc(static_cast<std::size_t>(N));
  for (std::int64_t i = 0; i < M; ++i) {
    std::fill(acc.begin(), acc.end(), 0u);
    for (std::int64_t k = 0; k < K; ++k) axpy(acc.data(), x[i * K + k], &p.weights[k * N], N);
    epilogue(p, acc.data(), residual ? &(*residual)[i * N] : nullptr, &y[i * N], N);
  }
  return y;
}

Bytes fused_conv(const Graph& g, const Node& n, const Bytes& x, const Bytes* residual) {
  const Int8ConvParams p = int8_conv_params(g, n);
  const Tensor& wt = g.tensor(n.inputs[1]);
  const WindowGeometry geo = window_geometry(n, g.tensor(n.inputs[0]).shape, wt.shape[2], wt.shape[3]);
  const Extents xe = extents(g, n.inputs[0]), ye = extents(g, n.outputs[0]);
  const std::int64_t groups = n.get_int("group", 1), icg = xe.c / groups, ocg = ye.c / groups;
  const std::int64_t KH = geo.kernel_h, KW = geo.kernel_w;
  // [group][kh][kw][icg][ocg]: output channels innermost, as the instruction's weight layout.
  Bytes w(p.weights.size());
  for (std::int64_t o = 0; o < ye.c; ++o)
    for (std::int64_t i = 0; i < icg; ++i)
      for (std::int64_t kh = 0; kh < KH; ++kh)
        for (std::int64_t kw = 0; kw < KW; ++kw)
          w[((((o / ocg) * KH + kh) * KW + kw) * icg + i) * ocg + o % ocg] = p.weights[((o * icg + i) * KH + kh) * KW + kw];
  const Bytes pad_row(static_cast<std::size_t>(icg), static_cast<std::int8_t>(p.input_zero_point));
  Bytes y(static_cast<std::size_t>(ye.elements()));
  std::vector<std::uint32_t> acc(static_cast<std::size_t>(ye.c));
  for (std::int64_t oy = 0; oy < ye.h; ++oy)
    for (std::int64_t ox = 0; ox < ye.w; ++ox) {
      std::fill(acc.begin(), acc.end(), 0u);
      for (std::int64_t gi = 0; gi < groups; ++gi)
        for (std::int64_t kh = 0; kh < KH; ++kh)
          for (std::int64_t kw = 0; kw < KW; ++kw) {
            std::int64_t iy = oy * geo.stride_h - geo.pad_top + kh * geo.dilation_h;
            std::int64_t ix = ox * geo.stride_w - geo.pad_left + kw * geo.dilation_w;
            bool inside = iy >= 0 && ix >= 0 && iy < xe.h && ix < xe.w;
            const std::int8_t* src = inside ? &x[(iy * xe.w + ix) * xe.c + gi * icg] : pad_row.data();
            const std::int8_t* wk = &w[((gi * KH + kh) * KW + kw) * icg * ocg];
            for (std::int64_t i = 0; i < icg; ++i) axpy(&acc[gi * ocg], src[i], wk + i * ocg, ocg);
          }
      std::int64_t at = (oy * ye.w + ox) * ye.c;
      epilogue(p, acc.data(), residual ? &(*residual)[at] : nullptr, &y[at], ye.c);
    }
  return y;
}

// An operand in logical order: an activation's bytes, or a constant quantised on `q` as codegen
// places it.
Bytes logical_operand(const Graph& g, const std::string& name, const Bytes* bytes, const QuantParams& q) {
  const Tensor& t = g.tensor(name);
  if (!t.is_constant) return to_logical(*bytes, t.shape, t.order);
  Bytes r;
  for (float v : constant_as_float(t).data) r.push_back(quantize_value(v, q.scale, q.zero_point));
  return r;
}

// Element offsets of `shape` broadcast into `out` (numpy: aligned right), in out's row-major order.
std::vector<std::int64_t> broadcast_index(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& out) {
  std::vector<std::int64_t> strides(out.size(), 0);
  std::int64_t s = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    strides[out.size() - shape.size() + i] = shape[i] == 1 ? 0 : s;
    s *= shape[i];
  }
  std::int64_t n = 1;
  for (auto d : out) n *= d;
  std::vector<std::int64_t> idx(static_cast<std::size_t>(n));
  std::vector<std::int64_t> coord(out.size(), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t off = 0;
    for (std::size_t k = 0; k < out.size(); ++k) off += coord[k] * strides[k];
    idx[static_cast<std::size_t>(i)] = off;
    for (std::size_t k = out.size(); k-- > 0;) {
      if (++coord[k] < out[k]) break;
      coord[k] = 0;
    }
  }
  return idx;
}

// fp32 arithmetic of the binary instruction on fp16 operands, rounded once to fp16.
float binary_fp16(isa::BinaryFunction f, float a, float b) {
  float r = 0.0f;
  switch (f) {
    case isa::BinaryFunction::Add: r = a + b; break;
    case isa::BinaryFunction::Sub: r = a - b; break;
    case isa::BinaryFunction::Mul: r = a * b; break;
    case isa::BinaryFunction::Max: r = std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); break;
    case isa::BinaryFunction::Min: r = std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b); break;
    case isa::BinaryFunction::Div: r = a / b; break;
    case isa::BinaryFunction::Pow: r = std::pow(a, b); break;
    case isa::BinaryFunction::Prelu: r = a >= 0.0f ? a : a * b; break;
  }
  return isa::round_to_half(r);
}

// dequantize (fp32 product rounded to fp16) and quantize (fp32 quotient, half to even, saturate).
float dequantize_fp16(std::int8_t q, const QuantParams& p) {
  return isa::round_to_half(static_cast<float>(q - p.zero_point) * p.scale);
}
std::int8_t quantize_fp16(float x, const QuantParams& p) {
  if (std::isnan(x)) return clamp_int8(p.zero_point, -128, 127);
  const float r = std::nearbyint(x / p.scale);
  return static_cast<std::int8_t>(std::clamp(static_cast<double>(r) + p.zero_point, -128.0, 127.0));
}

Bytes elementwise(const Graph& g, const Node& n, const std::vector<const Bytes*>& in) {
  const Int8ElementwiseParams p = int8_elementwise_params(g, n);
  const Tensor& yt = g.tensor(n.outputs[0]);
  using K = Int8ElementwiseParams::Kind;
  if (p.kind == K::Clip || p.kind == K::Lut) {
    const int x = p.kind == K::Clip ? 0 : unary_operand(g, n);
    const Bytes& a = *in.at(static_cast<std::size_t>(x));
    Bytes y(a.size());
    for (std::size_t i = 0; i < a.size(); ++i)
      y[i] = p.kind == K::Clip ? clamp_int8(a[i], p.lo, p.hi) : p.lut[static_cast<std::uint8_t>(a[i])];
    return y;  // same shape and order in and out
  }
  const Bytes a = logical_operand(g, n.inputs[0], in[0], p.operands[0]);
  const Bytes b = logical_operand(g, n.inputs[1], in[1], p.operands[1]);
  const auto ia = broadcast_index(g.tensor(n.inputs[0]).shape, yt.shape);
  const auto ib = broadcast_index(g.tensor(n.inputs[1]).shape, yt.shape);
  Bytes y(ia.size());
  for (std::size_t i = 0; i < y.size(); ++i) {
    const std::int8_t va = a[static_cast<std::size_t>(ia[i])], vb = b[static_cast<std::size_t>(ib[i])];
    switch (p.kind) {
      case K::Qadd: y[i] = quantized_add(va, vb, p.qadd); break;
      case K::QBinary: y[i] = quantized_binary(va, vb, p.qbinary); break;
      default:
        y[i] = quantize_fp16(binary_fp16(p.island_function, dequantize_fp16(va, p.operands[0]), dequantize_fp16(vb, p.operands[1])),
                             yt.quant);
        break;
    }
  }
  return to_physical(y, yt.shape, yt.order);
}

// Values an int8 program keeps in fp16 (a masked attention score, -inf where masked): no
// quantisation parameters. Their bytes are little-endian binary16.
bool fp16_value(const Graph& g, const std::string& v) { return !g.tensor(v).quant.valid(); }
std::vector<float> fp16_elements(const Bytes& b) {
  std::vector<float> r(b.size() / 2);
  for (std::size_t i = 0; i < r.size(); ++i)
    r[i] = isa::half_to_float(static_cast<std::uint16_t>(static_cast<std::uint8_t>(b[2 * i]) | (static_cast<std::uint8_t>(b[2 * i + 1]) << 8)));
  return r;
}
Bytes fp16_bytes(const std::vector<float>& v) {
  Bytes b;
  for (float x : v) {
    const std::uint16_t h = isa::float_to_half(x);
    b.push_back(static_cast<std::int8_t>(h & 0xff));
    b.push_back(static_cast<std::int8_t>(h >> 8));
  }
  return b;
}

// Where with a constant condition, as codegen's fp16 island: the selected operand dequantized
// (or a constant rounded to fp16), x * M + K with M = c ? 1 : 0 and K the other branch where
// c is false (mirrored for a constant x; (x - y) * M + y for two computed operands), each
// fp16 binary op rounding once; quantized unless the output stays fp16 (a mask fill).
Bytes where(const Graph& g, const Node& n, const std::vector<const Bytes*>& in) {
  const Tensor& yt = g.tensor(n.outputs[0]);
  const auto cond = constant_as_float(g.tensor(n.inputs[0])).data;
  auto operand = [&](std::size_t i) {
    const Tensor& t = g.tensor(n.inputs[i]);
    std::vector<float> v;
    if (t.is_constant)
      for (float f : constant_as_float(t).data) v.push_back(isa::half_to_float(isa::float_to_half_saturating(f)));  // as codegen writes it
    else
      for (std::int8_t q : to_logical(*in[i], t.shape, t.order)) v.push_back(dequantize_fp16(q, t.quant));
    return v;
  };
  const auto xv = operand(1), yv = operand(2);
  const auto ic = broadcast_index(g.tensor(n.inputs[0]).shape, yt.shape);
  const auto ix = broadcast_index(g.tensor(n.inputs[1]).shape, yt.shape);
  const auto iy = broadcast_index(g.tensor(n.inputs[2]).shape, yt.shape);
  const bool xc = g.is_constant(n.inputs[1]), yc = g.is_constant(n.inputs[2]);
  std::vector<float> r(ic.size());
  for (std::size_t i = 0; i < r.size(); ++i) {
    const bool c = cond[static_cast<std::size_t>(ic[i])] != 0.0f;
    const float x = xv[static_cast<std::size_t>(ix[i])], y = yv[static_cast<std::size_t>(iy[i])];
    if (!xc && yc) r[i] = isa::round_to_half(isa::round_to_half(x * (c ? 1.0f : 0.0f)) + (c ? 0.0f : y));
    else if (xc && !yc) r[i] = isa::round_to_half(isa::round_to_half(y * (c ? 0.0f : 1.0f)) + (c ? x : 0.0f));
    else r[i] = isa::round_to_half(isa::round_to_half(isa::round_to_half(x - y) * (c ? 1.0f : 0.0f)) + y);
  }
  r = to_physical(r, yt.shape, yt.order);
  if (fp16_value(g, n.outputs[0])) return fp16_bytes(r);
  Bytes q;
  for (float v : r) q.push_back(quantize_fp16(v, yt.quant));
  return q;
}

// Softmax, LayerNorm and reductions on the physical outer x mid x inner view (rowwise_params.h),
// with the fp32 arithmetic of the softmax / layernorm / reduce instructions in their element
// order; int8 max/min on the integers, everything else dequantized to fp16 and quantized back.
Bytes rowwise(const Graph& g, const Node& n, const Bytes& xb) {
  const RowwiseOp op = rowwise_op(g, n, true);
  const RowwiseShape& s = op.shape;
  const Tensor& xt = g.tensor(n.inputs[0]);
  const Tensor& yt = g.tensor(n.outputs[0]);
  const std::int64_t out_count = s.outer * s.out_mid * s.inner;
  if (op.int8_direct) {
    Bytes y(static_cast<std::size_t>(out_count));
    for (std::int64_t o = 0; o < s.outer; ++o)
      for (std::int64_t i = 0; i < s.inner; ++i) {
        std::int32_t acc = xb[static_cast<std::size_t>(o * s.mid * s.inner + i)];
        for (std::int64_t r = 1; r < s.mid; ++r) {
          const std::int32_t v = xb[static_cast<std::size_t>((o * s.mid + r) * s.inner + i)];
          acc = op.reduce == isa::ReduceFunction::Max ? std::max(acc, v) : std::min(acc, v);
        }
        y[static_cast<std::size_t>(o * s.inner + i)] = static_cast<std::int8_t>(acc);
      }
    return y;
  }
  std::vector<float> x;
  if (fp16_value(g, n.inputs[0])) x = fp16_elements(xb);
  else
    for (std::int8_t q : xb) x.push_back(dequantize_fp16(q, xt.quant));
  std::vector<float> y(static_cast<std::size_t>(out_count));
  auto at = [&](std::int64_t o, std::int64_t r, std::int64_t i) { return static_cast<std::size_t>((o * s.mid + r) * s.inner + i); };
  for (std::int64_t o = 0; o < s.outer; ++o)
    for (std::int64_t i = 0; i < s.inner; ++i) {
      switch (op.kind) {
        case RowwiseKind::Softmax:
        case RowwiseKind::LogSoftmax: {
          std::vector<float> e(static_cast<std::size_t>(s.mid));
          float m = -INFINITY;
          for (std::int64_t r = 0; r < s.mid; ++r) m = std::max(m, e[static_cast<std::size_t>(r)] = x[at(o, r, i)]);
          float sum = 0;
          for (std::int64_t r = 0; r < s.mid; ++r) sum += (e[static_cast<std::size_t>(r)] = std::exp(e[static_cast<std::size_t>(r)] - m));
          for (std::int64_t r = 0; r < s.mid; ++r) {
            float v = isa::round_to_half(e[static_cast<std::size_t>(r)] / sum);
            if (op.kind == RowwiseKind::LogSoftmax) v = isa::round_to_half(std::log(v));
            y[at(o, r, i)] = v;
          }
          break;
        }
        case RowwiseKind::LayerNorm: {
          const float cnt = static_cast<float>(s.mid);
          float sum = 0.0f;
          for (std::int64_t r = 0; r < s.mid; ++r) sum += x[at(o, r, i)];
          const float mean = sum / cnt;
          float sq = 0.0f;
          for (std::int64_t r = 0; r < s.mid; ++r) sq += (x[at(o, r, i)] - mean) * (x[at(o, r, i)] - mean);
          const float inv = 1.0f / std::sqrt(sq / cnt + op.epsilon);
          for (std::int64_t r = 0; r < s.mid; ++r)
            y[at(o, r, i)] = isa::round_to_half((x[at(o, r, i)] - mean) * inv * op.gamma[static_cast<std::size_t>(r)] + op.beta[static_cast<std::size_t>(r)]);
          break;
        }
        case RowwiseKind::Reduce: {
          const bool square = op.reduce == isa::ReduceFunction::SumSquare;
          float acc = square ? x[at(o, 0, i)] * x[at(o, 0, i)] : x[at(o, 0, i)];
          for (std::int64_t r = 1; r < s.mid; ++r) {
            const float v = x[at(o, r, i)];
            switch (op.reduce) {
              case isa::ReduceFunction::Max: acc = v > acc || v != v ? v : acc; break;
              case isa::ReduceFunction::Min: acc = v < acc || v != v ? v : acc; break;
              case isa::ReduceFunction::SumSquare: acc = acc + v * v; break;
              default: acc = acc + v; break;
            }
          }
          if (op.reduce == isa::ReduceFunction::Mean) acc = acc / static_cast<float>(s.mid);
          float v = isa::round_to_half(acc);
          if (op.sqrt_after) v = isa::round_to_half(std::sqrt(v));
          y[static_cast<std::size_t>(o * s.inner + i)] = v;
          break;
        }
      }
    }
  if (fp16_value(g, n.outputs[0])) return fp16_bytes(y);
  Bytes q;
  for (float v : y) q.push_back(quantize_fp16(v, yt.quant));
  return q;
}

// MatMul of computed tensors: sum over k of (a - za)(b - zb) in wrapping int32, requantized per
// tensor, for every batch index (broadcast), in logical order.
Bytes matmul(const Graph& g, const Node& n, const std::vector<const Bytes*>& in) {
  const Int8MatMulParams p = int8_matmul_params(g, n);
  const Tensor& at = g.tensor(n.inputs[0]);
  const Tensor& bt = g.tensor(n.inputs[1]);
  const Tensor& yt = g.tensor(n.outputs[0]);
  const Bytes a = logical_operand(g, n.inputs[0], in[0], p.a), b = logical_operand(g, n.inputs[1], in[1], p.b);
  const std::int64_t M = at.shape[at.shape.size() - 2], K = at.shape.back(), N = bt.shape.back();
  std::vector<std::int64_t> ab(at.shape.begin(), at.shape.end() - 2), bb(bt.shape.begin(), bt.shape.end() - 2);
  std::vector<std::int64_t> batch(yt.shape.begin(), yt.shape.end() - 2);
  const auto ia = broadcast_index(ab, batch), ib = broadcast_index(bb, batch);
  Bytes y(static_cast<std::size_t>(yt.elements()));
  for (std::size_t bi = 0; bi < ia.size(); ++bi)
    for (std::int64_t m = 0; m < M; ++m)
      for (std::int64_t j = 0; j < N; ++j) {
        std::uint32_t acc = 0;
        for (std::int64_t k = 0; k < K; ++k) {
          const std::int32_t va = a[static_cast<std::size_t>((ia[bi] * M + m) * K + k)] - p.a.zero_point;
          const std::int32_t vb = b[static_cast<std::size_t>((ib[bi] * K + k) * N + j)] - p.b.zero_point;
          acc += static_cast<std::uint32_t>(va * vb);
        }
        y[static_cast<std::size_t>((static_cast<std::int64_t>(bi) * M + m) * N + j)] =
            requantize(static_cast<std::int32_t>(acc), p.requant, yt.quant.zero_point, -128, 127);
      }
  return to_physical(y, yt.shape, yt.order);
}

// The pool instruction on the whole tensor: max pads read -128 (never wins), average pads
// read the input zero point when counted.
Bytes pool(const Graph& g, const Node& n, const Bytes& x) {
  const Extents xe = extents(g, n.inputs[0]), ye = extents(g, n.outputs[0]);
  auto k = n.get_ints("kernel_shape");
  const WindowGeometry geo = window_geometry(n, g.tensor(n.inputs[0]).shape, k[0], k[1]);
  const bool is_max = n.op_type == "MaxPool";
  const bool include_pad = n.get_int("count_include_pad", 0) != 0;
  const std::int64_t pad = is_max ? -128 : g.tensor(n.inputs[0]).quant.zero_point;
  Bytes y(static_cast<std::size_t>(ye.elements()));
  for (std::int64_t oy = 0; oy < ye.h; ++oy)
    for (std::int64_t ox = 0; ox < ye.w; ++ox)
      for (std::int64_t c = 0; c < xe.c; ++c) {
        std::int64_t acc = is_max ? std::numeric_limits<std::int64_t>::min() : 0, count = 0;
        for (std::int64_t kh = 0; kh < geo.kernel_h; ++kh)
          for (std::int64_t kw = 0; kw < geo.kernel_w; ++kw) {
            std::int64_t iy = oy * geo.stride_h - geo.pad_top + kh, ix = ox * geo.stride_w - geo.pad_left + kw;
            bool inside = iy >= 0 && ix >= 0 && iy < xe.h && ix < xe.w;
            if (!inside && !is_max && !include_pad) continue;
            std::int64_t v = inside ? x[(iy * xe.w + ix) * xe.c + c] : pad;
            acc = is_max ? std::max(acc, v) : acc + v;
            ++count;
          }
        y[(oy * ye.w + ox) * ye.c + c] = is_max ? clamp_int8(acc, -128, 127) : count ? average_int8(acc, count) : 0;
      }
  return y;
}

// Nearest resize by integer factors (the partitioner admits nothing else): a replication.
Bytes resize(const Graph& g, const Node& n, const Bytes& x) {
  const Extents xe = extents(g, n.inputs[0]), ye = extents(g, n.outputs[0]);
  const std::int64_t sh = ye.h / xe.h, sw = ye.w / xe.w;
  Bytes y(static_cast<std::size_t>(ye.elements()));
  for (std::int64_t oy = 0; oy < ye.h; ++oy)
    for (std::int64_t ox = 0; ox < ye.w; ++ox)
      std::copy_n(&x[((oy / sh) * xe.w + ox / sw) * xe.c], xe.c, &y[(oy * ye.w + ox) * ye.c]);
  return y;
}

}  // namespace

std::vector<std::int8_t> quantize_to_nhwc(const FloatTensor& x, const QuantParams& q) {
  return quantize_in_order(x, q, default_order(x.shape.size()));
}

std::vector<std::int8_t> quantize_in_order(const FloatTensor& x, const QuantParams& q, const AxisOrder& order) {
  Bytes y;
  for (float v : x.data) y.push_back(quantize_value(v, q.scale, q.zero_point));
  return to_physical(y, x.shape, order_or_identity(order, x.shape.size()));
}

Int8Values run_integer_reference(const Graph& g, Int8Values values) {
  for (const Node& n : g.nodes) {
    const std::string& op = n.op_type;
    if (n.device != Node::Device::Npu) {
      for (const auto& o : n.outputs)
        if (!o.empty() && !values.count(o)) fail(g, n, "runs on the CPU: its output '" + o + "' must be given");
      continue;
    }
    std::vector<const Bytes*> in;
    for (const auto& v : n.inputs) {
      if (v.empty() || g.is_constant(v)) {
        in.push_back(nullptr);
        continue;
      }
      auto it = values.find(v);
      if (it == values.end()) fail(g, n, "input '" + v + "' has no value");
      in.push_back(&it->second);
    }
    if (std::none_of(in.begin(), in.end(), [](const Bytes* b) { return b != nullptr; })) fail(g, n, "every input is a constant");
    Bytes y;
    if (move_ops().count(op)) {
      auto outs = move(g, n, in);
      for (std::size_t k = 0; k < n.outputs.size(); ++k)
        if (!n.outputs[k].empty()) values[n.outputs[k]] = std::move(outs[k]);
      continue;
    }
    if (op == "FusedConv" || op == "FusedGemm") {
      const Bytes* residual = in.size() > 3 ? in[3] : nullptr;
      y = op == "FusedConv" ? fused_conv(g, n, *in[0], residual) : fused_gemm(g, n, *in[0], residual);
    } else if (unary_ops().count(op) || binary_ops().count(op)) {
      y = elementwise(g, n, in);
    } else if (op == "Where") {
      y = where(g, n, in);
    } else if (is_rowwise_op(op)) {
      y = rowwise(g, n, *in[0]);
    } else if (op == "MatMul") {
      y = matmul(g, n, in);
    } else if (op == "MaxPool" || op == "AveragePool") {
      y = pool(g, n, *in[0]);
    } else if (op == "Resize" || op == "Upsample") {
      y = resize(g, n, *in[0]);
    } else {
      fail(g, n, "no int8 semantics (the NPU does not run it in int8)");
    }
    values[n.outputs[0]] = std::move(y);
  }
  return values;
}

}  // namespace npu::compiler
