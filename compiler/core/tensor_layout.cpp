#include "compiler/core/tensor_layout.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>

namespace npu::compiler {

AxisOrder identity_order(std::size_t rank) {
  AxisOrder o(rank);
  std::iota(o.begin(), o.end(), 0);
  return o;
}

AxisOrder nhwc_order() { return {0, 2, 3, 1}; }

AxisOrder default_order(std::size_t rank) { return rank == 4 ? nhwc_order() : identity_order(rank); }

AxisOrder order_or_identity(const AxisOrder& order, std::size_t rank) {
  return order.size() == rank ? order : identity_order(rank);
}

std::vector<std::int64_t> physical_shape(const std::vector<std::int64_t>& shape, const AxisOrder& order) {
  std::vector<std::int64_t> p;
  for (int a : order_or_identity(order, shape.size())) p.push_back(shape[static_cast<std::size_t>(a)]);
  return p;
}

std::vector<std::int64_t> logical_strides(const std::vector<std::int64_t>& shape, const AxisOrder& order) {
  const AxisOrder o = order_or_identity(order, shape.size());
  std::vector<std::int64_t> strides(shape.size(), 1);
  std::int64_t s = 1;
  for (std::size_t i = o.size(); i-- > 0;) {
    strides[static_cast<std::size_t>(o[i])] = s;
    s *= shape[static_cast<std::size_t>(o[i])];
  }
  return strides;
}

namespace {

AxisOrder without_unit_axes(const std::vector<std::int64_t>& shape, const AxisOrder& order) {
  AxisOrder r;
  for (int a : order_or_identity(order, shape.size()))
    if (shape[static_cast<std::size_t>(a)] != 1) r.push_back(a);
  return r;
}

}  // namespace

bool same_bytes(const std::vector<std::int64_t>& shape, const AxisOrder& a, const AxisOrder& b) {
  return without_unit_axes(shape, a) == without_unit_axes(shape, b);
}

std::string layout_name(std::size_t rank, const AxisOrder& order) {
  if (rank == 4 && order == nhwc_order()) return "NHWC";
  if (order == identity_order(rank)) return rank == 2 ? "NC" : "ND";
  std::string name = "ND[";
  for (std::size_t i = 0; i < order.size(); ++i) name += (i ? "," : "") + std::to_string(order[i]);
  return name + "]";
}

AxisOrder transposed_order(const AxisOrder& in, const std::vector<std::int64_t>& perm) {
  // Output axis j is input axis perm[j]; memory keeps the input's order of input axes.
  std::vector<int> inverse(perm.size());
  for (std::size_t j = 0; j < perm.size(); ++j) inverse[static_cast<std::size_t>(perm[j])] = static_cast<int>(j);
  AxisOrder out;
  for (int a : order_or_identity(in, perm.size())) out.push_back(inverse[static_cast<std::size_t>(a)]);
  return out;
}

std::optional<AxisOrder> reshaped_order(const std::vector<std::int64_t>& in_shape, const AxisOrder& in,
                                        const std::vector<std::int64_t>& out_shape) {
  std::vector<int> ia, oa;  // axes of size > 1
  for (std::size_t i = 0; i < in_shape.size(); ++i)
    if (in_shape[i] != 1) ia.push_back(static_cast<int>(i));
  for (std::size_t j = 0; j < out_shape.size(); ++j)
    if (out_shape[j] != 1) oa.push_back(static_cast<int>(j));
  // Groups of consecutive input axes whose product equals that of consecutive output axes.
  std::vector<int> group_of_in(in_shape.size(), -1);
  std::vector<std::vector<int>> group_out;
  std::size_t i = 0, j = 0;
  while (i < ia.size() || j < oa.size()) {
    if (i >= ia.size() || j >= oa.size()) return std::nullopt;
    std::int64_t pi = in_shape[static_cast<std::size_t>(ia[i])], pj = out_shape[static_cast<std::size_t>(oa[j])];
    const int g = static_cast<int>(group_out.size());
    group_out.push_back({oa[j]});
    group_of_in[static_cast<std::size_t>(ia[i])] = g;
    ++i;
    ++j;
    while (pi != pj) {
      if (pi < pj) {
        if (i >= ia.size()) return std::nullopt;
        pi *= in_shape[static_cast<std::size_t>(ia[i])];
        group_of_in[static_cast<std::size_t>(ia[i++])] = g;
      } else {
        if (j >= oa.size()) return std::nullopt;
        pj *= out_shape[static_cast<std::size_t>(oa[j])];
        group_out.back().push_back(oa[j++]);
      }
    }
  }
  // In memory, each group's input axes must be consecutive and in increasing logical order.
  AxisOrder mem = without_unit_axes(in_shape, in);
  AxisOrder out;
  for (std::size_t k = 0; k < out_shape.size(); ++k)
    if (out_shape[k] == 1) out.push_back(static_cast<int>(k));
  std::size_t p = 0;
  while (p < mem.size()) {
    const int g = group_of_in[static_cast<std::size_t>(mem[p])];
    int prev = -1;
    std::size_t q = p;
    while (q < mem.size() && group_of_in[static_cast<std::size_t>(mem[q])] == g) {
      if (mem[q] <= prev) return std::nullopt;
      prev = mem[q++];
    }
    // every axis of the group must be in this run
    std::size_t members = 0;
    for (int a : ia) members += group_of_in[static_cast<std::size_t>(a)] == g;
    if (members != q - p) return std::nullopt;
    for (int a : group_out[static_cast<std::size_t>(g)]) out.push_back(a);
    p = q;
  }
  return out;
}

AxisOrder projected_order(const AxisOrder& out_order, std::size_t out_rank, std::size_t operand_rank) {
  const int offset = static_cast<int>(out_rank) - static_cast<int>(operand_rank);
  AxisOrder r;
  for (int a : order_or_identity(out_order, out_rank))
    if (a >= offset) r.push_back(a - offset);
  return r;
}

template <typename T>
std::vector<T> to_physical(const std::vector<T>& logical, const std::vector<std::int64_t>& shape, const AxisOrder& order) {
  const auto strides = logical_strides(shape, order);
  std::vector<T> out(logical.size());
  std::vector<std::int64_t> coord(shape.size(), 0);
  for (std::size_t i = 0; i < logical.size(); ++i) {
    std::int64_t off = 0;
    for (std::size_t a = 0; a < shape.size(); ++a) off += coord[a] * strides[a];
    out[static_cast<std::size_t>(off)] = logical[i];
    for (std::size_t a = shape.size(); a-- > 0;) {
      if (++coord[a] < shape[a]) break;
      coord[a] = 0;
    }
  }
  return out;
}

template <typename T>
std::vector<T> to_logical(const std::vector<T>& physical, const std::vector<std::int64_t>& shape, const AxisOrder& order) {
  const auto strides = logical_strides(shape, order);
  std::vector<T> out(physical.size());
  std::vector<std::int64_t> coord(shape.size(), 0);
  for (std::size_t i = 0; i < physical.size(); ++i) {
    std::int64_t off = 0;
    for (std::size_t a = 0; a < shape.size(); ++a) off += coord[a] * strides[a];
    out[i] = physical[static_cast<std::size_t>(off)];
    for (std::size_t a = shape.size(); a-- > 0;) {
      if (++coord[a] < shape[a]) break;
      coord[a] = 0;
    }
  }
  return out;
}

template std::vector<std::int8_t> to_physical(const std::vector<std::int8_t>&, const std::vector<std::int64_t>&, const AxisOrder&);
template std::vector<std::int8_t> to_logical(const std::vector<std::int8_t>&, const std::vector<std::int64_t>&, const AxisOrder&);
template std::vector<float> to_physical(const std::vector<float>&, const std::vector<std::int64_t>&, const AxisOrder&);
template std::vector<float> to_logical(const std::vector<float>&, const std::vector<std::int64_t>&, const AxisOrder&);

}  // namespace npu::compiler
