#include "compiler/reference/tensor_kernels.h"

#include <algorithm>
#include <stdexcept>

namespace npu::compiler {

std::int64_t shape_elements(const Shape& s) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

std::vector<std::int64_t> row_strides(const Shape& s) {
  std::vector<std::int64_t> st(s.size(), 1);
  for (int d = static_cast<int>(s.size()) - 2; d >= 0; --d) st[d] = st[d + 1] * s[d + 1];
  return st;
}

std::vector<std::int64_t> broadcast_strides(const Shape& s, const Shape& out) {
  std::vector<std::int64_t> st(out.size(), 0);
  std::int64_t stride = 1;
  for (std::size_t i = 0; i < s.size() && i < out.size(); ++i) {
    std::size_t si = s.size() - 1 - i, oi = out.size() - 1 - i;
    st[oi] = s[si] == 1 && out[oi] != 1 ? 0 : stride;
    stride *= s[si];
  }
  return st;
}

std::int64_t normalize_axis_checked(std::int64_t axis, std::int64_t rank) {
  if (axis < -rank || axis >= std::max<std::int64_t>(rank, 1))
    throw std::invalid_argument("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

namespace {

// Copies a strided view of x (per-dim start and step, output extents) into a new tensor.
template <typename T>
TensorData<T> strided_view(const TensorData<T>& x, const Shape& out, const std::vector<std::int64_t>& start,
                           const std::vector<std::int64_t>& step) {
  TensorData<T> y;
  y.shape = out;
  y.data.resize(static_cast<std::size_t>(shape_elements(out)));
  auto xs = row_strides(x.shape);
  std::int64_t base = 0;
  std::vector<std::int64_t> st(out.size());
  for (std::size_t d = 0; d < out.size(); ++d) {
    base += start[d] * xs[d];
    st[d] = step[d] * xs[d];
  }
  const std::int64_t inner = st.empty() ? 0 : st.back();
  for_each_broadcast(out, {st}, [&](std::int64_t o, const std::vector<std::int64_t>& off, std::int64_t i) {
    y.data[o] = x.data[base + off[0] + i * inner];
  });
  return y;
}

}  // namespace

template <typename T>
TensorData<T> transpose(const TensorData<T>& x, std::vector<std::int64_t> perm) {
  const std::size_t r = x.shape.size();
  if (perm.empty())
    for (std::size_t d = 0; d < r; ++d) perm.push_back(static_cast<std::int64_t>(r - 1 - d));
  if (perm.size() != r) throw std::invalid_argument("perm has " + std::to_string(perm.size()) + " entries for rank " + std::to_string(r));
  auto xs = row_strides(x.shape);
  Shape out(r);
  std::vector<std::int64_t> st(r);
  std::vector<bool> seen(r, false);
  for (std::size_t d = 0; d < r; ++d) {
    auto p = perm[d];
    if (p < 0 || p >= static_cast<std::int64_t>(r) || seen[p]) throw std::invalid_argument("perm is not a permutation");
    seen[p] = true;
    out[d] = x.shape[p];
    st[d] = xs[p];
  }
  TensorData<T> y;
  y.shape = out;
  y.data.resize(x.data.size());
  const std::int64_t inner = st.empty() ? 0 : st.back();
  for_each_broadcast(out, {st}, [&](std::int64_t o, const std::vector<std::int64_t>& off, std::int64_t i) {
    y.data[o] = x.data[off[0] + i * inner];
  });
  return y;
}

SlicePlan plan_slice(const Shape& in, const std::vector<std::int64_t>& starts, const std::vector<std::int64_t>& ends,
                     const std::vector<std::int64_t>& axes_in, const std::vector<std::int64_t>& steps) {
  const auto r = static_cast<std::int64_t>(in.size());
  if (starts.size() != ends.size()) throw std::invalid_argument("starts and ends differ in length");
  std::vector<std::int64_t> axes = axes_in;
  if (axes.empty())
    for (std::size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
  if (axes.size() != starts.size() || (!steps.empty() && steps.size() != starts.size()))
    throw std::invalid_argument("starts, ends, axes and steps differ in length");
  SlicePlan p;
  p.out = in;
  p.start.assign(static_cast<std::size_t>(r), 0);
  p.step.assign(static_cast<std::size_t>(r), 1);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const std::int64_t a = normalize_axis_checked(axes[i], r), dim = in[a];
    const std::int64_t s = steps.empty() ? 1 : steps[i];
    if (s == 0) throw std::invalid_argument("slice step 0");
    std::int64_t b = starts[i], e = ends[i];
    if (b < 0) b += dim;
    if (e < 0) e += dim;
    if (dim == 0) {
      p.out[a] = 0;
    } else if (s > 0) {
      b = std::clamp<std::int64_t>(b, 0, dim);
      e = std::clamp<std::int64_t>(e, 0, dim);
      p.out[a] = e > b ? (e - b + s - 1) / s : 0;
    } else {
      b = std::clamp<std::int64_t>(b, 0, dim - 1);
      e = std::clamp<std::int64_t>(e, -1, dim - 1);
      p.out[a] = b > e ? (b - e + (-s) - 1) / (-s) : 0;
    }
    p.start[a] = b;
    p.step[a] = s;
  }
  return p;
}

template <typename T>
TensorData<T> slice(const TensorData<T>& x, const std::vector<std::int64_t>& starts, const std::vector<std::int64_t>& ends,
                    const std::vector<std::int64_t>& axes, const std::vector<std::int64_t>& steps) {
  SlicePlan p = plan_slice(x.shape, starts, ends, axes, steps);
  return strided_view(x, p.out, p.start, p.step);
}

template <typename T>
TensorData<T> concat(const std::vector<const TensorData<T>*>& inputs, std::int64_t axis) {
  if (inputs.empty()) throw std::invalid_argument("no inputs");
  const Shape& first = inputs[0]->shape;
  const auto r = static_cast<std::int64_t>(first.size());
  axis = normalize_axis_checked(axis, r);
  TensorData<T> y;
  y.shape = first;
  y.shape[axis] = 0;
  for (const auto* in : inputs) {
    if (static_cast<std::int64_t>(in->shape.size()) != r) throw std::invalid_argument("inputs have different ranks");
    for (std::int64_t d = 0; d < r; ++d)
      if (d != axis && in->shape[d] != first[d]) throw std::invalid_argument("inputs differ in dim " + std::to_string(d));
    y.shape[axis] += in->shape[axis];
  }
  std::int64_t outer = 1;
  for (std::int64_t d = 0; d < axis; ++d) outer *= first[d];
  y.data.reserve(static_cast<std::size_t>(shape_elements(y.shape)));
  for (std::int64_t o = 0; o < outer; ++o)
    for (const auto* in : inputs) {
      const std::int64_t chunk = outer ? static_cast<std::int64_t>(in->data.size()) / outer : 0;
      y.data.insert(y.data.end(), in->data.begin() + o * chunk, in->data.begin() + (o + 1) * chunk);
    }
  return y;
}

template <typename T>
std::vector<TensorData<T>> split(const TensorData<T>& x, std::int64_t axis, std::vector<std::int64_t> sizes,
                                 std::size_t parts) {
  const auto r = static_cast<std::int64_t>(x.shape.size());
  axis = normalize_axis_checked(axis, r);
  const std::int64_t dim = x.shape[axis];
  if (sizes.empty()) {
    if (parts == 0) throw std::invalid_argument("no outputs");
    const std::int64_t each = (dim + static_cast<std::int64_t>(parts) - 1) / static_cast<std::int64_t>(parts);
    for (std::size_t p = 0; p < parts; ++p)
      sizes.push_back(std::max<std::int64_t>(0, std::min(each, dim - each * static_cast<std::int64_t>(p))));
  }
  std::int64_t total = 0;
  for (auto s : sizes) {
    if (s < 0) throw std::invalid_argument("negative split size");
    total += s;
  }
  if (total != dim)
    throw std::invalid_argument("split sizes add up to " + std::to_string(total) + ", the axis has " + std::to_string(dim));
  std::vector<TensorData<T>> out;
  std::int64_t at = 0;
  for (auto s : sizes) {
    out.push_back(slice(x, {at}, {at + s}, {axis}, {}));
    at += s;
  }
  return out;
}

template <typename T>
TensorData<T> gather(const TensorData<T>& x, const IntTensor& indices, std::int64_t axis) {
  const auto r = static_cast<std::int64_t>(x.shape.size());
  axis = normalize_axis_checked(axis, r);
  std::int64_t outer = 1, inner = 1;
  for (std::int64_t d = 0; d < axis; ++d) outer *= x.shape[d];
  for (std::int64_t d = axis + 1; d < r; ++d) inner *= x.shape[d];
  const std::int64_t dim = x.shape[axis];
  TensorData<T> y;
  y.shape.assign(x.shape.begin(), x.shape.begin() + axis);
  y.shape.insert(y.shape.end(), indices.shape.begin(), indices.shape.end());
  y.shape.insert(y.shape.end(), x.shape.begin() + axis + 1, x.shape.end());
  y.data.reserve(static_cast<std::size_t>(shape_elements(y.shape)));
  for (std::int64_t o = 0; o < outer; ++o)
    for (auto i : indices.data) {
      if (i < -dim || i >= dim) throw std::invalid_argument("index " + std::to_string(i) + " is out of range for dim " + std::to_string(dim));
      if (i < 0) i += dim;
      auto start = x.data.begin() + (o * dim + i) * inner;
      y.data.insert(y.data.end(), start, start + inner);
    }
  return y;
}

template <typename T>
TensorData<T> gather_elements(const TensorData<T>& x, const IntTensor& indices, std::int64_t axis) {
  const auto r = static_cast<std::int64_t>(x.shape.size());
  axis = normalize_axis_checked(axis, r);
  if (static_cast<std::int64_t>(indices.shape.size()) != r) throw std::invalid_argument("indices rank differs from data rank");
  TensorData<T> y;
  y.shape = indices.shape;
  y.data.resize(indices.data.size());
  auto xs = row_strides(x.shape);
  std::vector<std::int64_t> st(r);
  for (std::int64_t d = 0; d < r; ++d) st[d] = d == axis ? 0 : xs[d];
  const std::int64_t inner = st.empty() ? 0 : st.back();
  for_each_broadcast(indices.shape, {st}, [&](std::int64_t o, const std::vector<std::int64_t>& off, std::int64_t i) {
    std::int64_t k = indices.data[o];
    if (k < 0) k += x.shape[axis];
    if (k < 0 || k >= x.shape[axis]) throw std::invalid_argument("index out of range");
    y.data[o] = x.data[off[0] + i * inner + k * xs[axis]];
  });
  return y;
}

template <typename T>
TensorData<T> expand(const TensorData<T>& x, const Shape& shape) {
  const std::size_t rank = std::max(x.shape.size(), shape.size());
  Shape out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    std::int64_t a = i < rank - x.shape.size() ? 1 : x.shape[i - (rank - x.shape.size())];
    std::int64_t b = i < rank - shape.size() ? 1 : shape[i - (rank - shape.size())];
    if (a != b && a != 1 && b != 1) throw std::invalid_argument("shape does not broadcast");
    out[i] = a == 1 ? b : a;
  }
  TensorData<T> y;
  y.shape = out;
  y.data.resize(static_cast<std::size_t>(shape_elements(out)));
  auto st = broadcast_strides(x.shape, out);
  const std::int64_t inner = st.empty() ? 0 : st.back();
  for_each_broadcast(out, {st}, [&](std::int64_t o, const std::vector<std::int64_t>& off, std::int64_t i) {
    y.data[o] = x.data[off[0] + i * inner];
  });
  return y;
}

template <typename T>
TensorData<T> tile(const TensorData<T>& x, const std::vector<std::int64_t>& repeats) {
  const std::size_t r = x.shape.size();
  if (repeats.size() != r) throw std::invalid_argument("repeats has " + std::to_string(repeats.size()) + " entries for rank " + std::to_string(r));
  Shape out(r);
  for (std::size_t d = 0; d < r; ++d) {
    if (repeats[d] < 0) throw std::invalid_argument("negative repeat");
    out[d] = x.shape[d] * repeats[d];
  }
  TensorData<T> y;
  y.shape = out;
  y.data.resize(static_cast<std::size_t>(shape_elements(out)));
  auto xs = row_strides(x.shape);
  std::vector<std::int64_t> idx(r, 0);
  for (std::size_t o = 0; o < y.data.size(); ++o) {
    std::int64_t src = 0;
    for (std::size_t d = 0; d < r; ++d) src += (idx[d] % x.shape[d]) * xs[d];
    y.data[o] = x.data[src];
    for (int d = static_cast<int>(r) - 1; d >= 0; --d) {
      if (++idx[d] < out[d]) break;
      idx[d] = 0;
    }
  }
  return y;
}

template <typename T>
TensorData<T> where(const IntTensor& c, const TensorData<T>& x, const TensorData<T>& y) {
  const std::size_t rank = std::max({c.shape.size(), x.shape.size(), y.shape.size()});
  Shape out(rank, 1);
  for (const Shape* s : {&c.shape, &x.shape, &y.shape})
    for (std::size_t i = 0; i < s->size(); ++i) {
      std::size_t oi = rank - s->size() + i;
      std::int64_t d = (*s)[i];
      if (d != 1 && out[oi] != 1 && d != out[oi]) throw std::invalid_argument("operands do not broadcast");
      if (d != 1) out[oi] = d;
    }
  TensorData<T> r;
  r.shape = out;
  r.data.resize(static_cast<std::size_t>(shape_elements(out)));
  auto sc = broadcast_strides(c.shape, out), sx = broadcast_strides(x.shape, out), sy = broadcast_strides(y.shape, out);
  const std::int64_t ic = sc.empty() ? 0 : sc.back(), ix = sx.empty() ? 0 : sx.back(), iy = sy.empty() ? 0 : sy.back();
  for_each_broadcast(out, {sc, sx, sy}, [&](std::int64_t o, const std::vector<std::int64_t>& off, std::int64_t i) {
    r.data[o] = c.data[off[0] + i * ic] ? x.data[off[1] + i * ix] : y.data[off[2] + i * iy];
  });
  return r;
}

template <typename T>
TensorData<T> scatter_nd(const TensorData<T>& data, const IntTensor& indices, const TensorData<T>& updates,
                         const std::string& reduction) {
  TensorData<T> y = data;
  if (indices.shape.empty()) throw std::invalid_argument("indices is a scalar");
  const std::int64_t k = indices.shape.back();
  if (k > static_cast<std::int64_t>(data.shape.size())) throw std::invalid_argument("index tuples longer than the data rank");
  const std::int64_t tuples = shape_elements(indices.shape) / std::max<std::int64_t>(k, 1);
  auto ds = row_strides(data.shape);
  std::int64_t slice_len = 1;
  for (std::size_t d = static_cast<std::size_t>(k); d < data.shape.size(); ++d) slice_len *= data.shape[d];
  if (static_cast<std::int64_t>(updates.data.size()) != tuples * slice_len) throw std::invalid_argument("updates do not match indices");
  for (std::int64_t t = 0; t < tuples; ++t) {
    std::int64_t base = 0;
    for (std::int64_t j = 0; j < k; ++j) {
      std::int64_t i = indices.data[t * k + j];
      const std::int64_t dim = data.shape[j];
      if (i < 0) i += dim;
      if (i < 0 || i >= dim) throw std::invalid_argument("index out of range");
      base += i * ds[j];
    }
    for (std::int64_t e = 0; e < slice_len; ++e) {
      T& dst = y.data[base + e];
      const T u = updates.data[t * slice_len + e];
      if (reduction == "add") dst = dst + u;
      else if (reduction == "mul") dst = dst * u;
      else if (reduction == "max") dst = std::max(dst, u);
      else if (reduction == "min") dst = std::min(dst, u);
      else dst = u;
    }
  }
  return y;
}

template <typename T>
TensorData<T> pad(const TensorData<T>& x, const std::vector<std::int64_t>& pads, const std::string& mode, T value) {
  const std::size_t r = x.shape.size();
  if (pads.size() != 2 * r) throw std::invalid_argument("pads has " + std::to_string(pads.size()) + " entries for rank " + std::to_string(r));
  Shape out(r);
  for (std::size_t d = 0; d < r; ++d) {
    out[d] = x.shape[d] + pads[d] + pads[d + r];
    if (out[d] < 0) throw std::invalid_argument("pads crop more than the dim");
  }
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap")
    throw std::invalid_argument("pad mode '" + mode + "' is not supported");
  TensorData<T> y;
  y.shape = out;
  y.data.resize(static_cast<std::size_t>(shape_elements(out)));
  auto xs = row_strides(x.shape);
  std::vector<std::int64_t> idx(r, 0);
  for (std::size_t o = 0; o < y.data.size(); ++o) {
    std::int64_t src = 0;
    bool outside = false;
    for (std::size_t d = 0; d < r && !outside; ++d) {
      std::int64_t i = idx[d] - pads[d];
      const std::int64_t n = x.shape[d];
      if (i < 0 || i >= n) {
        if (mode == "constant" || n == 0) {
          outside = true;
          break;
        }
        if (mode == "edge") i = std::clamp<std::int64_t>(i, 0, n - 1);
        else if (mode == "wrap") i = ((i % n) + n) % n;
        else {  // reflect (without repeating the edge)
          const std::int64_t period = 2 * (n - 1);
          if (period == 0) i = 0;
          else {
            i = ((i % period) + period) % period;
            if (i >= n) i = period - i;
          }
        }
      }
      src += i * xs[d];
    }
    y.data[o] = outside ? value : x.data[src];
    for (int d = static_cast<int>(r) - 1; d >= 0; --d) {
      if (++idx[d] < out[d]) break;
      idx[d] = 0;
    }
  }
  return y;
}

#define NPUSIM_TENSOR_KERNELS(T)                                                                                          \
  template TensorData<T> transpose(const TensorData<T>&, std::vector<std::int64_t>);                                      \
  template TensorData<T> slice(const TensorData<T>&, const std::vector<std::int64_t>&, const std::vector<std::int64_t>&, \
                               const std::vector<std::int64_t>&, const std::vector<std::int64_t>&);                      \
  template TensorData<T> concat(const std::vector<const TensorData<T>*>&, std::int64_t);                                 \
  template std::vector<TensorData<T>> split(const TensorData<T>&, std::int64_t, std::vector<std::int64_t>, std::size_t); \
  template TensorData<T> gather(const TensorData<T>&, const IntTensor&, std::int64_t);                                   \
  template TensorData<T> gather_elements(const TensorData<T>&, const IntTensor&, std::int64_t);                          \
  template TensorData<T> expand(const TensorData<T>&, const Shape&);                                                     \
  template TensorData<T> tile(const TensorData<T>&, const std::vector<std::int64_t>&);                                   \
  template TensorData<T> where(const IntTensor&, const TensorData<T>&, const TensorData<T>&);                            \
  template TensorData<T> scatter_nd(const TensorData<T>&, const IntTensor&, const TensorData<T>&, const std::string&);  \
  template TensorData<T> pad(const TensorData<T>&, const std::vector<std::int64_t>&, const std::string&, T);
NPUSIM_TENSOR_KERNELS(float)
NPUSIM_TENSOR_KERNELS(std::int64_t)
#undef NPUSIM_TENSOR_KERNELS

}  // namespace npu::compiler
