#include "compiler/frontend/shape_inference.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "compiler/core/npu_ops.h"
#include "compiler/frontend/shape_inference_rules.h"
#include "compiler/reference/node_geometry.h"

namespace npu::compiler {
namespace {

const std::set<std::string> kUnary = {
    "Relu", "Sigmoid", "Tanh", "Clip", "HardSigmoid", "HardSwish", "LeakyRelu", "Elu", "Selu",
    "Softmax", "LogSoftmax", "Identity", "Neg", "Abs", "Exp", "Log", "Sqrt",
    "Reciprocal", "Floor", "Ceil", "Erf", "Softplus", "Softsign", "Gelu", "GeluTanh", "Mish", "SiLU", "PRelu",
    "BatchNormalization", "LRN", "InstanceNormalization", "Round", "Sign",
    "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Celu",
    "ThresholdedRelu", "Shrink", "Hardmax", "CumSum", "Trilu", "LpNormalization", "MeanVarianceNormalization"};
const std::set<std::string> kBinary = {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Mod", "Sum", "Mean",
                                       "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor",
                                       "BitShift"};
const std::set<std::string> kLogical = {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor"};

bool infer_node(ShapeContext& c) {
  Graph& g = c.g;
  Node& n = c.n;
  const std::string& op = n.op_type;
  auto in = [&](std::size_t i) { return c.in(i); };
  auto set_output = [&](Graph&, const Node&, std::size_t index, std::vector<std::int64_t> shape, int elem_type) {
    c.set(index, std::move(shape), elem_type);
  };
  const Tensor* x = in(0);
  if (!x || !x->shape_known) return false;
  const auto& xs = x->shape;
  int xt = x->elem_type;
  std::string where = c.where();

  if (op == "Conv" && xs.size() == 3) {  // 1-D: [N, C, L] by [O, C/g, K]
    const Tensor* w = in(1);
    if (!w || !w->shape_known || w->shape.size() != 3 || n.get_string("auto_pad", "NOTSET") != "NOTSET") return false;
    const auto group = n.get_int("group", 1);
    if (xs[1] != w->shape[1] * group)
      throw CompileError(where + ": input has " + std::to_string(xs[1]) + " channels, weights expect " +
                         std::to_string(w->shape[1] * group));
    const auto s = n.get_ints("strides", {1}), d = n.get_ints("dilations", {1}), p = n.get_ints("pads", {0, 0});
    if (s.size() != 1 || d.size() != 1 || p.size() != 2 || s[0] < 1) return false;
    const std::int64_t span = d[0] * (w->shape[2] - 1) + 1, padded = xs[2] + p[0] + p[1];
    if (padded < span) throw CompileError(where + ": the window (" + std::to_string(span) + ") is longer than the input");
    set_output(g, n, 0, {xs[0], w->shape[0], (padded - span) / s[0] + 1}, xt);
    return true;
  }
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
    set_output(g, n, 1, {xs[0], xs[1], geo.out_h, geo.out_w}, kInt64);  // MaxPool's Indices
    return true;
  }
  if (op == "GlobalAveragePool" || op == "GlobalMaxPool" || op == "GlobalLpPool") {
    std::vector<std::int64_t> s = xs;
    for (std::size_t i = 2; i < s.size(); ++i) s[i] = 1;
    set_output(g, n, 0, s, xt);
    return true;
  }
  if (op == "FusedGemm" && xs.size() > 2) {  // a MatMul by [K, N] weights: rows of K
    const Tensor* b = in(1);
    if (!b || !b->shape_known || b->shape.size() != 2) return false;
    std::vector<std::int64_t> s = xs;
    s.back() = b->shape[1];
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
  if ((op == "LSTM" || op == "GRU" || op == "RNN") && xs.size() == 3) {
    // Y [seq, directions, batch, hidden], Y_h (and LSTM's Y_c) [directions, batch, hidden];
    // layout 1 puts batch first: Y [batch, seq, directions, hidden], Y_h [batch, directions, hidden].
    const Tensor* r = in(2);
    const std::int64_t dirs = n.get_string("direction", "forward") == "bidirectional" ? 2 : 1;
    std::int64_t hidden = n.get_int("hidden_size", 0);
    if (hidden <= 0 && r && r->shape_known && r->shape.size() == 3) hidden = r->shape[2];
    if (hidden <= 0) return false;
    const bool batch_first = n.get_int("layout", 0) != 0;
    const std::int64_t seq = batch_first ? xs[1] : xs[0], batch = batch_first ? xs[0] : xs[1];
    set_output(g, n, 0, batch_first ? std::vector<std::int64_t>{batch, seq, dirs, hidden}
                                    : std::vector<std::int64_t>{seq, dirs, batch, hidden}, xt);
    const std::vector<std::int64_t> state = batch_first ? std::vector<std::int64_t>{batch, dirs, hidden}
                                                        : std::vector<std::int64_t>{dirs, batch, hidden};
    set_output(g, n, 1, state, xt);
    if (op == "LSTM") set_output(g, n, 2, state, xt);
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
  if (op == "Dropout") {
    set_output(g, n, 0, xs, xt);
    set_output(g, n, 1, xs, kBool);
    return true;
  }
  if (op == "LayerNormalization") {
    set_output(g, n, 0, xs, xt);
    auto axis = n.get_int("axis", -1);
    if (axis < 0) axis += static_cast<std::int64_t>(xs.size());
    std::vector<std::int64_t> stats = xs;
    for (std::size_t d = static_cast<std::size_t>(std::max<std::int64_t>(axis, 0)); d < stats.size(); ++d) stats[d] = 1;
    set_output(g, n, 1, stats, kFloat);
    set_output(g, n, 2, stats, kFloat);
    return true;
  }
  if (kBinary.count(op)) {
    std::vector<std::int64_t> s = xs;
    for (std::size_t i = 1; i < n.inputs.size(); ++i) {
      const Tensor* y = in(i);
      if (!y || !y->shape_known) return false;
      s = broadcast_shapes(s, y->shape, where);
    }
    set_output(g, n, 0, s, kLogical.count(op) ? kBool : xt);
    return true;
  }
  return infer_tensor_op(c);
}

}  // namespace

int infer_shapes(Graph& graph) {
  int changed = 0;
  for (auto& n : graph.nodes) {
    if (!n.domain.empty() && n.domain != "npusim" && !is_contrib_requantisation(n.domain, n.op_type)) continue;
    ShapeContext c{graph, n, changed};
    infer_node(c);
  }
  return changed;
}

}  // namespace npu::compiler
