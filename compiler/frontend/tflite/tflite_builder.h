// The state of one TFLite import: the decoded tensors of the subgraph, the IR value that stands
// for each and the axis order it holds them in, and the helpers the op translations
// (tflite_ops.cpp) build nodes with. See tflite_import.h for the conventions.
#pragma once
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "compiler/core/graph.h"

namespace npu::compiler::tflite_import {

// IR axis j holds TFLite axis order[j]; empty: TFLite's own order.
using AxisOrder = std::vector<int>;
AxisOrder identity_order(std::size_t rank);
const AxisOrder& nchw_order();  // {0, 3, 1, 2}: an NHWC tensor as NCHW

// One TFLite tensor, its data decoded (little-endian, sparse ones densified, FP16 widened).
struct TensorInfo {
  std::string name;
  int elem_type = kFloat;  // ONNX element type; -1 for a resource or variant handle
  std::vector<std::int64_t> shape;
  bool constant = false;
  bool variable = false;  // is_variable: an LSTM/RNN state, zero at the start of a call
  std::vector<float> floats;
  std::vector<std::int64_t> ints;
  std::vector<float> scales;  // quantisation: one per tensor, or one per index of quant_axis
  std::vector<std::int64_t> zero_points;
  int quant_axis = 0;
  // An int8/uint8 value with a scale: the QDQ pair fixes its range.
  bool quantized_activation() const { return !constant && !scales.empty() && (elem_type == kInt8 || elem_type == kUint8); }
};

// A constant's values as floats: float data as it is, integers scaled by their (per-tensor or
// per-axis) quantisation, or as they are without one.
std::vector<float> dequantized(const TensorInfo& tensor);

class Builder {
 public:
  Builder(Graph& graph, std::vector<TensorInfo> tensors) : g_(graph), tensors_(std::move(tensors)) {}

  Graph& graph() { return g_; }
  const TensorInfo& info(int tensor) const;
  int rank(int tensor) const { return static_cast<int>(info(tensor).shape.size()); }
  bool is_constant(int tensor) const { return info(tensor).constant; }
  // A constant's values as floats (dequantised) or integers; CompileError unless constant.
  std::vector<float> constant_floats(int tensor) const;
  std::vector<std::int64_t> constant_ints(int tensor) const;

  // The float value of `tensor` with its axes in `order` (empty: TFLite's order) after first
  // prepending size-1 axes up to `rank` (-1: its own), as broadcasting aligns trailing axes.
  // Constants are laid out here; other values get a Transpose/Reshape, made once per order.
  std::string value(int tensor, const AxisOrder& order = {}, int rank = -1);
  // The order `tensor`'s IR value holds now.
  AxisOrder order_of(int tensor) const;
  bool defined(int tensor) const { return values_.count(tensor) != 0; }
  // `tensor` is now `ir_value` (float, in `order`); a quantised tensor gets its QDQ pair.
  void define(int tensor, const std::string& ir_value, const AxisOrder& order = {});
  // An integer tensor (indices, shapes) passed through as it is.
  void define_raw(int tensor, const std::string& ir_value);

  // A fresh IR value for `tensor`'s result in `order`, with its shape and element type set.
  std::string fresh_value(int tensor, const AxisOrder& order = {}, const std::string& suffix = "");
  std::string fresh_name(const std::string& base);
  std::string float_constant(const std::string& base, std::vector<std::int64_t> shape, std::vector<float> values);
  std::string int_constant(const std::string& base, std::vector<std::int64_t> shape, std::vector<std::int64_t> values,
                           int elem_type = kInt64);
  // Appends a node named after `base`; returns it for attributes.
  Node& add(const std::string& op, std::vector<std::string> inputs, std::vector<std::string> outputs, const std::string& base);
  // x -> the fused activation (ActivationFunctionType) -> a value; x itself for NONE.
  std::string activation(const std::string& x, int fused, int tensor, const AxisOrder& order, const std::string& where);

  void set_origin(const std::string& node_base) { origin_ = node_base; }

 private:
  std::string layout_constant(int tensor, const AxisOrder& order, int rank);
  Graph& g_;
  std::vector<TensorInfo> tensors_;
  struct Defined {
    std::string name;
    AxisOrder order;
  };
  std::map<int, Defined> values_;
  std::map<std::string, std::string> made_;  // "tensor|rank|order" -> IR value
  std::set<std::string> used_;
  std::string origin_;  // the operator being translated: helper nodes are named after it
};

// `data` (row-major over `shape`) with its axes in `order`.
std::vector<std::int64_t> transpose_shape(const std::vector<std::int64_t>& shape, const AxisOrder& order);
template <typename T>
std::vector<T> transpose_data(const std::vector<T>& data, const std::vector<std::int64_t>& shape, const AxisOrder& order);

}  // namespace npu::compiler::tflite_import
