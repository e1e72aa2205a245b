#include "compiler/frontend/tflite/tflite_ops.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "compiler/frontend/tflite/tflite_single_op.h"

namespace npu::compiler::tflite_import {
namespace {

using T = tflite::BuiltinOperator;
constexpr std::int64_t kBig = std::numeric_limits<std::int64_t>::max();

int required(const Operator& op, std::size_t k) {
  const int t = op.input(k);
  if (t < 0) fail(op, "input " + std::to_string(k) + " is missing");
  return t;
}
int output(const Operator& op, std::size_t k = 0) {
  if (k >= op.outputs.size() || op.outputs[k] < 0) fail(op, "output " + std::to_string(k) + " is missing");
  return op.outputs[k];
}

// The op's options table, or (an operator may leave it out) one whose every field reads its
// schema default: an empty table of that type.
template <typename Options>
const Options& options(const Operator&, const Options* found) {
  if (found) return *found;
  static const flatbuffers::DetachedBuffer empty = [] {
    flatbuffers::FlatBufferBuilder fbb;
    const auto start = fbb.StartTable();
    fbb.Finish(flatbuffers::Offset<Options>(fbb.EndTable(start)));
    return fbb.Release();
  }();
  return *flatbuffers::GetRoot<Options>(empty.data());
}

// Position in `order` (IR axis) of TFLite axis `axis`.
int ir_axis(const AxisOrder& order, int axis) {
  if (order.empty()) return axis;
  return static_cast<int>(std::find(order.begin(), order.end(), axis) - order.begin());
}

int normalise_axis(const Operator& op, std::int64_t axis, int rank) {
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) fail(op, "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return static_cast<int>(axis);
}

// The order element-wise inputs share: the one held by the first non-constant input of the
// output's rank, if every other non-constant input holds it too; TFLite's own otherwise.
AxisOrder common_order(Builder& b, const std::vector<int>& inputs, int rank) {
  AxisOrder order;
  bool first = true;
  for (int t : inputs) {
    if (t < 0 || b.is_constant(t)) continue;
    const AxisOrder held = b.rank(t) == rank ? b.order_of(t) : AxisOrder{};  // a lower rank broadcasts in TFLite's
    if (first) order = held;
    else if (held != order) return {};
    first = false;
  }
  return order;
}

// SAME/VALID padding of one spatial axis (TensorFlow's rule: the extra pixel goes at the end).
std::pair<std::int64_t, std::int64_t> same_padding(bool same, std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t d) {
  if (!same) return {0, 0};
  const std::int64_t out = (in + s - 1) / s;
  const std::int64_t total = std::max<std::int64_t>((out - 1) * s + (k - 1) * d + 1 - in, 0);
  return {total / 2, total - total / 2};
}

std::string finish(Builder& b, const Operator& op, const std::string& x, int fused, const AxisOrder& order) {
  const std::string y = b.activation(x, fused, output(op), order, op.where);
  b.define(output(op), y, order);
  return y;
}

void conv2d(Builder& b, const Operator& op, bool depthwise) {
  const int x = required(op, 0), w = required(op, 1), bias = op.input(2);
  if (b.rank(x) != 4 || b.rank(w) != 4) fail(op, "input and filter must be 4-D (NHWC, OHWI)");
  int padding, sw, sh, dw, dh, fused;
  std::int64_t group = 1;
  const auto& xs = b.info(x).shape;
  const auto& ws = b.info(w).shape;
  if (depthwise) {
    const auto& o = options(op, op.op.builtin_options_as_DepthwiseConv2DOptions());
    padding = o.padding(), sw = o.stride_w(), sh = o.stride_h(), dw = o.dilation_w_factor(), dh = o.dilation_h_factor();
    fused = o.fused_activation_function();
    group = xs[3];
    if (ws[0] != 1 || group == 0 || ws[3] % group != 0)
      fail(op, "depthwise filter " + shape_string(ws) + " does not match " + std::to_string(group) + " input channels");
  } else {
    const auto& o = options(op, op.op.builtin_options_as_Conv2DOptions());
    padding = o.padding(), sw = o.stride_w(), sh = o.stride_h(), dw = o.dilation_w_factor(), dh = o.dilation_h_factor();
    fused = o.fused_activation_function();
    if (ws[3] == 0 || xs[3] % ws[3] != 0)
      fail(op, "filter " + shape_string(ws) + " does not divide the " + std::to_string(xs[3]) + " input channels");
    group = xs[3] / ws[3];
  }
  if (sw < 1 || sh < 1 || dw < 1 || dh < 1) fail(op, "strides and dilations must be positive");
  const auto [pt, pb] = same_padding(padding == tflite::Padding_SAME, xs[1], ws[1], sh, dh);
  const auto [pl, pr] = same_padding(padding == tflite::Padding_SAME, xs[2], ws[2], sw, dw);
  std::vector<std::string> inputs{b.value(x, nchw_order()), b.value(w, depthwise ? AxisOrder{3, 0, 1, 2} : nchw_order())};
  if (bias >= 0) inputs.push_back(b.value(bias));
  const std::string y = b.fresh_value(output(op), nchw_order(), "/conv");
  Node& n = b.add("Conv", inputs, {y}, y);
  n.set_ints("kernel_shape", {ws[1], ws[2]});
  n.set_ints("strides", {sh, sw});
  n.set_ints("dilations", {dh, dw});
  n.set_ints("pads", {pt, pl, pb, pr});
  n.set_int("group", group);
  finish(b, op, y, fused, nchw_order());
}

// TRANSPOSE_CONV (output_shape, weights, input[, bias]) and MediaPipe's
// Convolution2DTransposeBias (input, weights, bias).
void transpose_conv(Builder& b, const Operator& op, int x, int w, int bias, bool same, int sw, int sh, int fused) {
  const auto& xs = b.info(x).shape;
  const auto& ws = b.info(w).shape;
  const auto& ys = b.info(output(op)).shape;
  if (xs.size() != 4 || ws.size() != 4 || ys.size() != 4) fail(op, "input, filter and output must be 4-D");
  if (sw < 1 || sh < 1) fail(op, "strides must be positive");
  std::vector<std::int64_t> pads(4), extra(2);
  const std::int64_t k[2] = {ws[1], ws[2]}, s[2] = {sh, sw}, in[2] = {xs[1], xs[2]}, out[2] = {ys[1], ys[2]};
  for (int a = 0; a < 2; ++a) {
    const std::int64_t total = same ? std::max<std::int64_t>((in[a] - 1) * s[a] + k[a] - out[a], 0) : 0;
    pads[a] = total / 2;
    pads[a + 2] = total - total / 2;
    extra[a] = out[a] - ((in[a] - 1) * s[a] + k[a] - total);
    if (extra[a] < 0 || extra[a] >= s[a])
      fail(op, "output " + shape_string(ys) + " does not follow from input " + shape_string(xs) + " and filter " + shape_string(ws));
  }
  std::vector<std::string> inputs{b.value(x, nchw_order()), b.value(w, {3, 0, 1, 2})};
  if (bias >= 0) inputs.push_back(b.value(bias));
  const std::string y = b.fresh_value(output(op), nchw_order(), "/deconv");
  Node& n = b.add("ConvTranspose", inputs, {y}, y);
  n.set_ints("kernel_shape", {ws[1], ws[2]});
  n.set_ints("strides", {sh, sw});
  n.set_ints("pads", pads);
  if (extra[0] || extra[1]) n.set_ints("output_padding", extra);
  finish(b, op, y, fused, nchw_order());
}

// AVERAGE_POOL_2D, MAX_POOL_2D, and L2_POOL_2D as the square root of the average of squares.
void pool(Builder& b, const Operator& op, const std::string& kind) {
  const int x = required(op, 0);
  if (b.rank(x) != 4) fail(op, "input must be 4-D (NHWC)");
  const auto& o = options(op, op.op.builtin_options_as_Pool2DOptions());
  if (o.stride_w() < 1 || o.stride_h() < 1 || o.filter_width() < 1 || o.filter_height() < 1)
    fail(op, "filter and strides must be positive");
  const auto& xs = b.info(x).shape;
  const bool same = o.padding() == tflite::Padding_SAME;
  const auto [pt, pb] = same_padding(same, xs[1], o.filter_height(), o.stride_h(), 1);
  const auto [pl, pr] = same_padding(same, xs[2], o.filter_width(), o.stride_w(), 1);
  const bool l2 = kind == "L2Pool";
  std::string in = b.value(x, nchw_order());
  if (l2) {
    const std::string sq = b.fresh_value(x, nchw_order(), "/square");
    b.add("Mul", {in, in}, {sq}, sq);
    in = sq;
  }
  const std::string onnx_op = l2 ? "AveragePool" : kind;
  std::string y = b.fresh_value(output(op), nchw_order(), "/pool");
  Node& n = b.add(onnx_op, {in}, {y}, y);
  n.set_ints("kernel_shape", {o.filter_height(), o.filter_width()});
  n.set_ints("strides", {o.stride_h(), o.stride_w()});
  n.set_ints("pads", {pt, pl, pb, pr});
  if (onnx_op == "AveragePool") n.set_int("count_include_pad", 0);  // TensorFlow averages real pixels only
  if (l2) {
    const std::string root = b.fresh_value(output(op), nchw_order(), "/l2pool");
    b.add("Sqrt", {y}, {root}, root);
    y = root;
  }
  finish(b, op, y, o.fused_activation_function(), nchw_order());
}

void fully_connected(Builder& b, const Operator& op) {
  const int x = required(op, 0), w = required(op, 1), bias = op.input(2);
  const auto& o = options(op, op.op.builtin_options_as_FullyConnectedOptions());
  if (o.weights_format() != tflite::FullyConnectedOptionsWeightsFormat_DEFAULT) fail(op, "shuffled weights are not supported");
  const auto& ws = b.info(w).shape;
  if (ws.size() != 2) fail(op, "weights must be 2-D [units, inputs], not " + shape_string(ws));
  const auto& ys = b.info(output(op)).shape;
  std::string in = b.value(x);
  const auto& xs = b.info(x).shape;
  if (xs.empty() || xs.back() != ws[1]) {
    std::int64_t elements = 1;
    for (auto d : xs) elements *= d;
    if (ws[1] == 0 || elements % ws[1] != 0) fail(op, "input " + shape_string(xs) + " does not flatten to rows of " + std::to_string(ws[1]));
  }
  if (ys.size() == 2) {
    if (xs.size() != 2 || xs[1] != ws[1]) {
      const std::string r = b.fresh_value(x, {}, "/rows");
      b.graph().tensors[r].shape = {ys[0], ws[1]};
      b.add("Reshape", {in, b.int_constant(r + "_shape", {2}, {ys[0], ws[1]})}, {r}, r);
      in = r;
    }
    std::vector<std::string> inputs{in, b.value(w)};
    if (bias >= 0) inputs.push_back(b.value(bias));
    const std::string y = b.fresh_value(output(op), {}, "/fc");
    b.add("Gemm", inputs, {y}, y).set_int("transB", 1);
    finish(b, op, y, o.fused_activation_function(), {});
    return;
  }
  // keep_num_dims: a MatMul over the last axis
  std::string y = b.fresh_value(output(op), {}, bias >= 0 ? "/matmul" : "/fc");
  b.add("MatMul", {in, b.value(w, {1, 0})}, {y}, y);
  if (bias >= 0) {
    const std::string z = b.fresh_value(output(op), {}, "/fc");
    b.add("Add", {y, b.value(bias)}, {z}, z);
    y = z;
  }
  finish(b, op, y, o.fused_activation_function(), {});
}

std::string elementwise_value(Builder& b, const Operator& op, const std::string& onnx_op, AxisOrder& order) {
  const int rank = b.rank(output(op));
  order = common_order(b, op.inputs, rank);
  std::vector<std::string> inputs;
  for (int t : op.inputs) inputs.push_back(t < 0 ? "" : b.value(t, order, std::max(rank, b.rank(t))));
  const std::string y = b.fresh_value(output(op), order, "/" + onnx_op);
  b.add(onnx_op, inputs, {y}, y);
  return y;
}

void elementwise(Builder& b, const Operator& op, const std::string& onnx_op, int fused = 0) {
  AxisOrder order;
  const std::string y = elementwise_value(b, op, onnx_op, order);
  finish(b, op, y, fused, order);
}

void unary_chain(Builder& b, const Operator& op, const std::vector<std::string>& ops) {
  const int x = required(op, 0);
  const AxisOrder order = b.order_of(x);
  std::string v = b.value(x, order);
  for (const auto& o : ops) {
    const std::string y = b.fresh_value(output(op), order, "/" + o);
    b.add(o, {v}, {y}, y);
    v = y;
  }
  b.define(output(op), v, order);
}

void clip(Builder& b, const Operator& op, float lo, float hi) {
  const int x = required(op, 0);
  const AxisOrder order = b.order_of(x);
  const std::string y = b.fresh_value(output(op), order, "/clip");
  b.add("Clip", {b.value(x, order), b.float_constant(y + "_min", {}, {lo}), b.float_constant(y + "_max", {}, {hi})}, {y}, y);
  b.define(output(op), y, order);
}

// x * 0.5 * (1 + erf(x / sqrt 2)), or the tanh form: the decompositions the activation-pattern
// pass recognises as one Gelu node.
void gelu(Builder& b, const Operator& op) {
  const int x = required(op, 0);
  const AxisOrder order = b.order_of(x);
  const std::string in = b.value(x, order);
  const bool approximate = op.op.builtin_options_as_GeluOptions() && op.op.builtin_options_as_GeluOptions()->approximate();
  auto step = [&](const std::string& onnx_op, std::vector<std::string> inputs) {
    const std::string y = b.fresh_value(output(op), order, "/gelu_" + onnx_op);
    b.add(onnx_op, std::move(inputs), {y}, y);
    return y;
  };
  auto c = [&](float v) { return b.float_constant(b.info(output(op)).name + "/gelu_c", {}, {v}); };
  std::string inner;
  if (approximate) {
    const std::string cube = step("Mul", {step("Mul", {in, in}), in});
    inner = step("Tanh", {step("Mul", {step("Add", {in, step("Mul", {cube, c(0.044715f)})}), c(std::sqrt(2.0f / 3.14159265358979f))})});
  } else {
    inner = step("Erf", {step("Div", {in, c(std::sqrt(2.0f))})});
  }
  const std::string y = step("Mul", {step("Mul", {in, step("Add", {inner, c(1.0f)})}), c(0.5f)});
  b.define(output(op), y, order);
}

void softmax(Builder& b, const Operator& op, const char* onnx_op) {
  const int x = required(op, 0);
  const AxisOrder order = b.order_of(x);
  std::string in = b.value(x, order);
  const auto* o = op.op.builtin_options_as_SoftmaxOptions();
  if (o && o->beta() != 1.0f) {
    const std::string scaled = b.fresh_value(output(op), order, "/beta");
    b.add("Mul", {in, b.float_constant(scaled + "_c", {}, {o->beta()})}, {scaled}, scaled);
    in = scaled;
  }
  const std::string y = b.fresh_value(output(op), order, "/softmax");
  b.add(onnx_op, {in}, {y}, y).set_int("axis", ir_axis(order, b.rank(x) - 1));
  b.define(output(op), y, order);
}

void concatenation(Builder& b, const Operator& op) {
  const auto& o = options(op, op.op.builtin_options_as_ConcatenationOptions());
  const int rank = b.rank(output(op));
  const int axis = normalise_axis(op, o.axis(), rank);
  for (int t : op.inputs)
    if (t < 0 || b.rank(t) != rank) fail(op, "every input needs the output's rank " + std::to_string(rank));
  const AxisOrder order = common_order(b, op.inputs, rank);
  std::vector<std::string> inputs;
  for (int t : op.inputs) inputs.push_back(b.value(t, order));
  const std::string y = b.fresh_value(output(op), order, "/concat");
  b.add("Concat", inputs, {y}, y).set_int("axis", ir_axis(order, axis));
  finish(b, op, y, o.fused_activation_function(), order);
}

// RESHAPE, SQUEEZE, EXPAND_DIMS and anything else that only relabels the elements: a Reshape to
// the output's declared shape, in TFLite's order.
void reshape(Builder& b, const Operator& op) {
  const int x = required(op, 0);
  const auto& ys = b.info(output(op)).shape;
  const std::string y = b.fresh_value(output(op), {}, "/reshape");
  b.add("Reshape", {b.value(x), b.int_constant(y + "_shape", {static_cast<std::int64_t>(ys.size())}, ys)}, {y}, y);
  b.define(output(op), y);
}

void reduce(Builder& b, const Operator& op, const std::string& onnx_op) {
  const int x = required(op, 0);
  const int rank = b.rank(x);
  const auto axes_in = b.constant_ints(required(op, 1));
  const bool keep = op.op.builtin_options_as_ReducerOptions() && op.op.builtin_options_as_ReducerOptions()->keep_dims();
  const AxisOrder held = b.order_of(x);
  const AxisOrder order = held.empty() ? identity_order(static_cast<std::size_t>(rank)) : held;
  std::vector<bool> reduced(static_cast<std::size_t>(rank), false);
  for (auto a : axes_in) reduced[static_cast<std::size_t>(normalise_axis(op, a, rank))] = true;
  std::vector<std::int64_t> axes;
  for (int j = 0; j < rank; ++j)
    if (reduced[static_cast<std::size_t>(order[static_cast<std::size_t>(j)])]) axes.push_back(j);
  // The output's order: the kept IR axes, each renumbered among the kept TFLite axes.
  AxisOrder out_order = held;
  if (!keep) {
    out_order.clear();
    for (int j = 0; j < rank; ++j) {
      const int a = order[static_cast<std::size_t>(j)];
      if (reduced[static_cast<std::size_t>(a)]) continue;
      out_order.push_back(static_cast<int>(std::count(reduced.begin(), reduced.begin() + a, false)));
    }
  }
  const std::string y = b.fresh_value(output(op), out_order, "/" + onnx_op);
  if (axes.empty()) {  // nothing reduced: the value as it is
    b.define(output(op), b.value(x, held), held);
    return;
  }
  std::vector<std::string> inputs{b.value(x, held)};
  if (onnx_op == "ReduceSum") inputs.push_back(b.int_constant(y + "_axes", {static_cast<std::int64_t>(axes.size())}, axes));
  Node& n = b.add(onnx_op, inputs, {y}, y);
  if (onnx_op != "ReduceSum") n.set_ints("axes", axes);
  n.set_int("keepdims", keep ? 1 : 0);
  b.define(output(op), y, out_order);
}

void pad(Builder& b, const Operator& op, const std::string& mode) {
  const int x = required(op, 0);
  const int rank = b.rank(x);
  const auto paddings = b.constant_ints(required(op, 1));
  if (paddings.size() != static_cast<std::size_t>(2 * rank)) fail(op, "paddings must be [rank, 2]");
  const AxisOrder order = b.order_of(x);
  std::vector<std::int64_t> pads(static_cast<std::size_t>(2 * rank));
  for (int j = 0; j < rank; ++j) {
    const int a = order.empty() ? j : order[static_cast<std::size_t>(j)];
    pads[static_cast<std::size_t>(j)] = paddings[static_cast<std::size_t>(2 * a)];
    pads[static_cast<std::size_t>(j + rank)] = paddings[static_cast<std::size_t>(2 * a + 1)];
  }
  const std::string y = b.fresh_value(output(op), order, "/pad");
  std::vector<std::string> inputs{b.value(x, order), b.int_constant(y + "_pads", {2 * rank}, pads)};
  if (op.input(2) >= 0) {  // PADV2's constant value, dequantised if the input is quantised
    const auto v = b.constant_floats(op.input(2));
    inputs.push_back(b.float_constant(y + "_value", {}, {v.empty() ? 0.0f : v[0]}));
  }
  b.add("Pad", inputs, {y}, y).set_string("mode", mode);
  b.define(output(op), y, order);
}

void resize(Builder& b, const Operator& op, bool bilinear) {
  const int x = required(op, 0);
  if (b.rank(x) != 4) fail(op, "input must be 4-D (NHWC)");
  bool align = false, half = false;
  if (bilinear) {
    if (const auto* o = op.op.builtin_options_as_ResizeBilinearOptions()) align = o->align_corners(), half = o->half_pixel_centers();
  } else if (const auto* o = op.op.builtin_options_as_ResizeNearestNeighborOptions()) {
    align = o->align_corners(), half = o->half_pixel_centers();
  }
  const std::string y = b.fresh_value(output(op), nchw_order(), "/resize");
  const auto sizes = transpose_shape(b.info(output(op)).shape, nchw_order());
  Node& n = b.add("Resize", {b.value(x, nchw_order()), "", "", b.int_constant(y + "_sizes", {4}, sizes)}, {y}, y);
  n.set_string("mode", bilinear ? "linear" : "nearest");
  n.set_string("coordinate_transformation_mode",
               align ? "align_corners" : half ? (bilinear ? "half_pixel" : "tf_half_pixel_for_nn") : "asymmetric");
  if (!bilinear) n.set_string("nearest_mode", align ? "round_prefer_ceil" : "floor");
  b.define(output(op), y, nchw_order());
}

void space_depth(Builder& b, const Operator& op, bool to_depth) {
  const int x = required(op, 0);
  int block = 0;
  if (to_depth) {
    if (const auto* o = op.op.builtin_options_as_SpaceToDepthOptions()) block = o->block_size();
  } else if (const auto* o = op.op.builtin_options_as_DepthToSpaceOptions()) {
    block = o->block_size();
  }
  if (block < 1) fail(op, "block_size must be positive");
  const std::string y = b.fresh_value(output(op), nchw_order(), to_depth ? "/s2d" : "/d2s");
  Node& n = b.add(to_depth ? "SpaceToDepth" : "DepthToSpace", {b.value(x, nchw_order())}, {y}, y);
  n.set_int("blocksize", block);
  if (!to_depth) n.set_string("mode", "DCR");
  b.define(output(op), y, nchw_order());
}

void slice(Builder& b, const Operator& op, std::vector<std::int64_t> starts, std::vector<std::int64_t> ends,
           std::vector<std::int64_t> steps, bool reshape_after) {
  const int x = required(op, 0);
  const AxisOrder order = reshape_after ? AxisOrder{} : b.order_of(x);
  std::vector<std::int64_t> axes;
  for (std::size_t a = 0; a < starts.size(); ++a) axes.push_back(ir_axis(order, static_cast<int>(a)));
  const auto n = static_cast<std::int64_t>(starts.size());
  std::string y = b.fresh_value(output(op), order, "/slice");
  if (reshape_after) b.graph().tensors[y].shape_known = false;
  b.add("Slice",
        {b.value(x, order), b.int_constant(y + "_starts", {n}, starts), b.int_constant(y + "_ends", {n}, ends),
         b.int_constant(y + "_axes", {n}, axes), b.int_constant(y + "_steps", {n}, steps)},
        {y}, y);
  if (reshape_after) {
    const auto& ys = b.info(output(op)).shape;
    const std::string r = b.fresh_value(output(op), {}, "/shrink");
    b.add("Reshape", {y, b.int_constant(r + "_shape", {static_cast<std::int64_t>(ys.size())}, ys)}, {r}, r);
    y = r;
  }
  b.define(output(op), y, order);
}

void strided_slice(Builder& b, const Operator& op) {
  const int x = required(op, 0);
  const auto begin = b.constant_ints(required(op, 1));
  const auto end = b.constant_ints(required(op, 2));
  const auto strides = op.input(3) >= 0 ? b.constant_ints(op.input(3)) : std::vector<std::int64_t>(begin.size(), 1);
  const auto& o = options(op, op.op.builtin_options_as_StridedSliceOptions());
  if (o.ellipsis_mask() || o.new_axis_mask()) fail(op, "ellipsis_mask and new_axis_mask are not supported");
  const auto& xs = b.info(x).shape;
  if (begin.size() != end.size() || begin.size() != strides.size() || begin.size() > xs.size())
    fail(op, "begin, end and strides must have one entry per sliced axis");
  std::vector<std::int64_t> starts, ends, steps;
  for (std::size_t a = 0; a < begin.size(); ++a) {
    const std::int64_t step = strides[a];
    if (step == 0) fail(op, "a stride is 0");
    std::int64_t s = begin[a], e = o.offset() ? begin[a] + end[a] : end[a];
    if (o.begin_mask() >> a & 1) s = step > 0 ? 0 : kBig;
    if (o.end_mask() >> a & 1) e = step > 0 ? kBig : -kBig;
    if (o.shrink_axis_mask() >> a & 1) {
      if (s < 0) s += xs[a];
      e = s + 1;
      starts.push_back(s), ends.push_back(e), steps.push_back(1);
      continue;
    }
    starts.push_back(s), ends.push_back(e), steps.push_back(step);
  }
  slice(b, op, starts, ends, steps, o.shrink_axis_mask() != 0);
}

void split(Builder& b, const Operator& op, int x, int axis_tensor) {
  if (op.outputs.empty()) fail(op, "no outputs");
  const auto axis_values = b.constant_ints(axis_tensor);
  if (axis_values.size() != 1) fail(op, "axis must be one value");
  const int axis = normalise_axis(op, axis_values[0], b.rank(x));
  const AxisOrder order = b.order_of(x);
  std::vector<std::int64_t> sizes;
  std::vector<std::string> outs;
  for (int t : op.outputs) {
    sizes.push_back(b.info(t).shape.at(static_cast<std::size_t>(axis)));
    outs.push_back(b.fresh_value(t, order, "/split"));
  }
  b.add("Split", {b.value(x, order), b.int_constant(outs[0] + "_sizes", {static_cast<std::int64_t>(sizes.size())}, sizes)},
        outs, outs[0])
      .set_int("axis", ir_axis(order, axis));
  for (std::size_t i = 0; i < outs.size(); ++i) b.define(op.outputs[i], outs[i], order);
}

void pack(Builder& b, const Operator& op) {
  if (op.inputs.empty()) fail(op, "no inputs");
  const int rank = b.rank(output(op));
  const auto* o = op.op.builtin_options_as_PackOptions();
  const int axis = normalise_axis(op, o ? o->axis() : 0, rank);
  auto shape = b.info(output(op)).shape;
  shape[static_cast<std::size_t>(axis)] = 1;
  std::vector<std::string> parts;
  for (int t : op.inputs) {
    const std::string r = b.fresh_value(output(op), {}, "/pack_part");
    b.graph().tensors[r].shape = shape;
    b.graph().tensors[r].elem_type = b.graph().tensor(b.value(t)).elem_type;
    b.add("Reshape", {b.value(t), b.int_constant(r + "_shape", {rank}, shape)}, {r}, r);
    parts.push_back(r);
  }
  const std::string y = b.fresh_value(output(op), {}, "/pack");
  b.add("Concat", parts, {y}, y).set_int("axis", axis);
  b.define(output(op), y);
}

void unpack(Builder& b, const Operator& op) {
  const int x = required(op, 0);
  if (op.outputs.empty()) fail(op, "no outputs");
  const int rank = b.rank(x);
  const auto* o = op.op.builtin_options_as_UnpackOptions();
  const int axis = normalise_axis(op, o ? o->axis() : 0, rank);
  auto part_shape = b.info(x).shape;
  part_shape[static_cast<std::size_t>(axis)] = 1;
  std::vector<std::string> parts;
  for (int t : op.outputs) {
    const std::string p = b.fresh_value(t, {}, "/unpack_part");
    b.graph().tensors[p].shape = part_shape;
    parts.push_back(p);
  }
  std::vector<std::int64_t> ones(parts.size(), 1);
  b.add("Split", {b.value(x), b.int_constant(parts[0] + "_sizes", {static_cast<std::int64_t>(ones.size())}, ones)}, parts, parts[0])
      .set_int("axis", axis);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto& ys = b.info(op.outputs[i]).shape;
    const std::string y = b.fresh_value(op.outputs[i], {}, "/unpack");
    b.add("Reshape", {parts[i], b.int_constant(y + "_shape", {static_cast<std::int64_t>(ys.size())}, ys)}, {y}, y);
    b.define(op.outputs[i], y);
  }
}

void transpose(Builder& b, const Operator& op) {
  const int x = required(op, 0);
  const auto perm = b.constant_ints(required(op, 1));
  const int rank = b.rank(x);
  if (perm.size() != static_cast<std::size_t>(rank)) fail(op, "perm must have one entry per axis");
  // Nothing moves: the held value, read with the output's axis numbers. IR axis j holds input
  // axis order[j], which is output axis k with perm[k] == order[j].
  std::vector<int> inverse(static_cast<std::size_t>(rank), -1);
  for (int k = 0; k < rank; ++k) {
    const auto a = perm[static_cast<std::size_t>(k)];
    if (a < 0 || a >= rank || inverse[static_cast<std::size_t>(a)] >= 0) fail(op, "perm is not a permutation");
    inverse[static_cast<std::size_t>(a)] = k;
  }
  const AxisOrder held = b.order_of(x).empty() ? identity_order(static_cast<std::size_t>(rank)) : b.order_of(x);
  AxisOrder out;
  for (int a : held) out.push_back(inverse[static_cast<std::size_t>(a)]);
  b.define(output(op), b.value(x, b.order_of(x)), out);
}

void batch_matmul(Builder& b, const Operator& op) {
  const int x = required(op, 0), w = required(op, 1);
  const auto* o = op.op.builtin_options_as_BatchMatMulOptions();
  auto operand = [&](int t, bool adjoint) {
    if (!adjoint) return b.value(t);
    AxisOrder order = identity_order(static_cast<std::size_t>(b.rank(t)));
    std::swap(order[order.size() - 1], order[order.size() - 2]);
    return b.value(t, order);
  };
  const std::string y = b.fresh_value(output(op), {}, "/matmul");
  b.add("MatMul", {operand(x, o && o->adj_x()), operand(w, o && o->adj_y())}, {y}, y);
  b.define(output(op), y);
}

// ONNX LSTM (gates i, o, f, c) from UNIDIRECTIONAL_SEQUENCE_LSTM and BIDIRECTIONAL_SEQUENCE_LSTM
// (weights per gate i, f, c, o; a direction's 17 inputs from `base`: 4 input weights, 4
// recurrent, 3 peepholes, 4 biases, projection weights and bias); RNN likewise from
// UNIDIRECTIONAL_SEQUENCE_RNN. State tensors start at zero.
// A recurrent op's output as [steps, batch, width] (ONNX gives [steps, directions, batch, hidden]).
std::string as_sequence(Builder& b, const std::string& from, const std::string& base, std::int64_t steps, std::int64_t batch,
                        std::int64_t width) {
  const std::string flat = b.fresh_name(base);
  auto& ft = b.graph().tensors[flat];
  ft.name = flat, ft.elem_type = kFloat, ft.shape = {steps, batch, width}, ft.shape_known = true;
  b.add("Reshape", {from, b.int_constant(flat + "_shape", {3}, {steps, batch, width})}, {flat}, flat);
  return flat;
}

struct LstmWeights {
  std::vector<float> W, R, B;
};

LstmWeights lstm_direction(Builder& b, const Operator& op, std::size_t base, std::int64_t hidden, std::int64_t inputs) {
  if (op.input(base) < 0) fail(op, "CIFG (no input gate) is not supported");
  for (std::size_t k : {8, 9, 10}) if (op.input(base + k) >= 0) fail(op, "peephole connections are not supported");
  if (op.input(base + 15) >= 0) fail(op, "a projection layer is not supported");
  LstmWeights out;
  for (std::size_t gate : {0, 3, 1, 2}) {  // TFLite i, f, c, o -> ONNX i, o, f, c
    const auto w = b.constant_floats(required(op, base + gate));
    const auto r = b.constant_floats(required(op, base + 4 + gate));
    if (w.size() != static_cast<std::size_t>(hidden * inputs) || r.size() != static_cast<std::size_t>(hidden * hidden))
      fail(op, "gate weights do not match " + std::to_string(hidden) + " cells of " + std::to_string(inputs) + " inputs");
    out.W.insert(out.W.end(), w.begin(), w.end());
    out.R.insert(out.R.end(), r.begin(), r.end());
  }
  for (std::size_t gate : {0, 3, 1, 2}) {
    const int t = op.input(base + 11 + gate);
    const auto bias = t >= 0 ? b.constant_floats(t) : std::vector<float>(static_cast<std::size_t>(hidden), 0.0f);
    if (bias.size() != static_cast<std::size_t>(hidden)) fail(op, "a gate bias does not match " + std::to_string(hidden) + " cells");
    out.B.insert(out.B.end(), bias.begin(), bias.end());
  }
  out.B.resize(static_cast<std::size_t>(8 * hidden), 0.0f);
  return out;
}

void sequence_lstm(Builder& b, const Operator& op, bool bidirectional) {
  int fused;
  float cell_clip, proj_clip;
  bool time_major, merge = false;
  if (bidirectional) {
    const auto& o = options(op, op.op.builtin_options_as_BidirectionalSequenceLSTMOptions());
    fused = o.fused_activation_function(), cell_clip = o.cell_clip(), proj_clip = o.proj_clip(), time_major = o.time_major();
    merge = o.merge_outputs();
    if (op.input(39) >= 0) fail(op, "auxiliary inputs are not supported");
  } else {
    const auto& o = options(op, op.op.builtin_options_as_UnidirectionalSequenceLSTMOptions());
    fused = o.fused_activation_function(), cell_clip = o.cell_clip(), proj_clip = o.proj_clip(), time_major = o.time_major();
    for (std::size_t k : {20, 21, 22, 23}) if (op.input(k) >= 0) fail(op, "layer-normalised LSTM is not supported");
  }
  if (cell_clip > 0.0f || proj_clip > 0.0f) fail(op, "cell_clip and proj_clip are not supported");
  const int x = required(op, 0);
  const auto& xs = b.info(x).shape;
  if (xs.size() != 3) fail(op, "input must be 3-D");
  const std::int64_t hidden = b.info(required(op, 2)).shape.at(0), inputs = xs[2];
  const std::int64_t batch = time_major ? xs[1] : xs[0], steps = time_major ? xs[0] : xs[1];
  const std::int64_t dirs = bidirectional ? 2 : 1;
  LstmWeights all = lstm_direction(b, op, 1, hidden, inputs);
  if (bidirectional) {
    const LstmWeights back = lstm_direction(b, op, 18, hidden, inputs);
    all.W.insert(all.W.end(), back.W.begin(), back.W.end());
    all.R.insert(all.R.end(), back.R.begin(), back.R.end());
    all.B.insert(all.B.end(), back.B.begin(), back.B.end());
  }
  const std::string seq = b.value(x, time_major ? AxisOrder{} : AxisOrder{1, 0, 2});
  const std::string name = b.info(output(op)).name;
  const std::string y = b.fresh_name(name + "/lstm");
  auto& gt = b.graph().tensors[y];
  gt.name = y, gt.elem_type = kFloat, gt.shape = {steps, dirs, batch, hidden}, gt.shape_known = true;
  const std::vector<float> zeros(static_cast<std::size_t>(dirs * batch * hidden), 0.0f);
  Node& n = b.add("LSTM",
                  {seq, b.float_constant(name + "/W", {dirs, 4 * hidden, inputs}, all.W),
                   b.float_constant(name + "/R", {dirs, 4 * hidden, hidden}, all.R), b.float_constant(name + "/B", {dirs, 8 * hidden}, all.B),
                   "", b.float_constant(name + "/h0", {dirs, batch, hidden}, zeros), b.float_constant(name + "/c0", {dirs, batch, hidden}, zeros)},
                  {y}, y);
  n.set_int("hidden_size", hidden);
  if (bidirectional) n.set_string("direction", "bidirectional");
  if (fused != tflite::ActivationFunctionType_TANH) {
    if (fused != tflite::ActivationFunctionType_RELU) fail(op, "the cell activation must be TANH or RELU");
    n.attributes["activations"].kind = Attribute::Kind::Strings;
    n.attributes["activations"].strings = {"Sigmoid", "Relu", "Relu"};
    if (bidirectional) n.attributes["activations"].strings = {"Sigmoid", "Relu", "Relu", "Sigmoid", "Relu", "Relu"};
  }
  const AxisOrder order = time_major ? AxisOrder{} : AxisOrder{1, 0, 2};
  auto reshaped = [&](const std::string& from, const std::string& tag, std::int64_t width, int tensor) {
    return as_sequence(b, from, b.info(tensor).name + tag, steps, batch, width);
  };
  if (!bidirectional) return b.define(output(op), reshaped(y, "/lstm_out", hidden, output(op)), order);
  if (merge) {  // [T, 2, B, H] -> [T, B, 2, H] -> [T, B, 2H]: forward then backward features
    const std::string t = b.fresh_name(name + "/lstm_dirs_last");
    auto& tt = b.graph().tensors[t];
    tt.name = t, tt.elem_type = kFloat, tt.shape = {steps, batch, 2, hidden}, tt.shape_known = true;
    b.add("Transpose", {y}, {t}, t).set_ints("perm", {0, 2, 1, 3});
    return b.define(output(op), reshaped(t, "/lstm_out", 2 * hidden, output(op)), order);
  }
  if (op.outputs.size() < 2) fail(op, "without merge_outputs the op needs a backward output");
  std::vector<std::string> halves;
  for (int d = 0; d < 2; ++d) {
    const std::string h = b.fresh_name(name + (d ? "/lstm_bw" : "/lstm_fw"));
    auto& ht = b.graph().tensors[h];
    ht.name = h, ht.elem_type = kFloat, ht.shape = {steps, 1, batch, hidden}, ht.shape_known = true;
    halves.push_back(h);
  }
  b.add("Split", {y, b.int_constant(name + "/lstm_split", {2}, {1, 1})}, halves, name + "/lstm_split").set_int("axis", 1);
  for (int d = 0; d < 2; ++d) b.define(op.outputs[static_cast<std::size_t>(d)], reshaped(halves[static_cast<std::size_t>(d)], "/lstm_out", hidden, op.outputs[static_cast<std::size_t>(d)]), order);
}

void sequence_rnn(Builder& b, const Operator& op) {
  const auto& o = options(op, op.op.builtin_options_as_SequenceRNNOptions());
  const int x = required(op, 0);
  const auto& xs = b.info(x).shape;
  if (xs.size() != 3) fail(op, "input must be 3-D");
  const auto W = b.constant_floats(required(op, 1));
  const auto R = b.constant_floats(required(op, 2));
  auto B = b.constant_floats(required(op, 3));
  const std::int64_t hidden = b.info(required(op, 1)).shape.at(0), inputs = xs[2];
  const std::int64_t batch = o.time_major() ? xs[1] : xs[0], steps = o.time_major() ? xs[0] : xs[1];
  B.resize(static_cast<std::size_t>(2 * hidden), 0.0f);
  const std::string name = b.info(output(op)).name;
  const std::string y = b.fresh_name(name + "/rnn");
  auto& gt = b.graph().tensors[y];
  gt.name = y, gt.elem_type = kFloat, gt.shape = {steps, 1, batch, hidden}, gt.shape_known = true;
  Node& n = b.add("RNN",
                  {b.value(x, o.time_major() ? AxisOrder{} : AxisOrder{1, 0, 2}), b.float_constant(name + "/W", {1, hidden, inputs}, W),
                   b.float_constant(name + "/R", {1, hidden, hidden}, R), b.float_constant(name + "/B", {1, 2 * hidden}, B)},
                  {y}, y);
  n.set_int("hidden_size", hidden);
  const int fused = o.fused_activation_function();
  if (fused != tflite::ActivationFunctionType_TANH && fused != tflite::ActivationFunctionType_RELU)
    fail(op, "the activation must be TANH or RELU");
  n.attributes["activations"].kind = Attribute::Kind::Strings;
  n.attributes["activations"].strings = {fused == tflite::ActivationFunctionType_RELU ? "Relu" : "Tanh"};
  b.define(output(op), as_sequence(b, y, name + "/rnn_out", steps, batch, hidden), o.time_major() ? AxisOrder{} : AxisOrder{1, 0, 2});
}

void gather(Builder& b, const Operator& op) {
  const int params = required(op, 0), indices = required(op, 1);
  const auto* o = op.op.builtin_options_as_GatherOptions();
  if (o && o->batch_dims() != 0) fail(op, "batch_dims other than 0 is not supported");
  const int axis = normalise_axis(op, o ? o->axis() : 0, b.rank(params));
  const std::string y = b.fresh_value(output(op), {}, "/gather");
  b.add("Gather", {b.value(params), b.value(indices)}, {y}, y).set_int("axis", axis);
  b.define(output(op), y);
}

void variable_op(Builder& b, const Operator& op, Variables& v) {
  auto shared_name = [&](int handle) {
    const auto found = v.handles.find(handle);
    if (found == v.handles.end()) fail(op, "reads a resource that no VAR_HANDLE in this subgraph makes");
    return found->second;
  };
  if (op.code == T::BuiltinOperator_VAR_HANDLE) {
    const auto* o = op.op.builtin_options_as_VarHandleOptions();
    std::string name = o && o->shared_name() ? o->shared_name()->str() : "";
    if (name.empty()) name = b.info(output(op)).name;
    v.handles[output(op)] = name;
  } else if (op.code == T::BuiltinOperator_READ_VARIABLE) {
    const std::string name = shared_name(required(op, 0));
    if (!v.current.count(name)) {  // read before written: the caller's state, a graph input
      const std::string input = "state/" + name;
      if (b.graph().tensors.count(input)) fail(op, "state input '" + input + "' clashes with a tensor of that name");
      const TensorInfo& t = b.info(output(op));
      Tensor& in = b.graph().tensors[input];
      in.name = input, in.elem_type = t.elem_type, in.shape = t.shape, in.shape_known = true;
      b.graph().inputs.push_back(input);
      v.current[name] = input;
      v.read_first.push_back(name);
      if (t.quantized_activation()) {
        v.quantized.emplace(name, t);
        const std::string dq = b.fresh_name(input + "/dq");
        b.add("DequantizeLinear",
              {input, b.float_constant(input + "/scale", {}, {t.scales.front()}),
               b.int_constant(input + "/zero_point", {}, {t.zero_points.empty() ? 0 : t.zero_points.front()}, t.elem_type)},
              {dq}, dq);
        Tensor& f = b.graph().tensors[dq];
        f.elem_type = kFloat, f.shape = t.shape, f.shape_known = true;
        v.current[name] = dq;
      }
    }
    b.define_raw(output(op), v.current[name]);
  } else {  // ASSIGN_VARIABLE
    const std::string name = shared_name(required(op, 0));
    if (!v.current.count(name) || std::find(v.assigned.begin(), v.assigned.end(), name) == v.assigned.end())
      v.assigned.push_back(name);
    v.current[name] = b.value(required(op, 1));
    if (b.info(required(op, 1)).quantized_activation()) v.quantized.emplace(name, b.info(required(op, 1)));
  }
}

// MediaPipe's custom op: TfLiteTransposeConvParams {padding, stride_width, stride_height} as
// three little-endian int32 in custom_options (padding: 1 SAME, 2 VALID).
void mediapipe_transpose_conv(Builder& b, const Operator& op) {
  const auto* raw = op.op.custom_options();
  if (!raw || raw->size() < 12) fail(op, "custom_options must hold padding, stride_width and stride_height");
  std::int32_t params[3];
  std::memcpy(params, raw->data(), sizeof params);
  transpose_conv(b, op, required(op, 0), required(op, 1), op.input(2), params[0] == 1, params[1], params[2], 0);
}

// An operator with no ONNX equivalent (a custom op such as TFLite_Detection_PostProcess, SVDF, a
// WHILE whose trip count is not static): one node of domain kTfliteOnlyDomain with the file's
// output shapes, carrying the operator as a model of its own (attribute "tflite_model", tflite_single_op.h) that LiteRT runs
// for the CPU step and for INT8 calibration. Its inputs are the operator's non-constant ones (the
// constants travel inside that model), as floats: the CPU step quantises them where the
// operator's tensors are quantised.
void opaque(Builder& b, const Operator& op, const std::string& name) {
  if (name.empty()) fail(op, "an operator without a name");
  std::vector<std::string> inputs, outputs;
  std::vector<int> fed;
  for (int t : op.inputs) {
    if (t < 0 || b.is_constant(t) || b.info(t).variable) continue;
    if (b.info(t).elem_type < 0) fail(op, "an input is a resource handle, which only LiteRT's own graph can pass");
    inputs.push_back(b.value(t));
    fed.push_back(t);
  }
  for (int t : op.outputs) {
    if (t < 0) fail(op, "an output index is negative");
    outputs.push_back(b.fresh_value(t, {}, "/" + name));
  }
  const auto model = single_operator_model(op.file, op.model, op.subgraph, op.op, fed, op.where);
  Node& n = b.add(name, inputs, outputs, outputs.empty() ? name : outputs[0]);
  n.domain = kTfliteOnlyDomain;
  n.set_string("tflite_model", std::string(model.begin(), model.end()));
  for (std::size_t i = 0; i < outputs.size(); ++i) b.define(op.outputs[i], outputs[i]);
}

}  // namespace

