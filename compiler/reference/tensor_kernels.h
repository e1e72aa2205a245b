// Element-type-generic tensor kernels: the data-movement and broadcasting ops that both the FP32
// evaluator (float) and exact constant folding of shape arithmetic (int64) run. One
// implementation of each index computation, instantiated for float and std::int64_t.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/core/tensor_data.h"

namespace npu::compiler {

std::int64_t shape_elements(const Shape& s);
// Row-major strides of `s`.
std::vector<std::int64_t> row_strides(const Shape& s);
// Strides of `s` read as if broadcast to `out` (0 along broadcast dims); s aligns to out's tail.
std::vector<std::int64_t> broadcast_strides(const Shape& s, const Shape& out);
// A negative axis counts from the end; throws std::out_of_range outside [-rank, rank).
std::int64_t normalize_axis_checked(std::int64_t axis, std::int64_t rank);

// Calls visit(out_index, in_offsets...) for every element of `out`, the offsets computed from
// per-operand strides (as from broadcast_strides). The innermost dim runs in a tight loop.
template <typename Visit>
void for_each_broadcast(const Shape& out, const std::vector<std::vector<std::int64_t>>& strides, Visit&& visit) {
  const std::size_t r = out.size(), k = strides.size();
  const std::int64_t n = shape_elements(out);
  if (n == 0) return;
  std::vector<std::int64_t> idx(r, 0), off(k, 0);
  const std::int64_t inner = r ? out[r - 1] : 1;
  std::int64_t o = 0;
  while (o < n) {
    for (std::int64_t i = 0; i < inner; ++i, ++o) {
      visit(o, off, i);
    }
    // advance the outer dims
    int d = static_cast<int>(r) - 2;
    for (; d >= 0; --d) {
      for (std::size_t j = 0; j < k; ++j) off[j] += strides[j][d];
      if (++idx[d] < out[d]) break;
      for (std::size_t j = 0; j < k; ++j) off[j] -= strides[j][d] * out[d];
      idx[d] = 0;
    }
    if (d < 0) break;
  }
}

// Numpy-style elementwise op over two broadcast operands: out[i] = f(a[...], b[...]).
template <typename A, typename B, typename R, typename F>
TensorData<R> broadcast_binary(const TensorData<A>& a, const TensorData<B>& b, const Shape& out_shape, F&& f) {
  TensorData<R> y;
  y.shape = out_shape;
  const std::int64_t n = shape_elements(out_shape);
  y.data.resize(static_cast<std::size_t>(n));
  if (a.shape == out_shape && b.shape == out_shape) {
    for (std::int64_t i = 0; i < n; ++i) y.data[i] = f(a.data[i], b.data[i]);
    return y;
  }
  if (a.shape == out_shape && b.data.size() == 1) {
    const B bv = b.data[0];
    for (std::int64_t i = 0; i < n; ++i) y.data[i] = f(a.data[i], bv);
    return y;
  }
  if (b.shape == out_shape && a.data.size() == 1) {
    const A av = a.data[0];
    for (std::int64_t i = 0; i < n; ++i) y.data[i] = f(av, b.data[i]);
    return y;
  }
  const auto sa = broadcast_strides(a.shape, out_shape), sb = broadcast_strides(b.shape, out_shape);
  const std::int64_t ia = sa.empty() ? 0 : sa.back(), ib = sb.empty() ? 0 : sb.back();
  for_each_broadcast(out_shape, {sa, sb}, [&](std::int64_t o, const std::vector<std::int64_t>& off, std::int64_t i) {
    y.data[o] = f(a.data[off[0] + i * ia], b.data[off[1] + i * ib]);
  });
  return y;
}

// Where ONNX Slice reads: per dim the first index and step, and the output extents (starts and
// ends clamped per ONNX; INT64_MAX/MIN sentinels included).
struct SlicePlan {
  Shape out;
  std::vector<std::int64_t> start, step;
};
SlicePlan plan_slice(const Shape& in, const std::vector<std::int64_t>& starts, const std::vector<std::int64_t>& ends,
                     const std::vector<std::int64_t>& axes, const std::vector<std::int64_t>& steps);

// The ops below throw std::invalid_argument with a short reason on bad parameters; callers
// add the node's name.
template <typename T>
TensorData<T> transpose(const TensorData<T>& x, std::vector<std::int64_t> perm);
// ONNX Slice: axes empty = all leading axes, steps empty = 1; starts/ends clamped per ONNX.
template <typename T>
TensorData<T> slice(const TensorData<T>& x, const std::vector<std::int64_t>& starts, const std::vector<std::int64_t>& ends,
                    const std::vector<std::int64_t>& axes, const std::vector<std::int64_t>& steps);
template <typename T>
TensorData<T> concat(const std::vector<const TensorData<T>*>& inputs, std::int64_t axis);
// sizes empty: `parts` equal parts (the last smaller when the axis does not divide, opset 18).
template <typename T>
std::vector<TensorData<T>> split(const TensorData<T>& x, std::int64_t axis, std::vector<std::int64_t> sizes,
                                 std::size_t parts);
template <typename T>
TensorData<T> gather(const TensorData<T>& x, const IntTensor& indices, std::int64_t axis);
template <typename T>
TensorData<T> gather_elements(const TensorData<T>& x, const IntTensor& indices, std::int64_t axis);
// Expand: broadcast x against `shape` (the result has the broadcast of both).
template <typename T>
TensorData<T> expand(const TensorData<T>& x, const Shape& shape);
template <typename T>
TensorData<T> tile(const TensorData<T>& x, const std::vector<std::int64_t>& repeats);
template <typename T>
TensorData<T> where(const IntTensor& condition, const TensorData<T>& x, const TensorData<T>& y);
// reduction: "none", "add", "mul", "max", "min"
template <typename T>
TensorData<T> scatter_nd(const TensorData<T>& data, const IntTensor& indices, const TensorData<T>& updates,
                         const std::string& reduction);
// ONNX Pad: pads = [begin_0.., end_0..] (negative crops); mode constant | reflect | edge | wrap.
template <typename T>
TensorData<T> pad(const TensorData<T>& x, const std::vector<std::int64_t>& pads, const std::string& mode, T value);
// Reduce along `axes` (normalised, sorted); keepdims keeps them as 1. `combine(acc, v)` with
// `init`; returns the raw accumulations (callers finish means etc.).
template <typename T, typename Acc, typename F>
TensorData<Acc> reduce(const TensorData<T>& x, const std::vector<std::int64_t>& axes, bool keepdims, Acc init, F&& combine) {
  const std::size_t r = x.shape.size();
  std::vector<bool> reduced(r, false);
  for (auto a : axes) reduced[static_cast<std::size_t>(a)] = true;
  Shape out_full(r);
  for (std::size_t d = 0; d < r; ++d) out_full[d] = reduced[d] ? 1 : x.shape[d];
  TensorData<Acc> y;
  y.data.assign(static_cast<std::size_t>(shape_elements(out_full)), init);
  // Walk x in order; the output offset uses strides that are 0 along reduced axes.
  auto out_strides = row_strides(out_full);
  for (std::size_t d = 0; d < r; ++d)
    if (reduced[d]) out_strides[d] = 0;
  for_each_broadcast(x.shape, {row_strides(x.shape), out_strides},
                     [&](std::int64_t, const std::vector<std::int64_t>& off, std::int64_t i) {
                       const std::int64_t xo = off[0] + i, yo = off[1] + i * (r && !reduced[r - 1] ? 1 : 0);
                       y.data[yo] = combine(y.data[yo], x.data[xo]);
                     });
  for (std::size_t d = 0; d < r; ++d)
    if (!reduced[d] || keepdims) y.shape.push_back(out_full[d]);
  return y;
}

}  // namespace npu::compiler
