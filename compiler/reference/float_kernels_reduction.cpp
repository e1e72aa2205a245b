// Reductions along axes: Reduce*, ArgMax/ArgMin, Softmax/LogSoftmax/Hardmax, CumSum, TopK.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "compiler/reference/float_kernels.h"
#include "compiler/reference/saturating_cast.h"

namespace npu::compiler {
namespace {

// The axes a Reduce* node reduces (sorted, normalised); empty axes reduce all unless
// noop_with_empty_axes, which `noop` reports.
std::vector<std::int64_t> reduce_axes(const EvalNode& e, std::size_t rank, bool& noop) {
  std::vector<std::int64_t> axes;
  noop = false;
  e.ints("axes", axes);
  if (axes.empty()) {
    if (e.node.get_int("noop_with_empty_axes", 0)) noop = true;
    for (std::size_t d = 0; d < rank; ++d) axes.push_back(static_cast<std::int64_t>(d));
  }
  for (auto& a : axes) a = normalize_axis_checked(a, static_cast<std::int64_t>(rank));
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return axes;
}

enum class Reduction { Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare };

template <Reduction R>
FloatOutputs reduce_kernel(const EvalNode& e) {
  const FloatTensor& x = e.need(0);
  bool noop = false;
  auto axes = reduce_axes(e, x.shape.size(), noop);
  if (noop) return outputs(x);
  const bool keep = e.node.get_int("keepdims", 1) != 0;
  std::int64_t count = 1;
  for (auto a : axes) count *= x.shape[a];
  TensorData<double> acc;
  if constexpr (R == Reduction::Max || R == Reduction::Min) {
    const double init = R == Reduction::Max ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    acc = reduce<float, double>(x, axes, keep, init, [](double a, float v) {
      return R == Reduction::Max ? std::max<double>(a, v) : std::min<double>(a, v);
    });
  } else if constexpr (R == Reduction::Prod) {
    acc = reduce<float, double>(x, axes, keep, 1.0, [](double a, float v) { return a * v; });
  } else if constexpr (R == Reduction::LogSumExp) {
    auto mx = reduce<float, double>(x, axes, true, -std::numeric_limits<double>::infinity(),
                                    [](double a, float v) { return std::max<double>(a, v); });
    FloatTensor shifted = x;
    auto ms = broadcast_strides(mx.shape, x.shape);
    std::vector<std::vector<std::int64_t>> st = {ms};
    const std::int64_t inner = ms.empty() ? 0 : ms.back();
    for_each_broadcast(x.shape, st, [&](std::int64_t o, const std::vector<std::int64_t>& off, std::int64_t i) {
      shifted.data[o] = static_cast<float>(std::exp(x.data[o] - mx.data[off[0] + i * inner]));
    });
    acc = reduce<float, double>(shifted, axes, keep, 0.0, [](double a, float v) { return a + v; });
    for (std::size_t i = 0; i < acc.data.size(); ++i) acc.data[i] = std::log(acc.data[i]) + mx.data[i];
  } else {
    acc = reduce<float, double>(x, axes, keep, 0.0, [](double a, float v) {
      if constexpr (R == Reduction::L1) return a + std::fabs(v);
      else if constexpr (R == Reduction::L2 || R == Reduction::SumSquare) return a + static_cast<double>(v) * v;
      else return a + v;
    });
  }
  FloatTensor y;
  y.shape = acc.shape;
  y.data.resize(acc.data.size());
  for (std::size_t i = 0; i < acc.data.size(); ++i) {
    double v = acc.data[i];
    if constexpr (R == Reduction::Mean) v /= static_cast<double>(std::max<std::int64_t>(count, 1));
    if constexpr (R == Reduction::L2) v = std::sqrt(v);
    if constexpr (R == Reduction::LogSum) v = std::log(v);
    y.data[i] = static_cast<float>(v);
  }
  return outputs(std::move(y));
}

// outer x len x inner view of x around `axis`.
struct AxisView {
  std::int64_t outer = 1, len = 1, inner = 1;
};
AxisView view_around(const Shape& s, std::int64_t axis) {
  AxisView v;
  for (std::size_t d = 0; d < s.size(); ++d) {
    if (static_cast<std::int64_t>(d) < axis) v.outer *= s[d];
    else if (static_cast<std::int64_t>(d) == axis) v.len = s[d];
    else v.inner *= s[d];
  }
  return v;
}

FloatOutputs arg_extreme(const EvalNode& e, bool is_max) {
  const FloatTensor& x = e.need(0);
  const auto r = static_cast<std::int64_t>(x.shape.size());
  const std::int64_t axis = normalize_axis_checked(e.node.get_int("axis", 0), r);
  const bool keep = e.node.get_int("keepdims", 1) != 0, last = e.node.get_int("select_last_index", 0) != 0;
  auto v = view_around(x.shape, axis);
  FloatTensor y;
  for (std::int64_t d = 0; d < r; ++d)
    if (d != axis) y.shape.push_back(x.shape[d]);
    else if (keep) y.shape.push_back(1);
  y.data.resize(static_cast<std::size_t>(v.outer * v.inner));
  for (std::int64_t o = 0; o < v.outer; ++o)
    for (std::int64_t i = 0; i < v.inner; ++i) {
      std::int64_t best = 0;
      float bv = x.data[o * v.len * v.inner + i];
      for (std::int64_t k = 1; k < v.len; ++k) {
        float c = x.data[(o * v.len + k) * v.inner + i];
        bool better = is_max ? (c > bv || (last && c == bv)) : (c < bv || (last && c == bv));
        if (better) { bv = c; best = k; }
      }
      y.data[o * v.inner + i] = static_cast<float>(best);
    }
  return outputs(std::move(y));
}

enum class SoftmaxKind { Softmax, LogSoftmax, Hardmax };

template <SoftmaxKind K>
FloatOutputs softmax_kernel(const EvalNode& e) {
  const FloatTensor& x = e.need(0);
  const auto r = static_cast<std::int64_t>(x.shape.size());
  const std::int64_t opset = e.graph.opset;
  std::int64_t axis = normalize_axis_checked(e.node.get_int("axis", opset >= 13 ? -1 : 1), r);
  // Before opset 13 these flatten to 2-D at `axis`; from 13 they work along one axis.
  AxisView v = view_around(x.shape, axis);
  if (opset < 13) {
    v.len *= v.inner;
    v.inner = 1;
  }
  FloatTensor y = x;
  // Softmax: each exponential computed once and kept for the division (the same value the
  // second std::exp call gave; ViT-B/16's attention spent a third of its calibration time there).
  std::vector<double> exps(K == SoftmaxKind::Softmax ? static_cast<std::size_t>(v.len) : 0);
  for (std::int64_t o = 0; o < v.outer; ++o)
    for (std::int64_t i = 0; i < v.inner; ++i) {
      auto at = [&](std::int64_t k) -> float& { return y.data[(o * v.len + k) * v.inner + i]; };
      float mx = -std::numeric_limits<float>::infinity();
      std::int64_t arg = 0;
      for (std::int64_t k = 0; k < v.len; ++k)
        if (at(k) > mx) { mx = at(k); arg = k; }
      if constexpr (K == SoftmaxKind::Hardmax) {
        for (std::int64_t k = 0; k < v.len; ++k) at(k) = k == arg ? 1.0f : 0.0f;
        continue;
      }
      double sum = 0;
      if constexpr (K == SoftmaxKind::Softmax) {
        for (std::int64_t k = 0; k < v.len; ++k) sum += exps[static_cast<std::size_t>(k)] = std::exp(static_cast<double>(at(k)) - mx);
        for (std::int64_t k = 0; k < v.len; ++k) at(k) = static_cast<float>(exps[static_cast<std::size_t>(k)] / sum);
        continue;
      }
      for (std::int64_t k = 0; k < v.len; ++k) sum += std::exp(static_cast<double>(at(k)) - mx);
      for (std::int64_t k = 0; k < v.len; ++k) at(k) = static_cast<float>(at(k) - mx - std::log(sum));
    }
  return outputs(std::move(y));
}

FloatOutputs cumsum(const EvalNode& e) {
  const FloatTensor& x = e.need(0);
  if (e.need(1).data.empty()) e.fail("axis is empty");
  const auto axis = normalize_axis_checked(saturating_cast(e.need(1).data[0]), static_cast<std::int64_t>(x.shape.size()));
  const bool exclusive = e.node.get_int("exclusive", 0) != 0, reverse = e.node.get_int("reverse", 0) != 0;
  auto v = view_around(x.shape, axis);
  FloatTensor y = x;
  for (std::int64_t o = 0; o < v.outer; ++o)
    for (std::int64_t i = 0; i < v.inner; ++i) {
      double acc = 0;
      for (std::int64_t s = 0; s < v.len; ++s) {
        std::int64_t k = reverse ? v.len - 1 - s : s;
        std::int64_t at = (o * v.len + k) * v.inner + i;
        if (exclusive) {
          y.data[at] = static_cast<float>(acc);
          acc += x.data[at];
        } else {
          acc += x.data[at];
          y.data[at] = static_cast<float>(acc);
        }
      }
    }
  return outputs(std::move(y));
}

FloatOutputs topk(const EvalNode& e) {
  const FloatTensor& x = e.need(0);
  std::vector<std::int64_t> kv;
  if (!e.ints("k", kv) || kv.empty()) e.fail("k is not known");
  const std::int64_t k = kv[0];
  const auto axis = normalize_axis_checked(e.node.get_int("axis", -1), static_cast<std::int64_t>(x.shape.size()));
  const bool largest = e.node.get_int("largest", 1) != 0;
  auto v = view_around(x.shape, axis);
  if (k < 0 || k > v.len) e.fail("k " + std::to_string(k) + " is out of range");
  FloatTensor vals, idx;
  vals.shape = idx.shape = x.shape;
  vals.shape[axis] = idx.shape[axis] = k;
  vals.data.resize(static_cast<std::size_t>(v.outer * k * v.inner));
  idx.data.resize(vals.data.size());
  std::vector<std::int64_t> order(static_cast<std::size_t>(v.len));
  for (std::int64_t o = 0; o < v.outer; ++o)
    for (std::int64_t i = 0; i < v.inner; ++i) {
      auto at = [&](std::int64_t j) { return x.data[(o * v.len + j) * v.inner + i]; };
      std::iota(order.begin(), order.end(), 0);
      // ties: the lower index first (ONNX)
      std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
        return largest ? at(a) > at(b) : at(a) < at(b);
      });
      for (std::int64_t j = 0; j < k; ++j) {
        vals.data[(o * k + j) * v.inner + i] = at(order[j]);
        idx.data[(o * k + j) * v.inner + i] = static_cast<float>(order[j]);
      }
    }
  return outputs(std::move(vals), std::move(idx));
}

}  // namespace

