#include "compiler/backend/move_params.h"

#include <algorithm>

#include "compiler/core/node_parameters.h"

namespace npu::compiler {
namespace {

[[noreturn]] void fail(const Graph& g, const Node& n, const std::string& what) {
  throw CompileError(g.source + ": node '" + n.name + "' (" + n.op_type + "): " + what);
}

// A parameter (node_parameters.h): the canonical attribute, else the constant input.
std::vector<std::int64_t> param_ints(const Graph& g, const Node& n, const std::string& name) {
  std::vector<std::int64_t> v;
  parameter_ints(g, n, name, v);
  return v;
}

const std::vector<std::int64_t>& input_shape(const Graph& g, const Node& n) { return g.tensor(n.inputs.at(0)).shape; }

}  // namespace

std::int64_t node_axis(const Graph& g, const Node& n, std::int64_t axis, std::size_t rank) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r)
    fail(g, n, "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + r : axis;
}

SliceParams slice_params(const Graph& g, const Node& n) {
  const auto& xs = input_shape(g, n);
  const std::size_t r = xs.size();
  std::vector<std::int64_t> starts = param_ints(g, n, "starts"), ends = param_ints(g, n, "ends");
  std::vector<std::int64_t> axes = param_ints(g, n, "axes"), steps = param_ints(g, n, "steps");
  if (starts.size() != ends.size()) fail(g, n, "starts and ends differ in length");
  if (axes.empty())
    for (std::size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  SliceParams p;
  p.start.assign(r, 0);
  p.step.assign(r, 1);
  p.size = xs;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const std::int64_t a = node_axis(g, n, axes[i], r);
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
  std::vector<std::int64_t> pads = param_ints(g, n, "pads"), axes = param_ints(g, n, "axes");
  if (pads.empty() && n.has("paddings")) pads = n.get_ints("paddings");  // opset 1
  std::vector<float> value;
  if (parameter_floats(g, n, "value", value) && !value.empty()) p.value = value[0];
  if (axes.empty())
    for (std::size_t i = 0; i < r; ++i) axes.push_back(static_cast<std::int64_t>(i));
  if (pads.size() != 2 * axes.size()) fail(g, n, "pads has " + std::to_string(pads.size()) + " values for " + std::to_string(axes.size()) + " axes");
  p.begin.assign(r, 0);
  p.end.assign(r, 0);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const auto a = static_cast<std::size_t>(node_axis(g, n, axes[i], r));
    p.begin[a] = pads[i];
    p.end[a] = pads[i + axes.size()];
  }
  return p;
}

std::int64_t concat_axis(const Graph& g, const Node& n) {
  return node_axis(g, n, n.get_int("axis", 0), g.tensor(n.outputs.at(0)).shape.size());
}

std::int64_t split_axis(const Graph& g, const Node& n) { return node_axis(g, n, n.get_int("axis", 0), input_shape(g, n).size()); }

std::int64_t gather_axis(const Graph& g, const Node& n) { return node_axis(g, n, n.get_int("axis", 0), input_shape(g, n).size()); }

bool is_row_gather(const Graph& g, const Node& n) {
  if (n.op_type != "Gather" || !n.domain.empty() || n.inputs.size() < 2 || n.inputs[1].empty() || g.is_constant(n.inputs[1]))
    return false;
  const int t = g.tensor(n.inputs[1]).elem_type;
  return t == kInt32 || t == kInt64;
}

bool is_index_clip(const Graph& g, const Node& n) {
  if (n.op_type != "Clip" || !n.domain.empty() || n.inputs.size() != 3 || n.outputs.size() != 1) return false;
  const int t = g.tensor(n.inputs[0]).elem_type;
  if ((t != kInt32 && t != kInt64) || g.is_constant(n.inputs[0]) || g.is_graph_output(n.outputs[0])) return false;
  for (std::size_t i = 1; i < 3; ++i)
    if (n.inputs[i].empty() || !g.is_constant(n.inputs[i]) || g.tensor(n.inputs[i]).ints.size() != 1) return false;
  const auto readers = g.consumers(n.outputs[0]);
  return !readers.empty() && std::all_of(readers.begin(), readers.end(), [&](int r) {
    const Node& reader = g.nodes[static_cast<std::size_t>(r)];
    return is_row_gather(g, reader) && reader.inputs[1] == n.outputs[0] && reader.inputs[0] != n.outputs[0];
  });
}

std::vector<std::int64_t> gather_indices(const Graph& g, const Node& n) {
  if (n.inputs.size() < 2 || !g.is_constant(n.inputs[1])) fail(g, n, "indices are not a constant");
  std::vector<std::int64_t> idx = g.tensor(n.inputs[1]).ints;
  if (idx.empty())
    for (float f : g.tensor(n.inputs[1]).floats) idx.push_back(static_cast<std::int64_t>(f));
  const std::int64_t dim = input_shape(g, n)[static_cast<std::size_t>(gather_axis(g, n))];
  for (auto& i : idx) {
    if (i < 0) i += dim;
    if (i < 0 || i >= dim) fail(g, n, "index out of range");
  }
  return idx;
}

std::vector<std::int64_t> reduce_axes(const Graph& g, const Node& n) {
  const std::size_t r = input_shape(g, n).size();
  std::vector<std::int64_t> axes = param_ints(g, n, "axes");
  if (n.op_type == "GlobalMaxPool" || n.op_type == "GlobalAveragePool")
    for (std::size_t a = 2; a < r; ++a) axes.push_back(static_cast<std::int64_t>(a));
  if (axes.empty() && !n.get_int("noop_with_empty_axes", 0))
    for (std::size_t a = 0; a < r; ++a) axes.push_back(static_cast<std::int64_t>(a));
  for (auto& a : axes) a = node_axis(g, n, a, r);
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return axes;
}

}  // namespace npu::compiler
