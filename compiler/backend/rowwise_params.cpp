#include "compiler/backend/rowwise_params.h"

#include "compiler/backend/move_params.h"
#include "compiler/core/npu_ops.h"
#include "compiler/core/tensor_layout.h"

namespace npu::compiler {
namespace {

[[noreturn]] void fail(const Graph& g, const Node& n, const std::string& what) {
  throw CompileError(g.source + ": node '" + n.name + "' (" + n.op_type + "): " + what);
}

std::vector<float> broadcast_param(const Graph& g, const Node& n, std::size_t input, std::int64_t mid, float fill) {
  if (n.inputs.size() <= input || n.inputs[input].empty()) return std::vector<float>(static_cast<std::size_t>(mid), fill);
  const Tensor& t = g.tensor(n.inputs[input]);
  if (!t.is_constant) fail(g, n, "scale/bias is not a constant");
  std::vector<float> v = t.floats;
  if (v.empty())
    for (auto i : t.ints) v.push_back(static_cast<float>(i));
  if (static_cast<std::int64_t>(v.size()) == mid) return v;
  if (v.size() == 1) return std::vector<float>(static_cast<std::size_t>(mid), v[0]);
  // A trailing part of the normalised dims (e.g. [C] of [H, W, C]): repeat it.
  if (!v.empty() && mid % static_cast<std::int64_t>(v.size()) == 0) {
    std::vector<float> r;
    for (std::int64_t i = 0; i < mid; ++i) r.push_back(v[static_cast<std::size_t>(i) % v.size()]);
    return r;
  }
  fail(g, n, "scale/bias does not broadcast over the normalised axes");
}

}  // namespace

bool is_rowwise_op(const std::string& op) {
  return op == "Softmax" || op == "LogSoftmax" || op == "LayerNormalization" || reduce_ops().count(op) != 0;
}

std::vector<std::int64_t> rowwise_axes(const Graph& g, const Node& n) {
  const auto& xs = g.tensor(n.inputs[0]).shape;
  const std::size_t r = xs.size();
  const std::string& op = n.op_type;
  std::vector<std::int64_t> axes;
  if (op == "Softmax" || op == "LogSoftmax") {
    const std::int64_t a = node_axis(g, n, n.get_int("axis", g.opset >= 13 ? -1 : 1), r);
    if (g.opset >= 13) return {a};
    for (auto k = a; k < static_cast<std::int64_t>(r); ++k) axes.push_back(k);  // coerced to 2-D
    return axes;
  }
  if (op == "LayerNormalization") {
    for (auto k = node_axis(g, n, n.get_int("axis", -1), r); k < static_cast<std::int64_t>(r); ++k) axes.push_back(k);
    return axes;
  }
  return reduce_axes(g, n);
}

RowwiseOp rowwise_op(const Graph& g, const Node& n, bool int8) {
  const std::string& op = n.op_type;
  const Tensor& x = g.tensor(n.inputs[0]);
  RowwiseOp r;
  r.kind = op == "Softmax" ? RowwiseKind::Softmax
           : op == "LogSoftmax" ? RowwiseKind::LogSoftmax
           : op == "LayerNormalization" ? RowwiseKind::LayerNorm
                                        : RowwiseKind::Reduce;
  const std::vector<std::int64_t> axes = rowwise_axes(g, n);
  std::vector<bool> in_block(x.shape.size(), false);
  for (auto a : axes) in_block[static_cast<std::size_t>(a)] = true;
  // Walk memory order: sizes before the block, in it, after it; the block must be contiguous
  // (axes of size 1 do not count).
  int phase = 0;  // 0 before, 1 in, 2 after
  for (int a : order_or_identity(x.order, x.shape.size())) {
    const std::int64_t d = x.shape[static_cast<std::size_t>(a)];
    if (d == 1) continue;
    const bool b = in_block[static_cast<std::size_t>(a)];
    if (b && phase == 2) fail(g, n, "its axes are not contiguous in memory (internal: the layout pass should have moved them)");
    if (b) phase = 1;
    else if (phase == 1) phase = 2;
    (b ? r.shape.mid : phase == 0 ? r.shape.outer : r.shape.inner) *= d;
  }
  r.shape.out_mid = r.kind == RowwiseKind::Reduce ? 1 : r.shape.mid;
  if (r.kind == RowwiseKind::Reduce) {
    if (op == "ReduceSum") r.reduce = isa::ReduceFunction::Sum;
    else if (op == "ReduceMean" || op == "GlobalAveragePool") r.reduce = isa::ReduceFunction::Mean;
    else if (op == "ReduceMax" || op == "GlobalMaxPool") r.reduce = isa::ReduceFunction::Max;
    else if (op == "ReduceMin") r.reduce = isa::ReduceFunction::Min;
    else r.reduce = isa::ReduceFunction::SumSquare;  // ReduceSumSquare, ReduceL2
    r.sqrt_after = op == "ReduceL2";
    r.int8_direct = int8 && (r.reduce == isa::ReduceFunction::Max || r.reduce == isa::ReduceFunction::Min);
  }
  if (r.kind == RowwiseKind::LayerNorm) {
    r.epsilon = n.get_float("epsilon", 1e-5f);
    r.gamma = broadcast_param(g, n, 1, r.shape.mid, 1.0f);
    r.beta = broadcast_param(g, n, 2, r.shape.mid, 0.0f);
  }
  return r;
}

}  // namespace npu::compiler
