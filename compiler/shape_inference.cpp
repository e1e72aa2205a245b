#include "compiler/shape_inference.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace npu::compiler {
namespace {

std::string where_of(const Graph& g, const Node& n) {
  return g.source + ": node '" + n.name + "' (" + n.op_type + ")";
}

std::int64_t normalize_axis(std::int64_t axis, std::size_t rank) {
  return axis < 0 ? axis + static_cast<std::int64_t>(rank) : axis;
}

// Constant int64 input values (shape, axes, ...) or empty when absent / not constant.
bool const_ints(const Graph& g, const Node& n, std::size_t input, std::vector<std::int64_t>& out) {
  if (input >= n.inputs.size() || n.inputs[input].empty()) return false;
  const Tensor& t = g.tensor(n.inputs[input]);
  if (!t.is_constant) return false;
  if (!t.ints.empty()) out = t.ints;
  else {
    out.clear();
    for (float f : t.floats) out.push_back(static_cast<std::int64_t>(f));
  }
  return true;
}

bool const_floats(const Graph& g, const Node& n, std::size_t input, std::vector<float>& out) {
  if (input >= n.inputs.size() || n.inputs[input].empty()) return false;
  const Tensor& t = g.tensor(n.inputs[input]);
  if (!t.is_constant) return false;
  out = t.floats;
  if (out.empty())
    for (auto i : t.ints) out.push_back(static_cast<float>(i));
  return true;
}

void set_output(Graph& g, const Node& n, std::size_t index, std::vector<std::int64_t> shape,
                int elem_type) {
  if (index >= n.outputs.size() || n.outputs[index].empty()) return;
  Tensor& t = g.tensor(n.outputs[index]);
  t.shape = std::move(shape);
  t.shape_known = true;
  t.dim_names.clear();
  if (elem_type) t.elem_type = elem_type;
}

const std::set<std::string> kUnary = {
    "Relu", "Sigmoid", "Tanh", "Clip", "HardSigmoid", "HardSwish", "LeakyRelu", "Elu", "Selu",
    "Softmax", "LogSoftmax", "Identity", "Dropout", "Neg", "Abs", "Exp", "Log", "Sqrt",
    "Reciprocal", "Floor", "Ceil", "Erf", "Softplus", "Softsign", "Gelu", "Mish", "PRelu",
    "BatchNormalization", "LRN", "InstanceNormalization", "LayerNormalization", "Round", "Sign",
    "Sin", "Cos", "Celu", "ThresholdedRelu", "Shrink", "Hardmax"};
const std::set<std::string> kBinary = {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min",
                                       "Equal", "Less", "Greater", "And", "Or", "Sum", "Mean"};

bool infer_node(Graph& g, Node& n) {
  const std::string& op = n.op_type;
  auto in = [&](std::size_t i) -> const Tensor* {
    if (i >= n.inputs.size() || n.inputs[i].empty()) return nullptr;
    return &g.tensor(n.inputs[i]);
  };
  const Tensor* x = in(0);
  if (!x || !x->shape_known) return false;
  const auto& xs = x->shape;
  int xt = x->elem_type;
  std::string where = where_of(g, n);

  if (op == "Conv" || op == "FusedConv") {
    const Tensor* w = in(1);
    if (!w || !w->shape_known || w->shape.size() != 4 || xs.size() != 4) return false;
    auto group = n.get_int("group", 1);
    if (xs[1] != w->shape[1] * group)
      throw CompileError(where + ": input has " + std::to_string(xs[1]) + " channels, weights expect " +
                         std::to_string(w->shape[1] * group));
    auto geo = window_geometry(n, xs, w->shape[2], w->shape[3]);
    set_output(g, n, 0, {xs[0], w->shape[0], geo.out_h, geo.out_w}, xt);
    return true;
  }
  if (op == "MaxPool" || op == "AveragePool" || op == "LpPool") {
    if (xs.size() != 4) return false;
    auto k = n.get_ints("kernel_shape");
    if (k.size() != 2) return false;
    auto geo = window_geometry(n, xs, k[0], k[1]);
    set_output(g, n, 0, {xs[0], xs[1], geo.out_h, geo.out_w}, xt);
    return true;
  }
  if (op == "GlobalAveragePool" || op == "GlobalMaxPool") {
    std::vector<std::int64_t> s = xs;
    for (std::size_t i = 2; i < s.size(); ++i) s[i] = 1;
    set_output(g, n, 0, s, xt);
    return true;
  }
  if (op == "Gemm" || op == "FusedGemm") {
    const Tensor* b = in(1);
    if (!b || !b->shape_known || xs.size() != 2 || b->shape.size() != 2) return false;
    auto m = n.get_int("transA", 0) ? xs[1] : xs[0];
    auto ka = n.get_int("transA", 0) ? xs[0] : xs[1];
    auto kb = n.get_int("transB", 0) ? b->shape[1] : b->shape[0];
    auto nn = n.get_int("transB", 0) ? b->shape[0] : b->shape[1];
    if (ka != kb)
      throw CompileError(where + ": inner dimensions differ (" + std::to_string(ka) + " vs " +
                         std::to_string(kb) + ")");
    set_output(g, n, 0, {m, nn}, xt);
    return true;
  }
  if (op == "MatMul" || op == "FusedMatMul") {
    const Tensor* b = in(1);
    if (!b || !b->shape_known || xs.empty() || b->shape.empty()) return false;
    auto as = xs, bs = b->shape;
    if (as.size() == 1) as.insert(as.begin(), 1);
    if (bs.size() == 1) bs.push_back(1);
    if (as.back() != bs[bs.size() - 2])
      throw CompileError(where + ": inner dimensions differ (" + std::to_string(as.back()) + " vs " +
                         std::to_string(bs[bs.size() - 2]) + ")");
    std::vector<std::int64_t> ab(as.begin(), as.end() - 2), bb(bs.begin(), bs.end() - 2);
    auto batch = broadcast_shapes(ab, bb, where);
    batch.push_back(as[as.size() - 2]);
    batch.push_back(bs.back());
    if (xs.size() == 1) batch.erase(batch.end() - 2);
    if (b->shape.size() == 1) batch.pop_back();
    set_output(g, n, 0, batch, xt);
    return true;
  }
  if (kUnary.count(op)) {
    set_output(g, n, 0, xs, xt);
    return true;
  }
  if (kBinary.count(op)) {
    std::vector<std::int64_t> s = xs;
    for (std::size_t i = 1; i < n.inputs.size(); ++i) {
      const Tensor* y = in(i);
      if (!y || !y->shape_known) return false;
      s = broadcast_shapes(s, y->shape, where);
    }
    bool logical = op == "Equal" || op == "Less" || op == "Greater" || op == "And" || op == "Or";
    set_output(g, n, 0, s, logical ? kBool : xt);
    return true;
  }
  if (op == "Concat") {
    auto axis = normalize_axis(n.get_int("axis", 0), xs.size());
    std::vector<std::int64_t> s = xs;
    s[axis] = 0;
    for (std::size_t i = 0; i < n.inputs.size(); ++i) {
      const Tensor* y = in(i);
      if (!y || !y->shape_known) return false;
      if (y->shape.size() != xs.size())
        throw CompileError(where + ": inputs have different ranks");
      for (std::size_t d = 0; d < xs.size(); ++d)
        if (static_cast<std::int64_t>(d) != axis && y->shape[d] != xs[d])
          throw CompileError(where + ": input '" + n.inputs[i] + "' dim " + std::to_string(d) +
                             " is " + std::to_string(y->shape[d]) + ", expected " + std::to_string(xs[d]));
      s[axis] += y->shape[axis];
    }
    set_output(g, n, 0, s, xt);
    return true;
  }
  if (op == "Flatten") {
    auto axis = normalize_axis(n.get_int("axis", 1), xs.size());
    std::int64_t a = 1, b = 1;
    for (std::size_t d = 0; d < xs.size(); ++d) (static_cast<std::int64_t>(d) < axis ? a : b) *= xs[d];
    set_output(g, n, 0, {a, b}, xt);
    return true;
  }
  if (op == "Reshape") {
    std::vector<std::int64_t> shape;
    if (!const_ints(g, n, 1, shape)) return false;
    std::int64_t total = x->elements(), known = 1;
    int infer = -1;
    for (std::size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] == 0 && !n.get_int("allowzero", 0)) shape[d] = d < xs.size() ? xs[d] : 0;
      if (shape[d] == -1) infer = static_cast<int>(d);
      else known *= shape[d];
    }
    if (infer >= 0) shape[infer] = known ? total / known : 0;
    std::int64_t count = 1;
    for (auto d : shape) count *= d;
    if (count != total)
      throw CompileError(where + ": cannot reshape " + shape_string(xs) + " to " + shape_string(shape));
    set_output(g, n, 0, shape, xt);
    return true;
  }
  if (op == "Transpose") {
    auto perm = n.get_ints("perm");
    if (perm.empty())
      for (std::size_t d = 0; d < xs.size(); ++d) perm.insert(perm.begin(), static_cast<std::int64_t>(d));
    std::vector<std::int64_t> s;
    for (auto p : perm) s.push_back(xs[p]);
    set_output(g, n, 0, s, xt);
    return true;
  }
  if (op == "Squeeze" || op == "Unsqueeze") {
    std::vector<std::int64_t> axes = n.get_ints("axes");
    if (axes.empty()) const_ints(g, n, 1, axes);
    std::vector<std::int64_t> s;
    if (op == "Squeeze") {
      for (auto& a : axes) a = normalize_axis(a, xs.size());
      for (std::size_t d = 0; d < xs.size(); ++d) {
        bool drop = axes.empty() ? xs[d] == 1
                                 : std::find(axes.begin(), axes.end(), static_cast<std::int64_t>(d)) != axes.end();
        if (!drop) s.push_back(xs[d]);
      }
    } else {
      std::size_t rank = xs.size() + axes.size();
      for (auto& a : axes) a = normalize_axis(a, rank);
      std::size_t k = 0;
      for (std::size_t d = 0; d < rank; ++d)
        s.push_back(std::find(axes.begin(), axes.end(), static_cast<std::int64_t>(d)) != axes.end() ? 1 : xs[k++]);
    }
    set_output(g, n, 0, s, xt);
    return true;
  }
  if (op == "Resize" || op == "Upsample") {
    std::vector<float> scales;
    std::vector<std::int64_t> sizes;
    std::vector<std::int64_t> s = xs;
    if (op == "Upsample") {
      if (!const_floats(g, n, 1, scales)) scales = n.attributes.count("scales") ? n.attributes.at("scales").floats : std::vector<float>{};
    } else if (!const_ints(g, n, 3, sizes)) {
      std::size_t scales_input = g.opset >= 11 ? 2 : 1;
      const_floats(g, n, scales_input, scales);
    }
    if (sizes.size() == xs.size()) {
      s = sizes;
    } else if (scales.size() == xs.size()) {
      for (std::size_t d = 0; d < xs.size(); ++d)
        s[d] = static_cast<std::int64_t>(std::floor(static_cast<double>(xs[d]) * scales[d]));
    } else {
      return false;
    }
    set_output(g, n, 0, s, xt);
    return true;
  }
  return false;
}

}  // namespace