void add_reduction_kernels(KernelTable& t) {
  t["ReduceSum"] = reduce_kernel<Reduction::Sum>;
  t["ReduceMean"] = reduce_kernel<Reduction::Mean>;
  t["ReduceMax"] = reduce_kernel<Reduction::Max>;
  t["ReduceMin"] = reduce_kernel<Reduction::Min>;
  t["ReduceProd"] = reduce_kernel<Reduction::Prod>;
  t["ReduceL1"] = reduce_kernel<Reduction::L1>;
  t["ReduceL2"] = reduce_kernel<Reduction::L2>;
  t["ReduceLogSum"] = reduce_kernel<Reduction::LogSum>;
  t["ReduceLogSumExp"] = reduce_kernel<Reduction::LogSumExp>;
  t["ReduceSumSquare"] = reduce_kernel<Reduction::SumSquare>;
  t["ArgMax"] = [](const EvalNode& e) { return arg_extreme(e, true); };
  t["ArgMin"] = [](const EvalNode& e) { return arg_extreme(e, false); };
  t["Softmax"] = softmax_kernel<SoftmaxKind::Softmax>;
  t["LogSoftmax"] = softmax_kernel<SoftmaxKind::LogSoftmax>;
  t["Hardmax"] = softmax_kernel<SoftmaxKind::Hardmax>;
  t["CumSum"] = cumsum;
  t["TopK"] = topk;
}

}  // namespace npu::compiler
