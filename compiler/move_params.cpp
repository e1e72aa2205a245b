#include "compiler/move_params.h"

#include <algorithm>

namespace npu::compiler {
namespace {

[[noreturn]] void fail(const Graph& g, const Node& n, const std::string& what) {
  throw CompileError(g.source + ": node '" + n.name + "' (" + n.op_type + "): " + what);
}

std::int64_t normalize(std::int64_t axis, std::size_t rank) {
  return axis < 0 ? axis + static_cast<std::int64_t>(rank) : axis;
}

// Integer values of constant input `i` (empty when the input is absent).
std::vector<std::int64_t> const_ints(const Graph& g, const Node& n, std::size_t i, const char* what) {
  if (n.inputs.size() <= i || n.inputs[i].empty()) return {};
  const Tensor& t = g.tensor(n.inputs[i]);
  if (!t.is_constant) fail(g, n, std::string(what) + " is not a constant");
  if (!t.ints.empty()) return t.ints;
  std::vector<std::int64_t> r;
  for (float f : t.floats) r.push_back(static_cast<std::int64_t>(f));
  return r;
}

const std::vector<std::int64_t>& input_shape(const Graph& g, const Node& n) { return g.tensor(n.inputs.at(0)).shape; }

}  // namespace

SliceParams slice_params(const Graph& g, const Node& n) {
  const auto& xs = input_shape(g, n);
  const std::size_t r = xs.size();
  std::vector<std::int64_t> starts, ends, axes, steps;
  if (n.has("starts")) {  // opset < 10
    starts = n.get_ints("starts");
    ends = n.get_ints("ends");
    axes = n.get_ints("axes");
  } else {
    starts = const_ints(g, n, 1, "starts");
    ends = const_ints(g, n, 2, "ends");
    axes = const_ints(g, n, 3, "axes");
    steps = const_ints(g, n, 4, "steps");
  }
  if (starts.size() != ends.size()) fail(g, n, "starts and ends differ in length");
  if (axes.empty())
    for (std::size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  SliceParams p;
  p.start.assign(r, 0);
  p.step.assign(r, 1);
  p.size = xs;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const std::int64_t a = normalize(axes[i], r);
    if (a < 0 || a >= static_cast<std::int64_t>(r)) fail(g, n, "axis out of range");
    const std::int64_t dim = xs[static_cast<std::size_t>(a)], step = steps[i];
    if (step == 0) fail(g, n, "step 0");
    std::int64_t s = starts[i], e = ends[i];
    if (s < 0) s += dim;
    if (e < 0) e += dim;
    std::int64_t size;
    if (step > 0) {
      s = std::clamp<std::int64_t>(s, 0, dim);
      e = std::clamp<std::int64_t>(e, 0, dim);
      size = e > s ? (e - s + step - 1) / step : 0;
    } else {
      s = std::clamp<std::int64_t>(s, 0, dim - 1);
      e = std::clamp<std::int64_t>(e, -1, dim - 1);
      size = s > e ? (s - e - step - 1) / -step : 0;
    }
    p.start[static_cast<std::size_t>(a)] = s;
    p.step[static_cast<std::size_t>(a)] = step;
    p.size[static_cast<std::size_t>(a)] = size;
  }
  return p;
}

PadParams pad_params(const Graph& g, const Node& n) {
  const auto& xs = input_shape(g, n);
  const std::size_t r = xs.size();
  PadParams p;
  p.mode = n.get_string("mode", "constant");
  std::vector<std::int64_t> pads, axes;
  if (n.has("pads") || n.has("paddings")) {  // opset < 11
    pads = n.has("pads") ? n.get_ints("pads") : n.get_ints("paddings");
    p.value = n.get_float("value", 0.0f);
  } else {
    pads = const_ints(g, n, 1, "pads");
    if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
      const Tensor& v = g.tensor(n.inputs[2]);
      if (!v.is_constant) fail(g, n, "constant_value is not a constant");
      p.value = v.floats.empty() ? static_cast<float>(v.ints.empty() ? 0 : v.ints[0]) : v.floats[0];
    }
    axes = const_ints(g, n, 3, "axes");
  }
  if (axes.empty())
    for (std::size_t i = 0; i < r; ++i) axes.push_back(static_cast<std::int64_t>(i));
  if (pads.size() != 2 * axes.size()) fail(g, n, "pads has " + std::to_string(pads.size()) + " values for " + std::to_string(axes.size()) + " axes");
  p.begin.assign(r, 0);
  p.end.assign(r, 0);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const auto a = static_cast<std::size_t>(normalize(axes[i], r));
    p.begin[a] = pads[i];
    p.end[a] = pads[i + axes.size()];
  }
  return p;
}

std::int64_t concat_axis(const Graph& g, const Node& n) {
  return normalize(n.get_int("axis", 0), g.tensor(n.outputs.at(0)).shape.size());
}

std::int64_t split_axis(const Graph& g, const Node& n) { return normalize(n.get_int("axis", 0), input_shape(g, n).size()); }

std::int64_t gather_axis(const Graph& g, const Node& n) { return normalize(n.get_int("axis", 0), input_shape(g, n).size()); }

std::vector<std::int64_t> gather_indices(const Graph& g, const Node& n) {
  std::vector<std::int64_t> idx = const_ints(g, n, 1, "indices");
  const std::int64_t dim = input_shape(g, n)[static_cast<std::size_t>(gather_axis(g, n))];
  for (auto& i : idx) {
    if (i < 0) i += dim;
    if (i < 0 || i >= dim) fail(g, n, "index out of range");
  }
  return idx;
}

std::vector<std::int64_t> reduce_axes(const Graph& g, const Node& n) {
  const std::size_t r = input_shape(g, n).size();
  std::vector<std::int64_t> axes = n.get_ints("axes");
  if (axes.empty() && !n.has("axes")) axes = const_ints(g, n, 1, "axes");
  if (n.op_type == "GlobalMaxPool")
    for (std::size_t a = 2; a < r; ++a) axes.push_back(static_cast<std::int64_t>(a));
  if (axes.empty() && !n.get_int("noop_with_empty_axes", 0))
    for (std::size_t a = 0; a < r; ++a) axes.push_back(static_cast<std::int64_t>(a));
  for (auto& a : axes) a = normalize(a, r);
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return axes;
}

}  // namespace npu::compiler
