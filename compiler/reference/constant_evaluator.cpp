#include "compiler/reference/constant_evaluator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

#include "compiler/core/node_parameters.h"
#include "compiler/reference/float_evaluator.h"
#include "compiler/reference/node_geometry.h"
#include "compiler/reference/saturating_cast.h"
#include "compiler/reference/shape_rules.h"
#include "isa/fp16.h"

namespace npu::compiler {
namespace {

// int64 arithmetic wraps (two's complement), as ONNX Runtime's does, instead of overflowing.
std::int64_t wrap(std::uint64_t v) { return static_cast<std::int64_t>(v); }
std::int64_t wrapping_add(std::int64_t a, std::int64_t b) { return wrap(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b)); }
std::int64_t wrapping_sub(std::int64_t a, std::int64_t b) { return wrap(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b)); }
std::int64_t wrapping_mul(std::int64_t a, std::int64_t b) { return wrap(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b)); }

bool is_int_type(int t) {
  return t == kInt64 || t == kInt32 || t == kInt8 || t == kUint8 || t == kBool || t == 4 || t == 5 || t == 12 || t == 13;
}
bool is_float_type(int t) { return t == kFloat || t == kFloat16 || t == kDouble; }

// A constant value in its own type: integers exactly, floats as float.
struct Value {
  int elem_type = kFloat;
  IntTensor i;
  FloatTensor f;
  bool integer() const { return is_int_type(elem_type); }
  const Shape& shape() const { return integer() ? i.shape : f.shape; }
};

Value from_tensor(const Tensor& t) {
  Value v;
  v.elem_type = t.elem_type;
  if (v.integer()) {
    v.i.shape = t.shape;
    if (!t.ints.empty() || t.floats.empty()) v.i.data = t.ints;
    else
      for (float x : t.floats) v.i.data.push_back(saturating_cast(x));
  } else {
    v.f = constant_as_float(t);
  }
  return v;
}

Value make_int(IntTensor t, int type = kInt64) {
  Value v;
  v.elem_type = type;
  v.i = std::move(t);
  return v;
}
Value make_float(FloatTensor t, int type = kFloat) {
  Value v;
  v.elem_type = type;
  v.f = std::move(t);
  return v;
}

IntTensor to_ints(const Value& v) {
  if (v.integer()) return v.i;
  IntTensor t;
  t.shape = v.f.shape;
  for (float x : v.f.data) t.data.push_back(saturating_cast(x));
  return t;
}
FloatTensor to_floats(const Value& v) {
  if (!v.integer()) return v.f;
  FloatTensor t;
  t.shape = v.i.shape;
  for (auto x : v.i.data) t.data.push_back(static_cast<float>(x));
  return t;
}

