// Shape and type rules of tensor and shape ops. Parameters are read in either form
// (node_parameters.h); a rule whose parameter is computed at run time leaves the output unknown.
#include <algorithm>
#include <stdexcept>

#include "compiler/frontend/shape_inference_rules.h"
#include "compiler/reference/node_geometry.h"
#include "compiler/reference/shape_rules.h"

namespace npu::compiler {
namespace {

std::int64_t axis_in(const ShapeContext& c, std::int64_t axis, std::size_t rank) {
  try {
    return normalize_axis_checked(axis, static_cast<std::int64_t>(rank));
  } catch (const std::invalid_argument& e) {
    throw CompileError(c.where() + ": " + e.what());
  }
}

bool all_known(const ShapeContext& c) {
  for (std::size_t i = 0; i < c.n.inputs.size(); ++i)
    if (!c.n.inputs[i].empty() && !c.in(i)->shape_known) return false;
  return true;
}

std::vector<std::int64_t> constant_ints(const Tensor& t) {
  if (!t.ints.empty() || t.floats.empty()) return t.ints;
  std::vector<std::int64_t> v;
  for (float f : t.floats) v.push_back(static_cast<std::int64_t>(f));
  return v;
}

bool reduce_rule(ShapeContext& c, const Shape& xs, int xt) {
  std::vector<std::int64_t> axes;
  const bool given = c.ints("axes", axes);
  // an axes input computed at run time
  if (!given && parameter_input(c.n.op_type, "axes", c.g.opset) >= 0 && c.n.inputs.size() > 1 && !c.n.inputs[1].empty())
    return false;
  if (axes.empty()) {
    if (c.n.get_int("noop_with_empty_axes", 0)) {
      c.set(0, xs, xt);
      return true;
    }
    for (std::size_t d = 0; d < xs.size(); ++d) axes.push_back(static_cast<std::int64_t>(d));
  }
  for (auto& a : axes) a = axis_in(c, a, xs.size());
  const bool keep = c.n.get_int("keepdims", 1) != 0;
  Shape s;
  for (std::size_t d = 0; d < xs.size(); ++d) {
    const bool reduced = std::find(axes.begin(), axes.end(), static_cast<std::int64_t>(d)) != axes.end();
    if (!reduced) s.push_back(xs[d]);
    else if (keep) s.push_back(1);
  }
  c.set(0, s, xt);
  return true;
}

bool rule(ShapeContext& c) {
  const Node& n = c.n;
  const std::string& op = n.op_type;
  const Tensor* x = c.in(0);
  const Shape& xs = x->shape;
  const int xt = x->elem_type;
  if (op == "Shape") {
    const auto rank = static_cast<std::int64_t>(xs.size());
    auto clamp = [&](std::int64_t v) { return std::min(std::max(v < 0 ? v + rank : v, std::int64_t{0}), rank); };
    c.set(0, {std::max<std::int64_t>(0, clamp(n.get_int("end", rank)) - clamp(n.get_int("start", 0)))}, kInt64);
    return true;
  }
  if (op == "Size") {
    c.set(0, {}, kInt64);
    return true;
  }
  if (op == "Cast") {
    c.set(0, xs, static_cast<int>(n.get_int("to", kFloat)));
    return true;
  }
  // ONNX's and ONNX Runtime's (com.microsoft, which also takes 16-bit integers below opset 21):
  // the same shape; QuantizeLinear's type is its zero point's (uint8 without one).
  if (op == "DequantizeLinear" || op == "QuantizeLinear") {
    const Tensor* zero_point = n.inputs.size() > 2 && !n.inputs[2].empty() ? c.in(2) : nullptr;
    if (n.inputs.size() > 2 && !n.inputs[2].empty() && !zero_point) return false;
    c.set(0, xs, op == "DequantizeLinear" ? kFloat : zero_point ? zero_point->elem_type : kUint8);
    return true;
  }
  if (op == "CastLike") {
    const Tensor* like = c.in(1);
    if (!like) return false;
    c.set(0, xs, like->elem_type);
    return true;
  }
  if (op == "Not" || op == "IsNaN" || op == "IsInf") {
    c.set(0, xs, kBool);
    return true;
  }
  if (op == "ConstantOfShape") {
    int type = kFloat;
    auto it = n.attributes.find("value");
    if (it != n.attributes.end() && it->second.kind == Attribute::Kind::Tensor) type = it->second.tensor_elem_type;
    if (!x->is_constant) return false;
    c.set(0, constant_ints(*x), type);
    return true;
  }
  if (op == "Range") {
    for (std::size_t i = 0; i < 3; ++i)
      if (!c.in(i) || !c.in(i)->is_constant) return false;
    auto scalar = [&](std::size_t i) {
      const Tensor& t = *c.in(i);
      return t.floats.empty() ? static_cast<double>(t.ints.at(0)) : static_cast<double>(t.floats.at(0));
    };
    c.set(0, {range_count(scalar(0), scalar(1), scalar(2))}, xt);
    return true;
  }
  if (op == "NonZero") return false;  // data-dependent unless folded
  if (!all_known(c)) return false;
  if (op == "Transpose") {
    auto perm = n.get_ints("perm");
    if (perm.empty())
      for (std::size_t d = 0; d < xs.size(); ++d) perm.insert(perm.begin(), static_cast<std::int64_t>(d));
    if (perm.size() != xs.size()) throw CompileError(c.where() + ": perm has " + std::to_string(perm.size()) + " entries for rank " + std::to_string(xs.size()));
    Shape s;
    for (auto p : perm) s.push_back(xs.at(static_cast<std::size_t>(axis_in(c, p, xs.size()))));
    c.set(0, s, xt);
    return true;
  }
  if (op == "Reshape") {
    std::vector<std::int64_t> shape;
    if (!c.ints("shape", shape)) return false;
    c.set(0, reshape_shape(xs, shape, n.get_int("allowzero", 0) != 0), xt);
    return true;
  }
  if (op == "Flatten") {
    c.set(0, flatten_shape(xs, n.get_int("axis", 1)), xt);
    return true;
  }
  if (op == "Squeeze" || op == "Unsqueeze") {
    std::vector<std::int64_t> axes;
    if (!c.ints("axes", axes) && n.inputs.size() > 1 && !n.inputs[1].empty()) return false;
    c.set(0, op == "Squeeze" ? squeeze_shape(xs, axes) : unsqueeze_shape(xs, axes), xt);
    return true;
  }
  if (op == "Concat") {
    std::vector<const Tensor*> parts;
    for (std::size_t i = 0; i < n.inputs.size(); ++i) parts.push_back(c.in(i));
    const auto axis = axis_in(c, n.get_int("axis", 0), xs.size());
    Shape s = xs;
    s[axis] = 0;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const Shape& ps = parts[i]->shape;
      if (ps.size() != xs.size()) throw CompileError(c.where() + ": inputs have different ranks");
      for (std::size_t d = 0; d < xs.size(); ++d)
        if (static_cast<std::int64_t>(d) != axis && ps[d] != xs[d])
          throw CompileError(c.where() + ": input '" + n.inputs[i] + "' dim " + std::to_string(d) + " is " +
                             std::to_string(ps[d]) + ", expected " + std::to_string(xs[d]));
      s[axis] += ps[axis];
    }
    c.set(0, s, xt);
    return true;
  }
  if (op == "Split") {
    const auto axis = axis_in(c, n.get_int("axis", 0), xs.size());
    std::vector<std::int64_t> sizes;
    if (!c.ints("split", sizes) && n.inputs.size() > 1 && !n.inputs[1].empty()) return false;
    std::size_t parts = n.has("num_outputs") ? static_cast<std::size_t>(n.get_int("num_outputs", 1)) : n.outputs.size();
    if (sizes.empty()) {
      const std::int64_t each = (xs[axis] + static_cast<std::int64_t>(parts) - 1) / std::max<std::int64_t>(1, parts);
      for (std::size_t p = 0; p < parts; ++p)
        sizes.push_back(std::max<std::int64_t>(0, std::min(each, xs[axis] - each * static_cast<std::int64_t>(p))));
    }
    std::int64_t total = 0;
    for (auto s : sizes) total += s;
    if (total != xs[axis] || sizes.size() != n.outputs.size())
      throw CompileError(c.where() + ": split sizes add up to " + std::to_string(total) + " in " +
                         std::to_string(sizes.size()) + " parts; the axis has " + std::to_string(xs[axis]) + " and the node " +
                         std::to_string(n.outputs.size()) + " outputs");
    for (std::size_t p = 0; p < sizes.size(); ++p) {
      Shape s = xs;
      s[axis] = sizes[p];
      c.set(p, s, xt);
    }
    return true;
  }
  if (op == "Slice") {
    std::vector<std::int64_t> starts, ends, axes, steps;
    if (!c.ints("starts", starts) || !c.ints("ends", ends)) return false;
    if (!c.ints("axes", axes) && parameter_input(op, "axes", c.g.opset) >= 0 && n.inputs.size() > 3 && !n.inputs[3].empty()) return false;
    if (!c.ints("steps", steps) && parameter_input(op, "steps", c.g.opset) >= 0 && n.inputs.size() > 4 && !n.inputs[4].empty()) return false;
    c.set(0, plan_slice(xs, starts, ends, axes, steps).out, xt);
    return true;
  }
  if (op == "Gather") {
    const Tensor* idx = c.in(1);
    if (!idx) throw CompileError(c.where() + ": Gather needs indices");
    if (xs.empty()) throw CompileError(c.where() + ": Gather from a scalar (the data needs rank 1 or more)");
    const auto axis = axis_in(c, n.get_int("axis", 0), xs.size());
    Shape s(xs.begin(), xs.begin() + axis);
    s.insert(s.end(), idx->shape.begin(), idx->shape.end());
    s.insert(s.end(), xs.begin() + axis + 1, xs.end());
    c.set(0, s, xt);
    return true;
  }
  if (op == "GatherElements") {
    if (!c.in(1)) throw CompileError(c.where() + ": GatherElements needs indices");
    c.set(0, c.in(1)->shape, xt);
    return true;
  }
  if (op == "ScatterND" || op == "ScatterElements" || op == "Scatter") {
    c.set(0, xs, xt);
    return true;
  }
  if (op == "Expand") {
    std::vector<std::int64_t> shape;
    if (!c.ints("shape", shape)) return false;
    c.set(0, broadcast_shapes(xs, shape, c.where()), xt);
    return true;
  }
  if (op == "Tile") {
    std::vector<std::int64_t> repeats;
    if (!c.ints("repeats", repeats)) return false;
    if (repeats.size() != xs.size()) throw CompileError(c.where() + ": repeats has " + std::to_string(repeats.size()) + " entries for rank " + std::to_string(xs.size()));
    Shape s = xs;
    for (std::size_t d = 0; d < s.size(); ++d) s[d] *= repeats[d];
    c.set(0, s, xt);
    return true;
  }
  if (op == "Pad") {
    std::vector<std::int64_t> pads;
    if (!c.ints("pads", pads)) return false;
    if (n.inputs.size() > 3 && !n.inputs[3].empty()) {  // Pad-18 axes
      if (!c.in(3)->is_constant) return false;
      auto axes = constant_ints(*c.in(3));
      const auto r = static_cast<std::int64_t>(xs.size());
      std::vector<std::int64_t> full(static_cast<std::size_t>(2 * r), 0);
      for (std::size_t i = 0; i < axes.size(); ++i) {
        auto a = axis_in(c, axes[i], xs.size());
        full[a] = pads.at(i);
        full[a + r] = pads.at(i + axes.size());
      }
      pads = full;
    }
    if (pads.size() != 2 * xs.size()) throw CompileError(c.where() + ": pads has " + std::to_string(pads.size()) + " entries for rank " + std::to_string(xs.size()));
    Shape s = xs;
    for (std::size_t d = 0; d < s.size(); ++d) s[d] += pads[d] + pads[d + s.size()];
    c.set(0, s, xt);
    return true;
  }
  if (op == "Where") {
    if (!c.in(1) || !c.in(2)) throw CompileError(c.where() + ": Where needs a condition and two values");
    Shape s = broadcast_shapes(broadcast_shapes(xs, c.in(1)->shape, c.where()), c.in(2)->shape, c.where());
    c.set(0, s, c.in(1)->elem_type);
    return true;
  }
  if (op.rfind("Reduce", 0) == 0) return reduce_rule(c, xs, xt);
  if (op == "ArgMax" || op == "ArgMin") {
    const auto axis = axis_in(c, n.get_int("axis", 0), xs.size());
    Shape s;
    for (std::size_t d = 0; d < xs.size(); ++d)
      if (static_cast<std::int64_t>(d) != axis) s.push_back(xs[d]);
      else if (n.get_int("keepdims", 1)) s.push_back(1);
    c.set(0, s, kInt64);
    return true;
  }
  if (op == "TopK") {
    std::vector<std::int64_t> k;
    if (!c.ints("k", k) || k.empty()) return false;
    const auto axis = axis_in(c, n.get_int("axis", -1), xs.size());
    Shape s = xs;
    s[axis] = k[0];
    c.set(0, s, xt);
    c.set(1, s, kInt64);
    return true;
  }
  if (op == "DepthToSpace" || op == "SpaceToDepth") {
    if (xs.size() != 4) return false;
    const std::int64_t b = n.get_int("blocksize", 1);
    if (b <= 0) throw CompileError(c.where() + ": blocksize " + std::to_string(b));
    if (op == "DepthToSpace") c.set(0, {xs[0], xs[1] / (b * b), xs[2] * b, xs[3] * b}, xt);
    else c.set(0, {xs[0], xs[1] * b * b, xs[2] / b, xs[3] / b}, xt);
    return true;
  }
  if (op == "ConvTranspose") {
    const Tensor* w = c.in(1);
    if (w->shape.size() != 4 || xs.size() != 4) return false;
    const std::int64_t group = n.get_int("group", 1);
    if (w->shape[0] != xs[1]) throw CompileError(c.where() + ": input has " + std::to_string(xs[1]) + " channels, weights expect " + std::to_string(w->shape[0]));
    auto strides = n.get_ints("strides", {1, 1}), dil = n.get_ints("dilations", {1, 1});
    auto out_pad = n.get_ints("output_padding", {0, 0}), pads = n.get_ints("pads", {0, 0, 0, 0});
    auto out_shape = n.get_ints("output_shape");
    const std::string auto_pad = n.get_string("auto_pad", "NOTSET");
    if (strides.size() != 2 || dil.size() != 2 || out_pad.size() != 2 || pads.size() != 4) return false;
    Shape s = {xs[0], w->shape[1] * group, 0, 0};
    for (int d = 0; d < 2; ++d) {
      if (!out_shape.empty()) s[2 + d] = out_shape[out_shape.size() - 2 + d];
      else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") s[2 + d] = xs[2 + d] * strides[d];
      else {
        const std::int64_t p = auto_pad == "VALID" ? 0 : pads[d] + pads[d + 2];
        s[2 + d] = strides[d] * (xs[2 + d] - 1) + out_pad[d] + (w->shape[2 + d] - 1) * dil[d] + 1 - p;
      }
    }
    c.set(0, s, xt);
    return true;
  }
  if (op == "Resize" || op == "Upsample") {
    std::vector<float> scales;
    std::vector<std::int64_t> sizes;
    c.ints("sizes", sizes);
    if (sizes.empty()) c.floats("scales", scales);
    if (sizes.empty() && scales.empty()) return false;
    if (n.has("axes")) return false;
    c.set(0, resize_shape(xs, scales, sizes), xt);
    return true;
  }
  if (op == "GatherND" || op == "OneHot" || op == "Einsum") return false;  // ONNX's inference
  return false;
}

}  // namespace

bool infer_tensor_op(ShapeContext& c) {
  try {
    return rule(c);
  } catch (const std::invalid_argument& e) {
    throw CompileError(c.where() + ": " + e.what());
  } catch (const std::out_of_range& e) {
    throw CompileError(c.where() + ": a parameter is out of range");
  }
}

}  // namespace npu::compiler