std::vector<std::int64_t> broadcast_shapes(const std::vector<std::int64_t>& a,
                                           const std::vector<std::int64_t>& b,
                                           const std::string& where) {
  std::size_t rank = std::max(a.size(), b.size());
  std::vector<std::int64_t> out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    std::int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    std::int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      throw CompileError(where + ": shapes " + shape_string(a) + " and " + shape_string(b) +
                         " do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

WindowGeometry window_geometry(const Node& n, const std::vector<std::int64_t>& xs,
                               std::int64_t kh, std::int64_t kw) {
  if (xs.size() != 4) throw CompileError("node '" + n.name + "': only 2-D windows are supported");
  WindowGeometry g;
  g.kernel_h = kh;
  g.kernel_w = kw;
  auto strides = n.get_ints("strides", {1, 1});
  auto dil = n.get_ints("dilations", {1, 1});
  auto pads = n.get_ints("pads", {0, 0, 0, 0});
  if (strides.size() != 2 || dil.size() != 2 || pads.size() != 4)
    throw CompileError("node '" + n.name + "': strides/dilations/pads are not 2-D");
  g.stride_h = strides[0];
  g.stride_w = strides[1];
  g.dilation_h = dil[0];
  g.dilation_w = dil[1];
  g.ceil_mode = n.get_int("ceil_mode", 0) != 0;
  // Zero or negative values would divide by zero or index outside the input below and in
  // every kernel that walks the window.
  if (kh < 1 || kw < 1 || g.stride_h < 1 || g.stride_w < 1 || g.dilation_h < 1 || g.dilation_w < 1)
    throw CompileError("node '" + n.name + "': kernel, strides and dilations must be positive");
  for (auto p : pads)
    if (p < 0) throw CompileError("node '" + n.name + "': pads must not be negative");
  std::string auto_pad = n.get_string("auto_pad", "NOTSET");
  std::int64_t ext_h = g.dilation_h * (kh - 1) + 1, ext_w = g.dilation_w * (kw - 1) + 1;
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    auto same = [&](std::int64_t in, std::int64_t s, std::int64_t ext, std::int64_t& lo, std::int64_t& hi) {
      std::int64_t out = (in + s - 1) / s;
      std::int64_t total = std::max<std::int64_t>(0, (out - 1) * s + ext - in);
      lo = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      hi = total - lo;
    };
    same(xs[2], g.stride_h, ext_h, g.pad_top, g.pad_bottom);
    same(xs[3], g.stride_w, ext_w, g.pad_left, g.pad_right);
  } else if (auto_pad == "VALID") {
    g.pad_top = g.pad_left = g.pad_bottom = g.pad_right = 0;
  } else {
    g.pad_top = pads[0];
    g.pad_left = pads[1];
    g.pad_bottom = pads[2];
    g.pad_right = pads[3];
  }
  auto out = [&](std::int64_t in, std::int64_t lo, std::int64_t hi, std::int64_t s, std::int64_t ext) {
    std::int64_t span = in + lo + hi - ext;
    if (span < 0) throw CompileError("node '" + n.name + "': window larger than the padded input");
    std::int64_t o = g.ceil_mode ? (span + s - 1) / s + 1 : span / s + 1;
    // The last window must start inside the input or left padding (ONNX/PyTorch rule).
    if (g.ceil_mode && (o - 1) * s >= in + lo) --o;
    return o;
  };
  g.out_h = out(xs[2], g.pad_top, g.pad_bottom, g.stride_h, ext_h);
  g.out_w = out(xs[3], g.pad_left, g.pad_right, g.stride_w, ext_w);
  return g;
}

void infer_shapes(Graph& graph) {
  for (auto& n : graph.nodes) infer_node(graph, n);
}

}  // namespace npu::compiler
