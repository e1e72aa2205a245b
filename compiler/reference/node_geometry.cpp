#include "compiler/reference/node_geometry.h"

#include <algorithm>

namespace npu::compiler {

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

}  // namespace npu::compiler
