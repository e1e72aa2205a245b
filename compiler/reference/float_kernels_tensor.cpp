// Tensor kernels: shapes and data movement (Shape, Reshape, Transpose, Slice, Split, Concat,
// Gather, ScatterND, Expand, Tile, Pad, DepthToSpace, ...) and Resize (nearest, linear).
#include <algorithm>
#include <cmath>

#include "compiler/reference/float_kernels.h"
#include "compiler/reference/saturating_cast.h"
#include "compiler/reference/shape_rules.h"

namespace npu::compiler {
namespace {

FloatTensor reshaped(const EvalNode& e, const Shape& shape) {
  FloatTensor y = e.need(0);
  if (shape_elements(shape) != y.elements()) e.fail("output shape does not hold the input's elements");
  y.shape = shape;
  return y;
}

FloatOutputs reshape(const EvalNode& e) {
  std::vector<std::int64_t> target;
  if (!e.ints("shape", target)) e.fail("the target shape is not known");
  return outputs(reshaped(e, reshape_shape(e.need(0).shape, target, e.node.get_int("allowzero", 0) != 0)));
}

FloatOutputs squeeze(const EvalNode& e) {
  std::vector<std::int64_t> axes;
  e.ints("axes", axes);
  return outputs(reshaped(e, squeeze_shape(e.need(0).shape, axes)));
}

FloatOutputs unsqueeze(const EvalNode& e) {
  std::vector<std::int64_t> axes;
  if (!e.ints("axes", axes)) e.fail("axes are not known");
  return outputs(reshaped(e, unsqueeze_shape(e.need(0).shape, axes)));
}

FloatOutputs flatten(const EvalNode& e) {
  return outputs(reshaped(e, flatten_shape(e.need(0).shape, e.node.get_int("axis", 1))));
}

FloatOutputs shape_of(const EvalNode& e) {
  const Shape& s = e.need(0).shape;
  const auto rank = static_cast<std::int64_t>(s.size());
  auto clamp = [&](std::int64_t v) { return std::min(std::max(v < 0 ? v + rank : v, std::int64_t{0}), rank); };
  const std::int64_t start = clamp(e.node.get_int("start", 0)), end = clamp(e.node.get_int("end", rank));
  FloatTensor y;
  for (std::int64_t d = start; d < end; ++d) y.data.push_back(static_cast<float>(s[d]));
  y.shape = {static_cast<std::int64_t>(y.data.size())};
  return outputs(std::move(y));
}

FloatOutputs constant_of_shape(const EvalNode& e) {
  FloatTensor y;
  for (float v : e.need(0).data) y.shape.push_back(saturating_cast(v));
  float value = 0.0f;
  auto it = e.node.attributes.find("value");
  if (it != e.node.attributes.end()) {
    const Attribute& a = it->second;
    if (a.kind != Attribute::Kind::Tensor) e.fail("value is not a numeric tensor");
    value = !a.floats.empty() ? a.floats[0] : !a.ints.empty() ? static_cast<float>(a.ints[0]) : 0.0f;
  }
  y.data.assign(static_cast<std::size_t>(shape_elements(y.shape)), value);
  return outputs(std::move(y));
}

FloatOutputs range(const EvalNode& e) {
  const double start = e.need(0).data.at(0), limit = e.need(1).data.at(0), delta = e.need(2).data.at(0);
  FloatTensor y;
  const std::int64_t n = range_count(start, limit, delta);
  y.shape = {n};
  for (std::int64_t i = 0; i < n; ++i) y.data.push_back(static_cast<float>(start + i * delta));
  return outputs(std::move(y));
}

FloatOutputs concat_kernel(const EvalNode& e) {
  std::vector<const FloatTensor*> parts;
  for (std::size_t i = 0; i < e.inputs.size(); ++i) parts.push_back(&e.need(i));
  return outputs(concat(parts, e.node.get_int("axis", 0)));
}

FloatOutputs split_kernel(const EvalNode& e) {
  std::vector<std::int64_t> sizes;
  e.ints("split", sizes);
  std::size_t parts = e.node.outputs.size();
  if (e.node.has("num_outputs")) parts = static_cast<std::size_t>(e.node.get_int("num_outputs", 1));
  auto out = split(e.need(0), e.node.get_int("axis", 0), sizes, parts);
  if (out.size() != e.node.outputs.size()) e.fail("split gives " + std::to_string(out.size()) + " parts for " + std::to_string(e.node.outputs.size()) + " outputs");
  return out;
}

FloatOutputs slice_kernel(const EvalNode& e) {
  std::vector<std::int64_t> starts, ends, axes, steps;
  if (!e.ints("starts", starts) || !e.ints("ends", ends)) e.fail("starts/ends are not known");
  e.ints("axes", axes);
  e.ints("steps", steps);
  return outputs(slice(e.need(0), starts, ends, axes, steps));
}

FloatOutputs pad_kernel(const EvalNode& e) {
  const FloatTensor& x = e.need(0);
  std::vector<std::int64_t> pads;
  if (!e.ints("pads", pads)) e.fail("pads are not known");
  // Pad-18's axes input, when not canonicalised: pads cover only those axes.
  if (e.node.inputs.size() > 3 && e.optional(3)) {
    const auto r = static_cast<std::int64_t>(x.shape.size());
    std::vector<std::int64_t> full(static_cast<std::size_t>(2 * r), 0);
    const auto& axes = e.optional(3)->data;
    for (std::size_t i = 0; i < axes.size(); ++i) {
      auto a = normalize_axis_checked(static_cast<std::int64_t>(axes[i]), r);
      full[a] = pads.at(i);
      full[a + r] = pads.at(i + axes.size());
    }
    pads = full;
  }
  std::vector<float> value;
  e.floats("value", value);
  return outputs(pad(x, pads, e.node.get_string("mode", "constant"), value.empty() ? 0.0f : value[0]));
}

FloatOutputs depth_to_space(const EvalNode& e) {
  const FloatTensor& x = e.need(0);
  if (x.shape.size() != 4) e.fail("input is not 4-D");
  const std::int64_t b = e.node.get_int("blocksize", 1), N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  if (b <= 0 || C % (b * b)) e.fail("channels do not divide by blocksize^2");
  const bool crd = e.node.get_string("mode", "DCR") == "CRD";
  FloatTensor t = x;
  t.shape = crd ? Shape{N, C / (b * b), b, b, H, W} : Shape{N, b, b, C / (b * b), H, W};
  FloatTensor y = transpose(t, crd ? std::vector<std::int64_t>{0, 1, 4, 2, 5, 3} : std::vector<std::int64_t>{0, 3, 4, 1, 5, 2});
  y.shape = {N, C / (b * b), H * b, W * b};
  return outputs(std::move(y));
}

FloatOutputs space_to_depth(const EvalNode& e) {
  const FloatTensor& x = e.need(0);
  if (x.shape.size() != 4) e.fail("input is not 4-D");
  const std::int64_t b = e.node.get_int("blocksize", 1), N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  if (b <= 0 || H % b || W % b) e.fail("height/width do not divide by blocksize");
  FloatTensor t = x;
  t.shape = {N, C, H / b, b, W / b, b};
  FloatTensor y = transpose(t, {0, 3, 5, 1, 2, 4});
  y.shape = {N, C * b * b, H / b, W / b};
  return outputs(std::move(y));
}

FloatOutputs nonzero(const EvalNode& e) {
  const FloatTensor& x = e.need(0);
  const auto r = x.shape.size();
  auto strides = row_strides(x.shape);
  std::vector<std::int64_t> hits;
  for (std::int64_t i = 0; i < x.elements(); ++i)
    if (x.data[i] != 0.0f) hits.push_back(i);
  FloatTensor y;
  y.shape = {static_cast<std::int64_t>(r), static_cast<std::int64_t>(hits.size())};
  y.data.resize(r * hits.size());
  for (std::size_t h = 0; h < hits.size(); ++h)
    for (std::size_t d = 0; d < r; ++d) y.data[d * hits.size() + h] = static_cast<float>((hits[h] / strides[d]) % x.shape[d]);
  return outputs(std::move(y));
}

FloatOutputs trilu(const EvalNode& e) {
  FloatTensor y = e.need(0);
  if (y.shape.size() < 2) e.fail("input rank below 2");
  const std::int64_t k = e.optional(1) ? static_cast<std::int64_t>(e.optional(1)->data.at(0)) : 0;
  const bool upper = e.node.get_int("upper", 1) != 0;
  const std::int64_t R = y.shape[y.shape.size() - 2], C = y.shape.back();
  for (std::int64_t i = 0; i < y.elements(); ++i) {
    const std::int64_t c = i % C, rr = (i / C) % R;
    if (upper ? c - rr < k : c - rr > k) y.data[i] = 0.0f;
  }
  return outputs(std::move(y));
}

// Linear interpolation source coordinate (ONNX coordinate transformation modes).
double linear_source(const std::string& ctm, std::int64_t o, std::int64_t in, std::int64_t out, double scale) {
  if (ctm == "align_corners") return out > 1 ? o * (in - 1.0) / (out - 1.0) : 0.0;
  if (ctm == "asymmetric") return o / scale;
  if (ctm == "pytorch_half_pixel") return out > 1 ? (o + 0.5) / scale - 0.5 : 0.0;
  return (o + 0.5) / scale - 0.5;  // half_pixel
}

FloatTensor resize_nearest(const EvalNode& e, const FloatTensor& x, const Shape& out_shape, const std::string& ctm,
                           const std::string& nm) {
  const std::size_t r = x.shape.size();
  std::vector<std::vector<std::int64_t>> src(r);
  for (std::size_t d = 0; d < r; ++d)
    for (std::int64_t o = 0; o < out_shape[d]; ++o) {
      std::int64_t i = nearest_source_index(ctm, nm, o, x.shape[d], out_shape[d]);
      if (i < 0) e.fail("coordinate_transformation_mode '" + ctm + "' is not supported");
      src[d].push_back(i);
    }
  FloatTensor y;
  y.shape = out_shape;
  y.data.resize(static_cast<std::size_t>(shape_elements(out_shape)));
  auto xs = row_strides(x.shape);
  std::vector<std::int64_t> idx(r, 0);
  const std::int64_t inner = r ? out_shape[r - 1] : 1;
  for (std::size_t o = 0; o < y.data.size(); o += static_cast<std::size_t>(inner)) {
    std::int64_t base = 0;
    for (std::size_t d = 0; d + 1 < r; ++d) base += src[d][idx[d]] * xs[d];
    for (std::int64_t i = 0; i < inner; ++i) y.data[o + i] = x.data[base + (r ? src[r - 1][i] : 0)];
    for (int d = static_cast<int>(r) - 2; d >= 0; --d) {
      if (++idx[d] < out_shape[d]) break;
      idx[d] = 0;
    }
  }
  return y;
}

// N-linear: each resized axis contributes two taps; unresized axes one.
FloatTensor resize_linear(const EvalNode& e, const FloatTensor& x, const Shape& out_shape, const std::string& ctm,
                          const std::vector<float>& scales) {
  if (ctm == "tf_crop_and_resize") e.fail("coordinate_transformation_mode 'tf_crop_and_resize' is not supported");
  const std::size_t r = x.shape.size();
  struct Tap { std::int64_t i0, i1; float w1; };
  std::vector<std::vector<Tap>> taps(r);
  for (std::size_t d = 0; d < r; ++d) {
    const double scale = d < scales.size() && scales[d] > 0 ? scales[d] : static_cast<double>(out_shape[d]) / x.shape[d];
    for (std::int64_t o = 0; o < out_shape[d]; ++o) {
      if (out_shape[d] == x.shape[d] && (d >= scales.size() || scales[d] == 1.0f)) {
        taps[d].push_back({o, o, 0.0f});
        continue;
      }
      double c = linear_source(ctm, o, x.shape[d], out_shape[d], scale);
      c = std::clamp(c, 0.0, static_cast<double>(x.shape[d] - 1));
      std::int64_t i0 = static_cast<std::int64_t>(std::floor(c));
      std::int64_t i1 = std::min(i0 + 1, x.shape[d] - 1);
      taps[d].push_back({i0, i1, static_cast<float>(c - i0)});
    }
  }
  FloatTensor y;
  y.shape = out_shape;
  y.data.resize(static_cast<std::size_t>(shape_elements(out_shape)));
  auto xs = row_strides(x.shape);
  std::vector<std::int64_t> idx(r, 0);
  for (std::size_t o = 0; o < y.data.size(); ++o) {
    // sum over the 2^r corners, skipping zero-weight ones
    double acc = 0;
    const std::size_t corners = std::size_t{1} << r;
    for (std::size_t c = 0; c < corners; ++c) {
      double w = 1;
      std::int64_t at = 0;
      for (std::size_t d = 0; d < r && w != 0; ++d) {
        const Tap& t = taps[d][idx[d]];
        const bool hi = (c >> d) & 1;
        w *= hi ? t.w1 : 1.0f - t.w1;
        at += (hi ? t.i1 : t.i0) * xs[d];
      }
      if (w != 0) acc += w * x.data[at];
    }
    y.data[o] = static_cast<float>(acc);
    for (int d = static_cast<int>(r) - 1; d >= 0; --d) {
      if (++idx[d] < out_shape[d]) break;
      idx[d] = 0;
    }
  }
  return y;
}

FloatOutputs resize(const EvalNode& e) {
  const FloatTensor& x = e.need(0);
  std::vector<float> scales;
  std::vector<std::int64_t> sizes;
  e.ints("sizes", sizes);
  e.floats("scales", scales);
  if (sizes.empty() && scales.empty()) e.fail("neither scales nor sizes is known");
  if (e.node.has("axes")) e.fail("the axes attribute is not supported");
  Shape out_shape = resize_shape(x.shape, sizes.empty() ? scales : std::vector<float>{}, sizes);
  const bool upsample = e.node.op_type == "Upsample";
  std::string mode = e.node.get_string("mode", "nearest");
  std::string ctm = upsample ? "asymmetric" : e.node.get_string("coordinate_transformation_mode", "half_pixel");
  std::string nm = upsample ? "floor" : e.node.get_string("nearest_mode", "round_prefer_floor");
  if (mode == "nearest") return outputs(resize_nearest(e, x, out_shape, ctm, nm));
  if (mode == "linear" || mode == "bilinear") return outputs(resize_linear(e, x, out_shape, ctm, sizes.empty() ? scales : std::vector<float>{}));
  e.fail("mode '" + mode + "' is not supported");
}

}  // namespace

void add_tensor_kernels(KernelTable& t) {
  t["Reshape"] = reshape;
  t["Squeeze"] = squeeze;
  t["Unsqueeze"] = unsqueeze;
  t["Flatten"] = flatten;
  t["Shape"] = shape_of;
  t["Size"] = [](const EvalNode& e) { return outputs(FloatTensor{{}, {static_cast<float>(e.need(0).elements())}}); };
  t["ConstantOfShape"] = constant_of_shape;
  t["Range"] = range;
  t["Transpose"] = [](const EvalNode& e) { return outputs(transpose(e.need(0), e.node.get_ints("perm"))); };
  t["Concat"] = concat_kernel;
  t["Split"] = split_kernel;
  t["Slice"] = slice_kernel;
  t["Gather"] = [](const EvalNode& e) { return outputs(gather(e.need(0), e.as_ints(1), e.node.get_int("axis", 0))); };
  t["GatherElements"] = [](const EvalNode& e) {
    return outputs(gather_elements(e.need(0), e.as_ints(1), e.node.get_int("axis", 0)));
  };
  t["ScatterND"] = [](const EvalNode& e) {
    return outputs(scatter_nd(e.need(0), e.as_ints(1), e.need(2), e.node.get_string("reduction", "none")));
  };
  t["Expand"] = [](const EvalNode& e) {
    std::vector<std::int64_t> shape;
    if (!e.ints("shape", shape)) e.fail("the target shape is not known");
    return outputs(expand(e.need(0), shape));
  };
  t["Tile"] = [](const EvalNode& e) {
    std::vector<std::int64_t> repeats;
    if (!e.ints("repeats", repeats)) e.fail("repeats are not known");
    return outputs(tile(e.need(0), repeats));
  };
  t["Pad"] = pad_kernel;
  t["DepthToSpace"] = depth_to_space;
  t["SpaceToDepth"] = space_to_depth;
  t["NonZero"] = nonzero;
  t["Trilu"] = trilu;
  t["Resize"] = resize;
  t["Upsample"] = resize;
}

}  // namespace npu::compiler