int builtin_code(const tflite::OperatorCode& code) {
  return std::max<int>(code.builtin_code(), code.deprecated_builtin_code());
}

void opaque_operator(Builder& b, const Operator& op) {
  if (op.code == T::BuiltinOperator_CUSTOM) return opaque(b, op, op.custom_code);
  return opaque(b, op, tflite::EnumNameBuiltinOperator(static_cast<tflite::BuiltinOperator>(op.code)));
}

void translate_operator(Builder& b, const Operator& op, Variables& variables) {
  switch (op.code) {
    case T::BuiltinOperator_CONV_2D: return conv2d(b, op, false);
    case T::BuiltinOperator_DEPTHWISE_CONV_2D: return conv2d(b, op, true);
    case T::BuiltinOperator_TRANSPOSE_CONV: {
      const auto& o = options(op, op.op.builtin_options_as_TransposeConvOptions());
      return transpose_conv(b, op, required(op, 2), required(op, 1), op.input(3), o.padding() == tflite::Padding_SAME, o.stride_w(),
                            o.stride_h(), o.fused_activation_function());
    }
    case T::BuiltinOperator_AVERAGE_POOL_2D: return pool(b, op, "AveragePool");
    case T::BuiltinOperator_MAX_POOL_2D: return pool(b, op, "MaxPool");
    case T::BuiltinOperator_FULLY_CONNECTED: return fully_connected(b, op);
    case T::BuiltinOperator_ADD: {
      const auto* o = op.op.builtin_options_as_AddOptions();
      return elementwise(b, op, "Add", o ? o->fused_activation_function() : 0);
    }
    case T::BuiltinOperator_SUB: {
      const auto* o = op.op.builtin_options_as_SubOptions();
      return elementwise(b, op, "Sub", o ? o->fused_activation_function() : 0);
    }
    case T::BuiltinOperator_MUL: {
      const auto* o = op.op.builtin_options_as_MulOptions();
      return elementwise(b, op, "Mul", o ? o->fused_activation_function() : 0);
    }
    case T::BuiltinOperator_DIV: {
      const auto* o = op.op.builtin_options_as_DivOptions();
      return elementwise(b, op, "Div", o ? o->fused_activation_function() : 0);
    }
    case T::BuiltinOperator_MAXIMUM: return elementwise(b, op, "Max");
    case T::BuiltinOperator_MINIMUM: return elementwise(b, op, "Min");
    case T::BuiltinOperator_POW: return elementwise(b, op, "Pow");
    case T::BuiltinOperator_PRELU: return elementwise(b, op, "PRelu");
    case T::BuiltinOperator_LESS: return elementwise(b, op, "Less");
    case T::BuiltinOperator_LESS_EQUAL: return elementwise(b, op, "LessOrEqual");
    case T::BuiltinOperator_GREATER: return elementwise(b, op, "Greater");
    case T::BuiltinOperator_GREATER_EQUAL: return elementwise(b, op, "GreaterOrEqual");
    case T::BuiltinOperator_EQUAL: return elementwise(b, op, "Equal");
    case T::BuiltinOperator_LOGICAL_AND: return elementwise(b, op, "And");
    case T::BuiltinOperator_LOGICAL_OR: return elementwise(b, op, "Or");
    case T::BuiltinOperator_SELECT:
    case T::BuiltinOperator_SELECT_V2:
      for (std::size_t k = 0; k < 3; ++k) required(op, k);
      return elementwise(b, op, "Where");
    case T::BuiltinOperator_SQUARED_DIFFERENCE: {
      AxisOrder order;
      const std::string d = elementwise_value(b, op, "Sub", order);
      const std::string sq = b.fresh_value(output(op), order, "/square");
      b.add("Mul", {d, d}, {sq}, sq);
      return b.define(output(op), sq, order);
    }
    case T::BuiltinOperator_LOGISTIC: return unary_chain(b, op, {"Sigmoid"});
    case T::BuiltinOperator_TANH: return unary_chain(b, op, {"Tanh"});
    case T::BuiltinOperator_RELU: return unary_chain(b, op, {"Relu"});
    case T::BuiltinOperator_RELU6: return clip(b, op, 0.0f, 6.0f);
    case T::BuiltinOperator_RELU_N1_TO_1: return clip(b, op, -1.0f, 1.0f);
    case T::BuiltinOperator_RELU_0_TO_1: return clip(b, op, 0.0f, 1.0f);
    case T::BuiltinOperator_HARD_SWISH: return unary_chain(b, op, {"HardSwish"});
    case T::BuiltinOperator_ELU: return unary_chain(b, op, {"Elu"});
    case T::BuiltinOperator_EXP: return unary_chain(b, op, {"Exp"});
    case T::BuiltinOperator_LOG: return unary_chain(b, op, {"Log"});
    case T::BuiltinOperator_SQRT: return unary_chain(b, op, {"Sqrt"});
    case T::BuiltinOperator_RSQRT: return unary_chain(b, op, {"Sqrt", "Reciprocal"});
    case T::BuiltinOperator_ABS: return unary_chain(b, op, {"Abs"});
    case T::BuiltinOperator_NEG: return unary_chain(b, op, {"Neg"});
    case T::BuiltinOperator_SIN: return unary_chain(b, op, {"Sin"});
    case T::BuiltinOperator_COS: return unary_chain(b, op, {"Cos"});
    case T::BuiltinOperator_FLOOR: return unary_chain(b, op, {"Floor"});
    case T::BuiltinOperator_CEIL: return unary_chain(b, op, {"Ceil"});
    case T::BuiltinOperator_ROUND: return unary_chain(b, op, {"Round"});
    case T::BuiltinOperator_SIGN: return unary_chain(b, op, {"Sign"});
    case T::BuiltinOperator_LOGICAL_NOT: return unary_chain(b, op, {"Not"});
    case T::BuiltinOperator_SQUARE: {
      const int x = required(op, 0);
      const AxisOrder order = b.order_of(x);
      const std::string v = b.value(x, order), y = b.fresh_value(output(op), order, "/square");
      b.add("Mul", {v, v}, {y}, y);
      return b.define(output(op), y, order);
    }
    case T::BuiltinOperator_LEAKY_RELU: {
      const int x = required(op, 0);
      const AxisOrder order = b.order_of(x);
      const std::string y = b.fresh_value(output(op), order, "/leaky_relu");
      const auto* o = op.op.builtin_options_as_LeakyReluOptions();
      b.add("LeakyRelu", {b.value(x, order)}, {y}, y).set_float("alpha", o ? o->alpha() : 0.2f);
      return b.define(output(op), y, order);
    }
    case T::BuiltinOperator_GELU: return gelu(b, op);
    case T::BuiltinOperator_QUANTIZE:
    case T::BuiltinOperator_DEQUANTIZE:
    case T::BuiltinOperator_DENSIFY: {  // the value itself; define() gives a quantised output its QDQ pair
      const int x = required(op, 0);
      return b.define(output(op), b.value(x, b.order_of(x)), b.order_of(x));
    }
    case T::BuiltinOperator_CAST: {
      const int x = required(op, 0);
      const AxisOrder order = b.order_of(x);
      const std::string y = b.fresh_value(output(op), order, "/cast");
      b.add("Cast", {b.value(x, order)}, {y}, y).set_int("to", b.info(output(op)).elem_type);
      return b.define(output(op), y, order);
    }
    case T::BuiltinOperator_SOFTMAX: return softmax(b, op, "Softmax");
    case T::BuiltinOperator_LOG_SOFTMAX: return softmax(b, op, "LogSoftmax");
    case T::BuiltinOperator_L2_NORMALIZATION: {
      const int x = required(op, 0);
      const AxisOrder order = b.order_of(x);
      const std::string y = b.fresh_value(output(op), order, "/l2norm");
      Node& n = b.add("LpNormalization", {b.value(x, order)}, {y}, y);
      n.set_int("axis", ir_axis(order, b.rank(x) - 1));
      n.set_int("p", 2);
      return b.define(output(op), y, order);
    }
    case T::BuiltinOperator_CONCATENATION: return concatenation(b, op);
    case T::BuiltinOperator_RESHAPE:
    case T::BuiltinOperator_SQUEEZE:
    case T::BuiltinOperator_EXPAND_DIMS: return reshape(b, op);
    case T::BuiltinOperator_MEAN: return reduce(b, op, "ReduceMean");
    case T::BuiltinOperator_SUM: return reduce(b, op, "ReduceSum");
    case T::BuiltinOperator_REDUCE_MAX: return reduce(b, op, "ReduceMax");
    case T::BuiltinOperator_REDUCE_MIN: return reduce(b, op, "ReduceMin");
    case T::BuiltinOperator_REDUCE_PROD: return reduce(b, op, "ReduceProd");
    case T::BuiltinOperator_PAD:
    case T::BuiltinOperator_PADV2: return pad(b, op, "constant");
    case T::BuiltinOperator_MIRROR_PAD: {
      const auto* o = op.op.builtin_options_as_MirrorPadOptions();
      if (o && o->mode() != tflite::MirrorPadMode_REFLECT) fail(op, "SYMMETRIC mirror padding is not supported (REFLECT is)");
      return pad(b, op, "reflect");
    }
    case T::BuiltinOperator_RESIZE_BILINEAR: return resize(b, op, true);
    case T::BuiltinOperator_RESIZE_NEAREST_NEIGHBOR: return resize(b, op, false);
    case T::BuiltinOperator_SPACE_TO_DEPTH: return space_depth(b, op, true);
    case T::BuiltinOperator_DEPTH_TO_SPACE: return space_depth(b, op, false);
    case T::BuiltinOperator_STRIDED_SLICE: return strided_slice(b, op);
    case T::BuiltinOperator_SLICE: {
      const auto begin = b.constant_ints(required(op, 1));
      const auto size = b.constant_ints(required(op, 2));
      if (begin.size() != size.size()) fail(op, "begin and size differ in length");
      std::vector<std::int64_t> ends;
      for (std::size_t a = 0; a < begin.size(); ++a) ends.push_back(size[a] < 0 ? kBig : begin[a] + size[a]);
      return slice(b, op, begin, ends, std::vector<std::int64_t>(begin.size(), 1), false);
    }
    case T::BuiltinOperator_SPLIT: return split(b, op, required(op, 1), required(op, 0));
    case T::BuiltinOperator_SPLIT_V: return split(b, op, required(op, 0), required(op, 2));
    case T::BuiltinOperator_PACK: return pack(b, op);
    case T::BuiltinOperator_UNPACK: return unpack(b, op);
    case T::BuiltinOperator_TRANSPOSE: return transpose(b, op);
    case T::BuiltinOperator_BATCH_MATMUL: return batch_matmul(b, op);
    case T::BuiltinOperator_GATHER: return gather(b, op);
    case T::BuiltinOperator_EMBEDDING_LOOKUP: {  // (ids, table): rows of the table
      const std::string y = b.fresh_value(output(op), {}, "/lookup");
      b.add("Gather", {b.value(required(op, 1)), b.value(required(op, 0))}, {y}, y).set_int("axis", 0);
      return b.define(output(op), y);
    }
    case T::BuiltinOperator_GATHER_ND: {
      const std::string y = b.fresh_value(output(op), {}, "/gather_nd");
      const int indices = required(op, 1);
      std::string idx = b.value(indices);
      if (b.info(indices).elem_type != kInt64) {
        const std::string c = b.fresh_value(indices, {}, "/int64");
        b.graph().tensors[c].elem_type = kInt64;
        b.add("Cast", {idx}, {c}, c).set_int("to", kInt64);
        idx = c;
      }
      b.add("GatherND", {b.value(required(op, 0)), idx}, {y}, y);
      return b.define(output(op), y);
    }
    case T::BuiltinOperator_ADD_N: {  // a chain of Adds, which the vector unit runs
      const int rank = b.rank(output(op));
      const AxisOrder order = common_order(b, op.inputs, rank);
      if (op.inputs.empty()) fail(op, "ADD_N needs an input");
      std::string sum = b.value(op.inputs[0], order, std::max(rank, b.rank(op.inputs[0])));
      for (std::size_t k = 1; k < op.inputs.size(); ++k) {
        const std::string y = b.fresh_value(output(op), order, "/add");
        b.add("Add", {sum, b.value(op.inputs[k], order, std::max(rank, b.rank(op.inputs[k])))}, {y}, y);
        sum = y;
      }
      return b.define(output(op), sum, order);
    }
    case T::BuiltinOperator_REVERSE_V2: {
      const int x = required(op, 0);
      const auto axes = b.constant_ints(required(op, 1));
      std::vector<std::int64_t> starts, ends, steps;
      for (auto a : axes) (void)normalise_axis(op, a, b.rank(x));
      for (int a = 0; a < b.rank(x); ++a) {
        const bool flip = std::any_of(axes.begin(), axes.end(), [&](std::int64_t v) { return normalise_axis(op, v, b.rank(x)) == a; });
        starts.push_back(flip ? -1 : 0), ends.push_back(flip ? -kBig : kBig), steps.push_back(flip ? -1 : 1);
      }
      return slice(b, op, starts, ends, steps, false);
    }
    case T::BuiltinOperator_LOCAL_RESPONSE_NORMALIZATION: {  // across channels, as ONNX LRN (which divides alpha by size)
      const int x = required(op, 0);
      if (b.rank(x) != 4) fail(op, "input must be 4-D (NHWC)");
      const auto& o = options(op, op.op.builtin_options_as_LocalResponseNormalizationOptions());
      if (o.radius() < 0) fail(op, "radius must not be negative");
      const std::int64_t size = 2 * static_cast<std::int64_t>(o.radius()) + 1;
      const std::string y = b.fresh_value(output(op), nchw_order(), "/lrn");
      Node& n = b.add("LRN", {b.value(x, nchw_order())}, {y}, y);
      n.set_int("size", size);
      n.set_float("alpha", o.alpha() * static_cast<float>(size));
      n.set_float("beta", o.beta());
      n.set_float("bias", o.bias());
      return b.define(output(op), y, nchw_order());
    }
    case T::BuiltinOperator_L2_POOL_2D: return pool(b, op, "L2Pool");
    case T::BuiltinOperator_TOPK_V2: {
      const int x = required(op, 0);
      const auto k = b.constant_ints(required(op, 1));
      if (k.size() != 1) fail(op, "k must be one value");
      if (op.outputs.size() < 2) fail(op, "TOPK_V2 has two outputs");
      const std::string values = b.fresh_value(op.outputs[0], {}, "/topk");
      std::string indices = b.fresh_value(op.outputs[1], {}, "/topk_indices");
      b.graph().tensors[indices].elem_type = kInt64;
      b.add("TopK", {b.value(x), b.int_constant(values + "_k", {1}, {k[0]})}, {values, indices}, values).set_int("axis", -1);
      if (b.info(op.outputs[1]).elem_type != kInt64) {
        const std::string c = b.fresh_value(op.outputs[1], {}, "/cast");
        b.add("Cast", {indices}, {c}, c).set_int("to", b.info(op.outputs[1]).elem_type);
        indices = c;
      }
      b.define(op.outputs[0], values);
      return b.define_raw(op.outputs[1], indices);
    }
    case T::BuiltinOperator_SHAPE: {
      const int x = required(op, 0);
      const auto& xs = b.info(x).shape;
      const std::string c = b.int_constant(b.info(output(op)).name + "/shape", {static_cast<std::int64_t>(xs.size())}, xs,
                                           b.info(output(op)).elem_type);
      return b.define_raw(output(op), c);
    }
    case T::BuiltinOperator_ARG_MAX:
    case T::BuiltinOperator_ARG_MIN: {
      const int x = required(op, 0);
      const auto axis_values = b.constant_ints(required(op, 1));
      if (axis_values.size() != 1) fail(op, "axis must be one value");
      const int axis = normalise_axis(op, axis_values[0], b.rank(x));
      std::string y = b.fresh_value(output(op), {}, "/argmax");
      b.graph().tensors[y].elem_type = kInt64;
      Node& n = b.add(op.code == T::BuiltinOperator_ARG_MAX ? "ArgMax" : "ArgMin", {b.value(x)}, {y}, y);
      n.set_int("axis", axis);
      n.set_int("keepdims", 0);
      if (b.info(output(op)).elem_type != kInt64) {
        const std::string c = b.fresh_value(output(op), {}, "/cast");
        b.add("Cast", {y}, {c}, c).set_int("to", b.info(output(op)).elem_type);
        y = c;
      }
      return b.define_raw(output(op), y);
    }
    case T::BuiltinOperator_TILE: {
      const int x = required(op, 0);
      const auto multiples = b.constant_ints(required(op, 1));
      const std::string y = b.fresh_value(output(op), {}, "/tile");
      b.add("Tile", {b.value(x), b.int_constant(y + "_repeats", {static_cast<std::int64_t>(multiples.size())}, multiples)}, {y}, y);
      return b.define(output(op), y);
    }
    case T::BuiltinOperator_BROADCAST_TO: {
      const int x = required(op, 0);
      const auto& ys = b.info(output(op)).shape;
      const std::string y = b.fresh_value(output(op), {}, "/expand");
      b.add("Expand", {b.value(x), b.int_constant(y + "_shape", {static_cast<std::int64_t>(ys.size())}, ys)}, {y}, y);
      return b.define(output(op), y);
    }
    case T::BuiltinOperator_CUMSUM: {
      const int x = required(op, 0);
      const auto axis_values = b.constant_ints(required(op, 1));
      if (axis_values.size() != 1) fail(op, "axis must be one value");
      const AxisOrder order = b.order_of(x);
      const int axis = ir_axis(order, normalise_axis(op, axis_values[0], b.rank(x)));
      const std::string y = b.fresh_value(output(op), order, "/cumsum");
      Node& n = b.add("CumSum", {b.value(x, order), b.int_constant(y + "_axis", {}, {axis})}, {y}, y);
      const auto* o = op.op.builtin_options_as_CumsumOptions();
      n.set_int("exclusive", o && o->exclusive() ? 1 : 0);
      n.set_int("reverse", o && o->reverse() ? 1 : 0);
      return b.define(output(op), y, order);
    }
    case T::BuiltinOperator_UNIDIRECTIONAL_SEQUENCE_LSTM: return sequence_lstm(b, op, false);
    case T::BuiltinOperator_BIDIRECTIONAL_SEQUENCE_LSTM: return sequence_lstm(b, op, true);
    case T::BuiltinOperator_UNIDIRECTIONAL_SEQUENCE_RNN: return sequence_rnn(b, op);
    case T::BuiltinOperator_VAR_HANDLE:
    case T::BuiltinOperator_READ_VARIABLE:
    case T::BuiltinOperator_ASSIGN_VARIABLE: return variable_op(b, op, variables);
    case T::BuiltinOperator_CALL_ONCE: return;  // initialises the variables, which are inputs here
    case T::BuiltinOperator_IF: return translate_if(b, op);
    case T::BuiltinOperator_WHILE: return translate_while(b, op);
    case T::BuiltinOperator_CUSTOM:
      if (op.custom_code == "Convolution2DTransposeBias") return mediapipe_transpose_conv(b, op);
      return opaque_operator(b, op);
    default:
      return opaque_operator(b, op);
  }
}

}  // namespace npu::compiler::tflite_import
