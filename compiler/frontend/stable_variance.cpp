// Variance as TensorFlow and JAX exports often write it, mean(x^2) - mean(x)^2 (magika's
// LayerNorm: ReduceSum(x*x) * 1/N - (ReduceSum(x) * 1/N)^2, then Maximum(., 0)), subtracts two
// nearly equal numbers: in fp16 both round to a few bits of their own size, and the variance,
// far smaller than either, is lost (magika's output: cosine 0.015 against ONNX Runtime). The
// pass computes it as mean((x - mean(x))^2) instead, as LayerNormalization does; the same value
// in exact arithmetic, and every fp16 intermediate keeps the variance's own scale.
#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "compiler/frontend/passes.h"
#include "compiler/frontend/pattern_match.h"

namespace npu::compiler {
namespace {

using namespace patterns;

// A mean over some axes: ReduceMean(x), or ReduceSum(x) times 1/N (N the reduced elements).
struct Mean {
  int reduce = -1, scale = -1;  // node indices (scale -1 for ReduceMean)
  std::string input, inverse_n;  // x; the 1/N constant the sum is scaled by ("" for ReduceMean)
  float inverse_n_value = 0;
  std::vector<std::int64_t> axes;  // sorted, non-negative
  std::int64_t keepdims = 1;
};

std::optional<std::vector<std::int64_t>> reduce_axes(const Graph& g, const Node& r, std::size_t rank) {
  std::vector<std::int64_t> axes;
  if (r.inputs.size() > 1 && !r.inputs[1].empty()) {
    if (!g.is_constant(r.inputs[1])) return std::nullopt;
    axes = g.tensor(r.inputs[1]).ints;
  } else {
    axes = r.get_ints("axes");
  }
  if (axes.empty()) return std::nullopt;  // all axes or none (noop_with_empty_axes): not matched
  for (auto& a : axes) {
    if (a < 0) a += static_cast<std::int64_t>(rank);
    if (a < 0 || a >= static_cast<std::int64_t>(rank)) return std::nullopt;
  }
  std::sort(axes.begin(), axes.end());
  return axes;
}

std::optional<Mean> mean_of(const Graph& g, const std::string& value) {
  Mean m;
  int r = producer_of(g, value, "ReduceMean");
  if (r < 0) {
    const int mul = producer_of(g, value, "Mul");
    if (mul < 0) return std::nullopt;
    const std::string summed = variable_operand(g, g.nodes[static_cast<std::size_t>(mul)], &m.inverse_n);
    if (summed.empty() || !uniform_constant(g, m.inverse_n, m.inverse_n_value)) return std::nullopt;
    r = producer_of(g, summed, "ReduceSum");
    if (r < 0) return std::nullopt;
    m.scale = mul;
  }
  const Node& reduce = g.nodes[static_cast<std::size_t>(r)];
  if (reduce.inputs.empty() || !g.has_tensor(reduce.inputs[0])) return std::nullopt;
  const Tensor& x = g.tensor(reduce.inputs[0]);
  if (!x.shape_known || !is_float_type(x.elem_type)) return std::nullopt;
  auto axes = reduce_axes(g, reduce, x.shape.size());
  if (!axes) return std::nullopt;
  if (m.scale >= 0) {  // the scale must be 1/N
    double n = 1;
    for (auto a : *axes) n *= static_cast<double>(x.shape[static_cast<std::size_t>(a)]);
    if (std::fabs(m.inverse_n_value * n - 1.0) > 1e-5) return std::nullopt;
  }
  m.reduce = r;
  m.input = reduce.inputs[0];
  m.axes = *axes;
  m.keepdims = reduce.get_int("keepdims", 1);
  return m;
}

// x when `value` is Mul(x, x), else "".
std::string squared(const Graph& g, const std::string& value) {
  const int mul = producer_of(g, value, "Mul");
  if (mul < 0) return "";
  const Node& n = g.nodes[static_cast<std::size_t>(mul)];
  return n.inputs.size() == 2 && n.inputs[0] == n.inputs[1] ? n.inputs[0] : "";
}

}  // namespace

bool has_mean_of_squares(const Graph& g) {
  return std::any_of(g.nodes.begin(), g.nodes.end(), [&](const Node& r) {
    return (r.op_type == "ReduceSum" || r.op_type == "ReduceMean") && r.domain.empty() && !r.inputs.empty() &&
           !squared(g, r.inputs[0]).empty();
  });
}

std::string stabilise_variance(Graph& g) {
  int rewritten = 0;
  std::set<int> removed;
  const std::size_t count = g.nodes.size();
  for (std::size_t i = 0; i < count; ++i) {
    const Node sub = g.nodes[i];
    if (sub.op_type != "Sub" || !sub.domain.empty() || sub.inputs.size() != 2) continue;
    // sub = mean(x * x) - mean(x) * mean(x)
    const std::string m = squared(g, sub.inputs[1]);
    if (m.empty()) continue;
    const auto mean = mean_of(g, m);
    const auto mean_of_squares = mean_of(g, sub.inputs[0]);
    if (!mean || !mean_of_squares || mean->axes != mean_of_squares->axes || mean->keepdims != mean_of_squares->keepdims ||
        squared(g, mean_of_squares->input) != mean->input)
      continue;

    // variance = mean((x - mean_kept(x))^2), mean_kept with the reduced axes kept for broadcasting.
    const Tensor& x = g.tensor(mean->input);
    const int type = x.elem_type;
    std::vector<std::int64_t> kept = x.shape;
    for (auto a : mean->axes) kept[static_cast<std::size_t>(a)] = 1;
    const Node& reduce = g.nodes[static_cast<std::size_t>(mean->reduce)];
    Node keep = reduce;  // the same reduction of x, its axes kept
    keep.name = g.unique_name(reduce.name + "_kept");
    keep.set_int("keepdims", 1);
    keep.outputs = {g.add_value(reduce.name + "_kept", type, kept)};
    std::vector<Node> added{keep};
    std::string centre = keep.outputs[0];
    if (mean->scale >= 0) {
      const Node& scale = g.nodes[static_cast<std::size_t>(mean->scale)];
      added.push_back(g.derived_node("Mul", scale, "_kept", {centre, mean->inverse_n},
                                     {g.add_value(scale.name + "_kept", type, kept)}));
      centre = added.back().outputs[0];
    }
    const std::string d = g.add_value(sub.name + "_centred", type, x.shape);
    added.push_back(g.derived_node("Sub", sub, "_centred", {mean->input, centre}, {d}));
    const std::string d2 = g.add_value(sub.name + "_centred_squared", type, x.shape);
    added.push_back(g.derived_node("Mul", sub, "_centred_squared", {d, d}, {d2}));
    // The mean of d^2 as the model's mean of x^2 was taken (same reduction and scale), into sub's output.
    const Node& sum_of_squares = g.nodes[static_cast<std::size_t>(mean_of_squares->reduce)];
    Node r2 = sum_of_squares;
    r2.name = g.unique_name(r2.name + "_centred");
    r2.inputs[0] = d2;
    if (mean_of_squares->scale >= 0) {
      r2.outputs = {g.add_value(r2.name, type, g.tensor(sum_of_squares.outputs[0]).shape)};
      added.push_back(r2);
      added.push_back(g.derived_node("Mul", g.nodes[static_cast<std::size_t>(mean_of_squares->scale)], "_centred",
                                     {r2.outputs[0], mean_of_squares->inverse_n}, sub.outputs));
    } else {
      r2.outputs = sub.outputs;
      added.push_back(r2);
    }
    // sub's output now comes from the last added node; what fed only sub goes with dead-node removal.
    removed.insert(static_cast<int>(i));
    for (auto& n : added) g.nodes.push_back(std::move(n));
    ++rewritten;
  }
  if (rewritten) {
    erase_nodes(g, removed);
    g.sort_topologically();
  }
  return std::to_string(rewritten) + " variance(s) as mean((x - mean)^2)";
}

}  // namespace npu::compiler
