#include "tests/support/integer_reference.h"

#include <algorithm>
#include <limits>

#include "compiler/codegen_context.h"
#include "compiler/int8_layer_params.h"
#include "compiler/npu_ops.h"
#include "compiler/shape_inference.h"
#include "compiler/tensor_layout.h"

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

Bytes elementwise(const Graph& g, const Node& n, const Bytes& a, const Bytes* b) {
  const Int8ElementwiseParams p = int8_elementwise_params(g, n);
  Bytes y(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    switch (p.kind) {
      case Int8ElementwiseParams::Kind::Clip: y[i] = clamp_int8(a[i], p.lo, p.hi); break;
      case Int8ElementwiseParams::Kind::Lut: y[i] = p.lut[static_cast<std::uint8_t>(a[i])]; break;
      case Int8ElementwiseParams::Kind::Qadd: y[i] = quantized_add(a[i], (*b)[i], p.qadd); break;
    }
  }
  return y;
}

// The pool instruction on the whole tensor: max pads read -128 (never wins), average pads
// read the input zero point when counted.
Bytes pool(const Graph& g, const Node& n, const Bytes& x) {
  const Extents xe = extents(g, n.inputs[0]), ye = extents(g, n.outputs[0]);
  WindowGeometry geo;
  if (n.op_type == "GlobalAveragePool") {
    geo.kernel_h = xe.h;
    geo.kernel_w = xe.w;
  } else {
    auto k = n.get_ints("kernel_shape");
    geo = window_geometry(n, g.tensor(n.inputs[0]).shape, k[0], k[1]);
  }
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
  Bytes y;
  for (float v : x.data) y.push_back(quantize_value(v, q.scale, q.zero_point));
  return to_physical(y, x.shape, default_order(x.shape.size()));
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
    if (in.empty() || !in[0]) fail(g, n, "its data input is a constant");
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
    } else if (op == "Relu" || op == "Clip" || op == "Sigmoid" || op == "HardSigmoid" || op == "HardSwish" ||
               op == "Tanh" || op == "Add") {
      y = elementwise(g, n, *in[0], op == "Add" ? in[1] : nullptr);
    } else if (op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool") {
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