std::int64_t floor_mod(std::int64_t a, std::int64_t b) {
  if (b == 0) throw std::invalid_argument("integer Mod by zero");
  if (b == -1) return 0;  // INT64_MIN % -1 overflows
  std::int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

std::int64_t int_pow(std::int64_t a, std::int64_t b) {
  if (b < 0) return a == 1 ? 1 : (a == -1 ? (b % 2 ? -1 : 1) : 0);
  std::int64_t r = 1;
  for (; b > 0; b >>= 1, a = wrapping_mul(a, a))  // by squaring: an exponent of 2^62 is 62 steps
    if (b & 1) r = wrapping_mul(r, a);
  return r;
}


// Applies `f` to the data of v, in its own element type (int64 or float).
template <typename F>
Value map_value(const Value& v, F&& f) {
  if (v.integer()) return make_int(f(v.i), v.elem_type);
  return make_float(f(v.f), v.elem_type);
}

const std::set<std::string> kExactOps = {
    "Shape", "Size", "Gather", "GatherElements", "Unsqueeze", "Squeeze", "Concat", "Range", "ConstantOfShape",
    "Expand", "Cast", "CastLike", "Slice", "Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual", "Where", "Mod",
    "ScatterND", "Not", "And", "Or", "Xor", "Add", "Sub", "Mul", "Div", "Neg", "Abs", "Max", "Min", "Sum", "Sign", "Pow",
    "Reshape", "Flatten", "Transpose", "Identity", "Tile", "ReduceProd", "ReduceSum", "ReduceMax", "ReduceMin", "Split",
    "Pad", "NonZero", "Clip"};

class Folder {
 public:
  Folder(const Graph& g, const Node& n) : g_(g), n_(n) {}

  std::vector<Value> run(const std::vector<Value>& in) {
    in_ = &in;
    const std::string& op = n_.op_type;
    if (op == "Shape" || op == "Size") return {shape_of()};
    if (op == "Identity") return {need(0)};
    if (op == "Cast") return {cast(need(0), static_cast<int>(n_.get_int("to", kFloat)))};
    if (op == "CastLike") return {cast(need(0), need(1).elem_type)};
    if (op == "ConstantOfShape") return {constant_of_shape()};
    if (op == "Range") return {range()};
    if (op == "NonZero") return {nonzero()};
    if (op == "Equal" || op == "Less" || op == "LessOrEqual" || op == "Greater" || op == "GreaterOrEqual") return {compare(op)};
    if (op == "Not") return {make_int(logic_unary(need(0)), kBool)};
    if (op == "And" || op == "Or" || op == "Xor") return {logic(op)};
    if (op == "Where") return {where_value()};
    if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Mod" || op == "Pow" || op == "Max" ||
        op == "Min" || op == "Sum")
      return {arithmetic(op)};
    if (op == "Neg" || op == "Abs" || op == "Sign") return {unary(op)};
    if (op == "Clip") return {clip()};
    if (op == "ReduceProd" || op == "ReduceSum" || op == "ReduceMax" || op == "ReduceMin") return {reduce_value(op)};
    return movement(op);
  }

 private:
  const Value& need(std::size_t k) const {
    if (k >= in_->size() || k >= n_.inputs.size() || n_.inputs[k].empty())
      throw std::invalid_argument("missing input " + std::to_string(k));
    return (*in_)[k];
  }
  bool has(std::size_t k) const { return k < n_.inputs.size() && !n_.inputs[k].empty(); }
  std::vector<std::int64_t> param(const std::string& name, bool required) const {
    std::vector<std::int64_t> v;
    if (!parameter_ints(g_, n_, name, v) && required) throw std::invalid_argument(name + " is not known");
    return v;
  }

  Value shape_of() const {
    const Shape& s = g_.tensor(n_.inputs.at(0)).shape;
    IntTensor t;
    if (n_.op_type == "Size") {
      t.data = {shape_elements(s)};
      return make_int(t);
    }
    const auto rank = static_cast<std::int64_t>(s.size());
    auto clamp = [&](std::int64_t v) { return std::min(std::max(v < 0 ? v + rank : v, std::int64_t{0}), rank); };
    const std::int64_t start = clamp(n_.get_int("start", 0)), end = clamp(n_.get_int("end", rank));
    for (std::int64_t d = start; d < end; ++d) t.data.push_back(s[d]);
    t.shape = {static_cast<std::int64_t>(t.data.size())};
    return make_int(t);
  }

  static Value cast(const Value& v, int to) {
    if (to == 8) throw std::invalid_argument("string tensors are not supported");
    if (is_int_type(to)) {
      IntTensor t;
      if (v.integer()) t = v.i;
      else {
        t.shape = v.f.shape;
        for (float x : v.f.data) t.data.push_back(saturating_cast(x));
      }
      if (to == kBool)
        for (auto& x : t.data) x = x != 0;
      else if (to == kInt32)
        for (auto& x : t.data) x = static_cast<std::int32_t>(x);
      else if (to == kInt8)
        for (auto& x : t.data) x = static_cast<std::int8_t>(x);
      else if (to == kUint8)
        for (auto& x : t.data) x = static_cast<std::uint8_t>(x);
      return make_int(t, to);
    }
    FloatTensor f = to_floats(v);
    if (to == kFloat16)
      for (auto& x : f.data) x = isa::half_to_float(isa::float_to_half(x));
    return make_float(f, to);
  }

  Value constant_of_shape() const {
    IntTensor shape = to_ints(need(0));
    int type = kFloat;
    double value = 0;
    auto it = n_.attributes.find("value");
    if (it != n_.attributes.end()) {
      const Attribute& a = it->second;
      if (a.kind != Attribute::Kind::Tensor) throw std::invalid_argument("value is not a numeric tensor");
      type = a.tensor_elem_type;
      value = !a.floats.empty() ? a.floats[0] : !a.ints.empty() ? static_cast<double>(a.ints[0]) : 0.0;
    }
    for (auto d : shape.data)
      if (d < 0) throw std::invalid_argument("negative dim in the shape");
    const auto n = static_cast<std::size_t>(shape_elements(shape.data));
    if (is_int_type(type)) return make_int(IntTensor{shape.data, std::vector<std::int64_t>(n, static_cast<std::int64_t>(value))}, type);
    return make_float(FloatTensor{shape.data, std::vector<float>(n, static_cast<float>(value))}, type);
  }

  Value range() const {
    const Value &s = need(0), &l = need(1), &d = need(2);
    if (s.integer()) {
      const std::int64_t start = s.i.data.at(0), limit = l.i.data.at(0), delta = d.i.data.at(0);
      if (delta == 0) throw std::invalid_argument("Range delta is 0");
      const __int128 count = std::max<__int128>(0, (static_cast<__int128>(limit) - start + delta + (delta > 0 ? -1 : 1)) / delta);
      if (count > (std::int64_t{1} << 28)) throw std::invalid_argument("Range of more than 2^28 elements");
      const auto n = static_cast<std::int64_t>(count);
      IntTensor t{{n}, {}};
      for (std::int64_t k = 0; k < n; ++k) t.data.push_back(wrapping_add(start, wrapping_mul(k, delta)));
      return make_int(t, s.elem_type);
    }
    const double start = s.f.data.at(0), limit = l.f.data.at(0), delta = d.f.data.at(0);
    const std::int64_t n = range_count(start, limit, delta);
    FloatTensor t{{n}, {}};
    for (std::int64_t k = 0; k < n; ++k) t.data.push_back(static_cast<float>(start + k * delta));
    return make_float(t, s.elem_type);
  }

  Value nonzero() const {
    const Value& x = need(0);
    const Shape& s = x.shape();
    auto strides = row_strides(s);
    std::vector<std::int64_t> hits;
    for (std::int64_t k = 0; k < shape_elements(s); ++k)
      if (x.integer() ? x.i.data[k] != 0 : x.f.data[k] != 0.0f) hits.push_back(k);
    IntTensor t{{static_cast<std::int64_t>(s.size()), static_cast<std::int64_t>(hits.size())}, {}};
    t.data.resize(s.size() * hits.size());
    for (std::size_t h = 0; h < hits.size(); ++h)
      for (std::size_t d = 0; d < s.size(); ++d) t.data[d * hits.size() + h] = (hits[h] / strides[d]) % s[d];
    return make_int(t);
  }

  Shape out_shape(const Shape& a, const Shape& b) const { return broadcast_shapes(a, b, n_.name); }

  Value compare(const std::string& op) const {
    const Value &a = need(0), &b = need(1);
    auto cmp = [&](auto x, auto y) -> std::int64_t {
      if (op == "Equal") return x == y;
      if (op == "Less") return x < y;
      if (op == "LessOrEqual") return x <= y;
      if (op == "Greater") return x > y;
      return x >= y;
    };
    const Shape s = out_shape(a.shape(), b.shape());
    if (a.integer() && b.integer())
      return make_int(broadcast_binary<std::int64_t, std::int64_t, std::int64_t>(a.i, b.i, s, cmp), kBool);
    return make_int(broadcast_binary<float, float, std::int64_t>(to_floats(a), to_floats(b), s, cmp), kBool);
  }

  static IntTensor logic_unary(const Value& v) {
    IntTensor t = to_ints(v);
    for (auto& x : t.data) x = x == 0;
    return t;
  }

  Value logic(const std::string& op) const {
    IntTensor a = to_ints(need(0)), b = to_ints(need(1));
    return make_int(broadcast_binary<std::int64_t, std::int64_t, std::int64_t>(
                        a, b, out_shape(a.shape, b.shape),
                        [&](std::int64_t x, std::int64_t y) -> std::int64_t {
                          if (op == "And") return x && y;
                          if (op == "Or") return x || y;
                          return (x != 0) != (y != 0);
                        }),
                    kBool);
  }

  Value where_value() const {
    IntTensor c = to_ints(need(0));
    const Value &x = need(1), &y = need(2);
    if (x.integer() != y.integer()) throw std::invalid_argument("X and Y differ in type");
    if (x.integer()) return make_int(where(c, x.i, y.i), x.elem_type);
    return make_float(where(c, x.f, y.f), x.elem_type);
  }

  Value arithmetic(const std::string& op) const {
    Value acc = need(0);
    for (std::size_t k = 1; k < n_.inputs.size(); ++k) {
      const Value& b = need(k);
      if (!acc.integer() || !b.integer()) {
        if (op == "Pow" && !acc.integer()) {  // float base, integer exponent
          FloatTensor e = to_floats(b);
          acc = make_float(broadcast_binary<float, float, float>(acc.f, e, out_shape(acc.f.shape, e.shape),
                                                                 [](float x, float y) { return std::pow(x, y); }),
                           acc.elem_type);
          continue;
        }
        throw std::invalid_argument("mixed integer and float operands");
      }
      const bool fmod = n_.get_int("fmod", 0) != 0;
      acc = make_int(broadcast_binary<std::int64_t, std::int64_t, std::int64_t>(
                         acc.i, b.i, out_shape(acc.i.shape, b.i.shape),
                         [&](std::int64_t x, std::int64_t y) -> std::int64_t {
                           if (op == "Add" || op == "Sum") return wrapping_add(x, y);
                           if (op == "Sub") return wrapping_sub(x, y);
                           if (op == "Mul") return wrapping_mul(x, y);
                           if (op == "Div") {
                             if (y == 0) throw std::invalid_argument("integer division by zero");
                             if (y == -1) return wrapping_sub(0, x);  // INT64_MIN / -1 wraps
                             return x / y;  // truncates toward zero, as ONNX Runtime does
                           }
                           if (op == "Mod") {
                             if (y == 0) throw std::invalid_argument("integer Mod by zero");
                             if (y == -1) return 0;
                             return fmod ? x % y : floor_mod(x, y);
                           }
                           if (op == "Pow") return int_pow(x, y);
                           if (op == "Max") return std::max(x, y);
                           return std::min(x, y);
                         }),
                     acc.elem_type);
    }
    return acc;
  }

  Value unary(const std::string& op) const {
    const Value& x = need(0);
    if (!x.integer()) throw std::invalid_argument("float operand");
    IntTensor t = x.i;
    for (auto& v : t.data) v = op == "Neg" ? wrapping_sub(0, v) : op == "Abs" ? (v < 0 ? wrapping_sub(0, v) : v) : (v > 0) - (v < 0);
    return make_int(t, x.elem_type);
  }

  Value clip() const {
    const Value& x = need(0);
    if (!x.integer()) throw std::invalid_argument("float operand");
    std::int64_t lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
    std::vector<float> v;
    if (parameter_floats(g_, n_, "min", v) && !v.empty()) lo = static_cast<std::int64_t>(v[0]);
    if (parameter_floats(g_, n_, "max", v) && !v.empty()) hi = static_cast<std::int64_t>(v[0]);
    IntTensor t = x.i;
    for (auto& e : t.data) e = std::min(std::max(e, lo), hi);
    return make_int(t, x.elem_type);
  }

  Value reduce_value(const std::string& op) const {
    const Value& x = need(0);
    if (!x.integer()) throw std::invalid_argument("float operand");
    auto axes = param("axes", false);
    const auto r = static_cast<std::int64_t>(x.i.shape.size());
    if (axes.empty()) {
      if (n_.get_int("noop_with_empty_axes", 0)) return x;
      for (std::int64_t d = 0; d < r; ++d) axes.push_back(d);
    }
    for (auto& a : axes) a = normalize_axis_checked(a, r);
    std::sort(axes.begin(), axes.end());
    axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
    const bool keep = n_.get_int("keepdims", 1) != 0;
    std::int64_t init = op == "ReduceProd" ? 1 : op == "ReduceSum" ? 0
                       : op == "ReduceMax" ? std::numeric_limits<std::int64_t>::min()
                                           : std::numeric_limits<std::int64_t>::max();
    return make_int(reduce<std::int64_t, std::int64_t>(x.i, axes, keep, init,
                                                      [&](std::int64_t a, std::int64_t v) {
                                                        if (op == "ReduceProd") return wrapping_mul(a, v);
                                                        if (op == "ReduceSum") return wrapping_add(a, v);
                                                        if (op == "ReduceMax") return std::max(a, v);
                                                        return std::min(a, v);
                                                      }),
                    x.elem_type);
  }

  std::vector<Value> movement(const std::string& op) const {
    const Value& x = need(0);
    if (op == "Gather") return {map_value(x, [&](const auto& t) { return gather(t, to_ints(need(1)), n_.get_int("axis", 0)); })};
    if (op == "GatherElements")
      return {map_value(x, [&](const auto& t) { return gather_elements(t, to_ints(need(1)), n_.get_int("axis", 0)); })};
    if (op == "Transpose") return {map_value(x, [&](const auto& t) { return transpose(t, n_.get_ints("perm")); })};
    if (op == "Expand") return {map_value(x, [&](const auto& t) { return expand(t, param("shape", true)); })};
    if (op == "Tile") return {map_value(x, [&](const auto& t) { return tile(t, param("repeats", true)); })};
    if (op == "Slice")
      return {map_value(x, [&](const auto& t) {
        return slice(t, param("starts", true), param("ends", true), param("axes", false), param("steps", false));
      })};
    if (op == "Reshape" || op == "Squeeze" || op == "Unsqueeze" || op == "Flatten") {
      Shape s;
      if (op == "Reshape") s = reshape_shape(x.shape(), param("shape", true), n_.get_int("allowzero", 0) != 0);
      else if (op == "Squeeze") s = squeeze_shape(x.shape(), param("axes", false));
      else if (op == "Unsqueeze") s = unsqueeze_shape(x.shape(), param("axes", true));
      else s = flatten_shape(x.shape(), n_.get_int("axis", 1));
      Value y = x;
      (y.integer() ? y.i.shape : y.f.shape) = s;
      return {y};
    }
    if (op == "Concat") {
      if (x.integer()) {
        std::vector<const IntTensor*> parts;
        for (std::size_t k = 0; k < n_.inputs.size(); ++k) parts.push_back(&need(k).i);
        return {make_int(concat(parts, n_.get_int("axis", 0)), x.elem_type)};
      }
      std::vector<const FloatTensor*> parts;
      for (std::size_t k = 0; k < n_.inputs.size(); ++k) parts.push_back(&need(k).f);
      return {make_float(concat(parts, n_.get_int("axis", 0)), x.elem_type)};
    }
    if (op == "ScatterND") {
      const std::string red = n_.get_string("reduction", "none");
      if (x.integer()) return {make_int(scatter_nd(x.i, to_ints(need(1)), to_ints(need(2)), red), x.elem_type)};
      return {make_float(scatter_nd(x.f, to_ints(need(1)), to_floats(need(2)), red), x.elem_type)};
    }
    if (op == "Split") {
      std::size_t parts = n_.has("num_outputs") ? static_cast<std::size_t>(n_.get_int("num_outputs", 1)) : n_.outputs.size();
      std::vector<Value> out;
      if (x.integer())
        for (auto& t : split(x.i, n_.get_int("axis", 0), param("split", false), parts)) out.push_back(make_int(t, x.elem_type));
      else
        for (auto& t : split(x.f, n_.get_int("axis", 0), param("split", false), parts)) out.push_back(make_float(t, x.elem_type));
      return out;
    }
    if (op == "Pad") {
      if (has(3)) throw std::invalid_argument("Pad axes input");
      std::vector<float> value;
      parameter_floats(g_, n_, "value", value);
      const float v = value.empty() ? 0.0f : value[0];
      const std::string mode = n_.get_string("mode", "constant");
      if (x.integer()) return {make_int(pad(x.i, param("pads", true), mode, static_cast<std::int64_t>(v)), x.elem_type)};
      return {make_float(pad(x.f, param("pads", true), mode, v), x.elem_type)};
    }
    throw std::invalid_argument("no exact kernel");
  }

  const Graph& g_;
  const Node& n_;
  const std::vector<Value>* in_ = nullptr;
};

}  // namespace

