#include "compiler/reference/shape_rules.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace npu::compiler {
namespace {

std::string dims(const Shape& s) {
  std::string t;
  for (std::size_t i = 0; i < s.size(); ++i) t += (i ? "x" : "") + std::to_string(s[i]);
  return t.empty() ? "scalar" : t;
}

}  // namespace

Shape reshape_shape(const Shape& in, std::vector<std::int64_t> shape, bool allowzero) {
  const std::int64_t total = shape_elements(in);
  std::int64_t known = 1;
  int infer = -1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0 && !allowzero) {
      if (d >= in.size()) throw std::invalid_argument("shape " + dims(shape) + " copies dim " + std::to_string(d) + " the input lacks");
      shape[d] = in[d];
    }
    if (shape[d] == -1) {
      if (infer >= 0) throw std::invalid_argument("shape " + dims(shape) + " has two -1 dims");
      infer = static_cast<int>(d);
    } else if (shape[d] < 0) {
      throw std::invalid_argument("shape has a negative dim " + std::to_string(shape[d]));
    } else {
      known *= shape[d];
    }
  }
  if (infer >= 0) {
    if (known == 0 || total % known) throw std::invalid_argument("cannot reshape " + dims(in) + " to " + dims(shape));
    shape[infer] = total / known;
  }
  if (shape_elements(shape) != total) throw std::invalid_argument("cannot reshape " + dims(in) + " to " + dims(shape));
  return shape;
}

Shape squeeze_shape(const Shape& in, std::vector<std::int64_t> axes) {
  const auto r = static_cast<std::int64_t>(in.size());
  for (auto& a : axes) {
    a = normalize_axis_checked(a, r);
    if (in[a] != 1) throw std::invalid_argument("cannot squeeze dim " + std::to_string(a) + " of size " + std::to_string(in[a]));
  }
  Shape s;
  for (std::int64_t d = 0; d < r; ++d) {
    bool drop = axes.empty() ? in[d] == 1 : std::find(axes.begin(), axes.end(), d) != axes.end();
    if (!drop) s.push_back(in[d]);
  }
  return s;
}

Shape unsqueeze_shape(const Shape& in, std::vector<std::int64_t> axes) {
  const auto rank = static_cast<std::int64_t>(in.size() + axes.size());
  for (auto& a : axes) a = normalize_axis_checked(a, rank);
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) throw std::invalid_argument("repeated axis");
  Shape s;
  std::size_t k = 0;
  for (std::int64_t d = 0; d < rank; ++d)
    s.push_back(std::binary_search(axes.begin(), axes.end(), d) ? 1 : in.at(k++));
  return s;
}

Shape flatten_shape(const Shape& in, std::int64_t axis) {
  const auto r = static_cast<std::int64_t>(in.size());
  if (axis < 0) axis += r;
  if (axis < 0 || axis > r) throw std::invalid_argument("axis " + std::to_string(axis) + " is out of range");
  std::int64_t a = 1, b = 1;
  for (std::int64_t d = 0; d < r; ++d) (d < axis ? a : b) *= in[d];
  return {a, b};
}

Shape resize_shape(const Shape& in, const std::vector<float>& scales, const std::vector<std::int64_t>& sizes) {
  if (!sizes.empty()) {
    if (sizes.size() != in.size()) throw std::invalid_argument("sizes has " + std::to_string(sizes.size()) + " entries for rank " + std::to_string(in.size()));
    return sizes;
  }
  if (scales.size() != in.size()) throw std::invalid_argument("scales has " + std::to_string(scales.size()) + " entries for rank " + std::to_string(in.size()));
  Shape s = in;
  for (std::size_t d = 0; d < in.size(); ++d) {
    if (!(scales[d] > 0)) throw std::invalid_argument("scale " + std::to_string(scales[d]) + " is not positive");
    s[d] = static_cast<std::int64_t>(std::floor(static_cast<double>(in[d]) * scales[d]));
  }
  return s;
}

std::int64_t range_count(double start, double limit, double delta) {
  if (delta == 0) throw std::invalid_argument("Range delta is 0");
  return std::max<std::int64_t>(static_cast<std::int64_t>(std::ceil((limit - start) / delta)), 0);
}

}  // namespace npu::compiler
