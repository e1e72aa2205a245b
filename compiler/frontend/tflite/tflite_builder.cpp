#include "compiler/frontend/tflite/tflite_builder.h"

#include <numeric>

namespace npu::compiler::tflite_import {

AxisOrder identity_order(std::size_t rank) {
  AxisOrder o(rank);
  std::iota(o.begin(), o.end(), 0);
  return o;
}

const AxisOrder& nchw_order() {
  static const AxisOrder order{0, 3, 1, 2};
  return order;
}

namespace {

AxisOrder normalised(const AxisOrder& order, std::size_t rank) { return order.empty() ? identity_order(rank) : order; }

std::string order_key(const AxisOrder& o) {
  std::string s;
  for (int a : o) s += std::to_string(a) + ",";
  return s;
}

// Transpose permutation taking a value held in `from` to one held in `to`.
std::vector<std::int64_t> permutation(const AxisOrder& from, const AxisOrder& to) {
  std::vector<int> position(from.size());
  for (std::size_t j = 0; j < from.size(); ++j) position[from[j]] = static_cast<int>(j);
  std::vector<std::int64_t> perm;
  for (int axis : to) perm.push_back(position[axis]);
  return perm;
}

}  // namespace

std::vector<std::int64_t> transpose_shape(const std::vector<std::int64_t>& shape, const AxisOrder& order) {
  if (order.empty()) return shape;
  std::vector<bool> seen(shape.size(), false);
  for (int a : order)
    if (order.size() != shape.size() || a < 0 || static_cast<std::size_t>(a) >= shape.size() || seen[static_cast<std::size_t>(a)])
      throw CompileError("a tensor of shape " + shape_string(shape) + " where the op needs rank " + std::to_string(order.size()));
    else
      seen[static_cast<std::size_t>(a)] = true;
  std::vector<std::int64_t> out;
  for (int a : order) out.push_back(shape[a]);
  return out;
}

template <typename T>
std::vector<T> transpose_data(const std::vector<T>& data, const std::vector<std::int64_t>& shape, const AxisOrder& order) {
  if (order.empty() || order == identity_order(order.size()) || data.empty()) return data;
  const std::size_t rank = shape.size();
  std::vector<std::int64_t> in_stride(rank, 1);
  for (int d = static_cast<int>(rank) - 2; d >= 0; --d) in_stride[d] = in_stride[d + 1] * shape[d + 1];
  const auto out_shape = transpose_shape(shape, order);
  std::vector<std::int64_t> stride(rank);  // input stride of each output axis
  for (std::size_t j = 0; j < rank; ++j) stride[j] = in_stride[order[j]];
  std::vector<T> out(data.size());
  std::vector<std::int64_t> index(rank, 0);
  std::int64_t src = 0;
  for (std::size_t k = 0; k < out.size(); ++k) {
    out[k] = data[static_cast<std::size_t>(src)];
    for (int j = static_cast<int>(rank) - 1; j >= 0; --j) {
      if (++index[j] < out_shape[j]) {
        src += stride[j];
        break;
      }
      src -= stride[j] * (out_shape[j] - 1);
      index[j] = 0;
    }
  }
  return out;
}
template std::vector<float> transpose_data(const std::vector<float>&, const std::vector<std::int64_t>&, const AxisOrder&);
template std::vector<std::int64_t> transpose_data(const std::vector<std::int64_t>&, const std::vector<std::int64_t>&,
                                                  const AxisOrder&);

const TensorInfo& Builder::info(int tensor) const {
  if (tensor < 0 || tensor >= static_cast<int>(tensors_.size()))
    throw CompileError(g_.source + ": " + origin_ + ": tensor index " + std::to_string(tensor) + " is out of range (" +
                       std::to_string(tensors_.size()) + " tensors)");
  return tensors_[static_cast<std::size_t>(tensor)];
}

std::vector<float> dequantized(const TensorInfo& t) {
  if (!t.floats.empty() || t.ints.empty()) return t.floats;
  std::vector<float> out(t.ints.size());
  // Per axis: element i belongs to channel (i / inner) % channels.
  std::int64_t inner = 1, channels = 1;
  if (t.scales.size() > 1) {
    for (std::size_t d = static_cast<std::size_t>(t.quant_axis) + 1; d < t.shape.size(); ++d) inner *= t.shape[d];
    channels = t.shape[static_cast<std::size_t>(t.quant_axis)];
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (t.scales.empty()) {
      out[i] = static_cast<float>(t.ints[i]);
      continue;
    }
    const auto channel = static_cast<std::size_t>((static_cast<std::int64_t>(i) / inner) % channels);
    const float scale = t.scales[std::min(channel, t.scales.size() - 1)];
    const std::int64_t zp = t.zero_points.empty() ? 0 : t.zero_points[std::min(channel, t.zero_points.size() - 1)];
    out[i] = scale * static_cast<float>(t.ints[i] - zp);
  }
  return out;
}

std::vector<float> Builder::constant_floats(int tensor) const {
  const TensorInfo& t = info(tensor);
  if (!t.constant) throw CompileError(g_.source + ": " + origin_ + ": tensor '" + t.name + "' must be a constant");
  return dequantized(t);
}

std::vector<std::int64_t> Builder::constant_ints(int tensor) const {
  const TensorInfo& t = info(tensor);
  if (!t.constant || (t.ints.empty() && !t.floats.empty()))
    throw CompileError(g_.source + ": " + origin_ + ": tensor '" + t.name + "' must be an integer constant");
  return t.ints;
}

std::string Builder::fresh_name(const std::string& base) {
  std::string name = base.empty() ? "t" : base;
  for (int i = 1; used_.count(name) || g_.tensors.count(name); ++i) name = base + "_" + std::to_string(i);
  used_.insert(name);
  return name;
}

std::string Builder::float_constant(const std::string& base, std::vector<std::int64_t> shape, std::vector<float> values) {
  const std::string name = fresh_name(base);
  g_.add_constant(name, std::move(shape), std::move(values));
  return name;
}

std::string Builder::int_constant(const std::string& base, std::vector<std::int64_t> shape,
                                  std::vector<std::int64_t> values, int elem_type) {
  const std::string name = fresh_name(base);
  g_.add_int_constant(name, std::move(shape), std::move(values), elem_type);
  return name;
}

Node& Builder::add(const std::string& op, std::vector<std::string> inputs, std::vector<std::string> outputs,
                   const std::string& base) {
  Node n;
  n.name = fresh_name(base);
  n.op_type = op;
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  n.fused_nodes = {origin_.empty() ? n.name : origin_};
  for (const auto& o : n.outputs)
    if (!o.empty() && !g_.tensors.count(o)) g_.tensors[o].name = o;
  g_.nodes.push_back(std::move(n));
  return g_.nodes.back();
}

std::string Builder::fresh_value(int tensor, const AxisOrder& order, const std::string& suffix) {
  const TensorInfo& t = info(tensor);
  const std::string name = fresh_name(t.name + suffix);
  Tensor& v = g_.tensors[name];
  v.name = name;
  // Quantised values are computed in float (int16 ones too: the NPU holds them as fp16 or int8).
  const bool quantised = !t.scales.empty() && !t.constant;
  v.elem_type = quantised || t.elem_type < 0 ? kFloat : t.elem_type;
  v.shape = transpose_shape(t.shape, order);
  v.shape_known = true;
  return name;
}

AxisOrder Builder::order_of(int tensor) const {
  const auto found = values_.find(tensor);
  if (found == values_.end()) return {};
  return found->second.order;
}

std::string Builder::layout_constant(int tensor, const AxisOrder& order, int rank) {
  const TensorInfo& t = info(tensor);
  std::vector<std::int64_t> shape(static_cast<std::size_t>(rank) - t.shape.size(), 1);
  shape.insert(shape.end(), t.shape.begin(), t.shape.end());
  const std::string base = t.name + (order.empty() ? "" : "/nchw");
  const bool integer = t.scales.empty() && !t.ints.empty() && t.elem_type != kFloat && t.elem_type != kFloat16;
  if (integer)
    return int_constant(base, transpose_shape(shape, order), transpose_data(t.ints, shape, order), t.elem_type);
  return float_constant(base, transpose_shape(shape, order), transpose_data(constant_floats(tensor), shape, order));
}

std::string Builder::value(int tensor, const AxisOrder& order_in, int rank) {
  const TensorInfo& t = info(tensor);
  const int own_rank = static_cast<int>(t.shape.size());
  if (rank < 0) rank = own_rank;
  if (rank < own_rank)
    throw CompileError(g_.source + ": " + origin_ + ": tensor '" + t.name + "' has rank " + std::to_string(own_rank) +
                       ", more than the " + std::to_string(rank) + " the op needs");
  AxisOrder order = order_in == identity_order(order_in.size()) ? AxisOrder{} : order_in;
  const std::string key = std::to_string(tensor) + "|" + std::to_string(rank) + "|" + order_key(order);
  if (const auto made = made_.find(key); made != made_.end()) return made->second;
  std::string out;
  if (t.constant && !defined(tensor)) {
    out = layout_constant(tensor, order, rank);
  } else {
    const auto found = values_.find(tensor);
    if (found == values_.end())
      throw CompileError(g_.source + ": " + origin_ + ": tensor '" + t.name +
                         "' is read before any operator writes it (the operators are not in execution order)");
    std::string x = found->second.name;
    AxisOrder held = normalised(found->second.order, t.shape.size());
    if (rank > own_rank) {  // broadcasting: size-1 axes in front, in TFLite's order
      if (held != identity_order(held.size())) {
        x = value(tensor);
        held = identity_order(held.size());
      }
      std::vector<std::int64_t> shape(static_cast<std::size_t>(rank - own_rank), 1);
      shape.insert(shape.end(), t.shape.begin(), t.shape.end());
      const std::string r = fresh_name(t.name + "/rank" + std::to_string(rank));
      add("Reshape", {x, int_constant(r + "_shape", {rank}, shape)}, {r}, r);
      g_.tensors[r].shape = shape;
      g_.tensors[r].elem_type = g_.tensor(x).elem_type;
      g_.tensors[r].shape_known = true;
      x = r;
      held = identity_order(static_cast<std::size_t>(rank));
    }
    const AxisOrder want = normalised(order, static_cast<std::size_t>(rank));
    if (held == want) {
      out = x;
    } else {
      out = fresh_name(t.name + (want == identity_order(want.size()) ? "/nhwc" : "/nchw"));
      const Tensor& src = g_.tensor(x);
      const auto perm = permutation(held, want);
      add("Transpose", {x}, {out}, out).set_ints("perm", perm);
      Tensor& v = g_.tensors[out];
      v.elem_type = src.elem_type;
      v.shape_known = src.shape_known;
      for (auto p : perm) v.shape.push_back(src.shape[static_cast<std::size_t>(p)]);
    }
  }
  made_[key] = out;
  return out;
}

void Builder::define(int tensor, const std::string& ir_value, const AxisOrder& order_in) {
  const TensorInfo& t = info(tensor);
  const AxisOrder order = order_in == identity_order(order_in.size()) ? AxisOrder{} : order_in;
  std::string v = ir_value;
  if (t.quantized_activation()) {
    const std::string q = fresh_name(t.name + "/q");
    const std::string scale = float_constant(t.name + "/scale", {}, {t.scales.front()});
    const std::string zp = int_constant(t.name + "/zero_point", {}, {t.zero_points.empty() ? 0 : t.zero_points.front()},
                                        t.elem_type);
    add("QuantizeLinear", {ir_value, scale, zp}, {q}, q);
    const std::string dq = fresh_name(t.name + "/dq");
    add("DequantizeLinear", {q, scale, zp}, {dq}, dq);
    const auto shape = transpose_shape(t.shape, order);
    g_.tensors[q].elem_type = t.elem_type;
    g_.tensors[dq].elem_type = kFloat;
    for (const auto& name : {q, dq}) {
      g_.tensors[name].shape = shape;
      g_.tensors[name].shape_known = true;
    }
    v = dq;
  } else if (!t.constant && t.elem_type == kInt16 && t.scales.size() == 1) {
    // A 16x8 model's int16 activation, computed in float: the NPU holds it in int8 over the range
    // the file's int16 grid covers (as a QDQ pair fixes one: qdq_import.h), not a calibrated one.
    const double s = t.scales.front(), zp = t.zero_points.empty() ? 0.0 : static_cast<double>(t.zero_points.front());
    g_.qdq_ranges.try_emplace(v, static_cast<float>(s * (-32768.0 - zp)), static_cast<float>(s * (32767.0 - zp)));
  }
  values_[tensor] = {v, order};
}

void Builder::define_raw(int tensor, const std::string& ir_value) { values_[tensor] = {ir_value, {}}; }

std::string Builder::activation(const std::string& x, int fused, int tensor, const AxisOrder& order,
                                const std::string& where) {
  // ActivationFunctionType: NONE 0, RELU 1, RELU_N1_TO_1 2, RELU6 3, TANH 4, SIGN_BIT 5.
  if (fused == 0) return x;
  const std::string out = fresh_value(tensor, order, "/act");
  switch (fused) {
    case 1:
      add("Relu", {x}, {out}, out);
      break;
    case 2:
    case 3: {
      const float lo = fused == 2 ? -1.0f : 0.0f, hi = fused == 2 ? 1.0f : 6.0f;
      add("Clip", {x, float_constant(out + "_min", {}, {lo}), float_constant(out + "_max", {}, {hi})}, {out}, out);
      break;
    }
    case 4:
      add("Tanh", {x}, {out}, out);
      break;
    default:
      throw CompileError(where + ": fused activation " + std::to_string(fused) + " (SIGN_BIT or unknown) is not supported");
  }
  return out;
}

}  // namespace npu::compiler::tflite_import