bool exact_fold_supports(const std::string& op) { return kExactOps.count(op) != 0; }

bool fold_node(const Graph& g, const Node& n, std::vector<Tensor>& outputs) {
  if (!n.domain.empty()) return false;
  outputs.clear();
  const bool shape_only = n.op_type == "Shape" || n.op_type == "Size";
  bool any_integer = shape_only;
  std::vector<Value> in;
  for (const auto& name : n.inputs) {
    if (name.empty() || shape_only) {
      in.emplace_back();
      continue;
    }
    const Tensor& t = g.tensor(name);
    in.push_back(from_tensor(t));
    any_integer |= in.back().integer();
  }
  for (const auto& o : n.outputs)
    if (!o.empty() && g.has_tensor(o) && g.tensor(o).shape_known && is_int_type(g.tensor(o).elem_type)) any_integer = true;
  if (n.op_type == "Cast" || n.op_type == "ConstantOfShape" || n.op_type == "NonZero") any_integer = true;
  std::vector<Value> out;
  if (any_integer && exact_fold_supports(n.op_type)) {
    try {
      out = Folder(g, n).run(in);
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      if (what == "no exact kernel" || what == "float operand" || what == "mixed integer and float operands") return false;
      throw CompileError(g.source + ": node '" + n.name + "' (" + n.op_type + "): " + what);
    } catch (const std::out_of_range& e) {
      throw CompileError(g.source + ": node '" + n.name + "' (" + n.op_type + "): a parameter is out of range");
    }
  } else {
    if (!evaluator_supports(n)) return false;
    // Integer data the exact folder lacks never rounds through float; a float op's integer
    // parameters (Trilu's k, TopK's K, Resize's sizes) are exact in float up to 2^24.
    const bool float_data = !in.empty() && !n.inputs[0].empty() && !in[0].integer();
    for (auto& v : in) {
      if (!v.integer()) continue;
      if (!float_data || std::any_of(v.i.data.begin(), v.i.data.end(), [](std::int64_t x) { return x < -(1 << 24) || x > (1 << 24); }))
        return false;
      v.f = to_floats(v);
    }
    std::vector<const FloatTensor*> ptrs;
    for (std::size_t k = 0; k < n.inputs.size(); ++k) ptrs.push_back(n.inputs[k].empty() ? nullptr : &in[k].f);
    auto results = evaluate_node(g, n, ptrs);
    for (std::size_t o = 0; o < results.size(); ++o) {
      // The output's type from type inference: float data, or indices (ArgMax, TopK's second).
      int type = o < n.outputs.size() && !n.outputs[o].empty() && g.has_tensor(n.outputs[o])
                     ? g.tensor(n.outputs[o]).elem_type : kFloat;
      if (is_int_type(type)) {
        IntTensor t{results[o].shape, {}};
        for (float v : results[o].data) t.data.push_back(saturating_cast(std::round(v)));
        out.push_back(make_int(std::move(t), type));
      } else {
        out.push_back(make_float(std::move(results[o]), is_float_type(type) ? type : kFloat));
      }
    }
  }
  for (std::size_t o = 0; o < n.outputs.size(); ++o) {
    Tensor t;
    t.name = n.outputs[o];
    if (o < out.size()) {
      Value& v = out[o];
      t.elem_type = v.elem_type;
      t.shape = v.shape();
      if (v.integer()) t.ints = std::move(v.i.data);
      else t.floats = std::move(v.f.data);
    }
    t.shape_known = true;
    t.is_constant = true;
    outputs.push_back(std::move(t));
  }
  return true;
}

}  // namespace npu::compiler
