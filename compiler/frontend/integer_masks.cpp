// Attention masks as Hugging Face exports them (transformers' _prepare_4d_attention_mask):
//   m = Cast(Unsqueeze(Unsqueeze(attention_mask int64)), float); inv = 1 - m
//   mask = Where(Cast(inv, bool), float32's lowest, inv)           (masked_fill)
// The int64 input and the bool Cast kept these few ops on the CPU, two islands and four
// NPU<->CPU transitions in a decode step for 128 values. Two rewrites bring them to the NPU:
// - an integer graph input that reaches nothing but Casts to float, through ops that only rearrange values, is
//   made a float input (Graph::integer_valued_inputs: the host converts it at the boundary, as
//   it narrows token ids; generated calibration samples stay integer-valued, all ones for a
//   mask), the Casts become Identity;
// - Where(Cast(x, bool), a, y) for float x, y and a constant scalar a is x != 0 ? a : y, that
//   is sign(|x|) * a when y is x (x = 0 gives 0 = x), else y + sign(|x|) * (a - y) (the causal
//   mask's fill over the padding mask in a prefill); a NaN x gives NaN rather than a. fp16
//   programs write a finite a beyond fp16's range as its largest finite value
//   (isa::float_to_half_saturating), so 0 * a stays 0;
// - the same with Equal(x, c) for the condition (transformers 4.38+): 1 - sign(|x - c|);
// - a ScatterND writing every element of its data, in order, is a Reshape of its updates.
#include <algorithm>
#include <cmath>

#include "compiler/core/npu_ops.h"
#include "compiler/frontend/passes.h"
#include "compiler/frontend/pattern_match.h"

namespace npu::compiler {
namespace {

using namespace patterns;

bool casts_to_float(const Node& n) {
  if (n.op_type != "Cast" || !n.domain.empty()) return false;
  const std::int64_t to = n.get_int("to", 0);
  return to == kFloat || to == kFloat16;
}

// The nodes rearranging values between `input` and the Casts that end every path from it, or false if
// a path ends anywhere else (a Gather's indices, a graph output, an integer op).
bool only_cast_to_float(const Graph& g, const std::string& input, std::vector<int>& shape_ops, std::vector<int>& casts) {
  std::vector<std::string> pending = {input};
  while (!pending.empty()) {
    const std::string v = pending.back();
    pending.pop_back();
    if (g.is_graph_output(v)) return false;
    const std::vector<int> readers = g.consumers(v);
    if (readers.empty() && v == input) return false;
    for (int r : readers) {
      const Node& n = g.nodes[static_cast<std::size_t>(r)];
      if (n.inputs[0] != v) return false;  // a shape or an index, not the data
      if (casts_to_float(n)) {
        if (g.is_graph_output(n.outputs[0])) return false;  // the model's own float32 of it
        casts.push_back(r);
      } else if (n.domain.empty() && rearranges_values(n.op_type)) {
        shape_ops.push_back(r);
        pending.push_back(n.outputs[0]);
      } else {
        return false;
      }
    }
  }
  return true;
}

int integer_inputs_to_float(Graph& g) {
  // A Loop's, If's or Scan's body may read a graph input by name without consumers() seeing it.
  for (const Node& n : g.nodes)
    if (n.op_type == "Loop" || n.op_type == "If" || n.op_type == "Scan") return 0;
  int made = 0;
  for (const std::string& input : g.inputs) {
    Tensor& t = g.tensor(input);
    if (t.elem_type != kInt64 && t.elem_type != kInt32) continue;
    std::vector<int> shape_ops, casts;
    if (!only_cast_to_float(g, input, shape_ops, casts)) continue;
    t.elem_type = kFloat;
    for (int s : shape_ops) g.tensor(g.nodes[static_cast<std::size_t>(s)].outputs[0]).elem_type = kFloat;
    for (int c : casts) {
      Node& cast = g.nodes[static_cast<std::size_t>(c)];
      g.tensor(cast.outputs[0]).elem_type = kFloat;
      cast.op_type = "Identity";
      cast.attributes.clear();
    }
    g.integer_valued_inputs.insert(input);
    ++made;
  }
  return made;
}

// Whether v is an integer graph input (a mask) cast to float, through ops that only move its
// values.
bool from_integer_mask(const Graph& g, std::string v) {
  for (;;) {
    if (g.integer_valued_inputs.count(v)) return true;
    const int p = g.producer(v);
    if (p < 0) {
      const int t = g.tensor(v).elem_type;
      return (t == kInt64 || t == kInt32) && std::find(g.inputs.begin(), g.inputs.end(), v) != g.inputs.end();
    }
    const Node& n = g.nodes[static_cast<std::size_t>(p)];
    if (!n.domain.empty() || (n.op_type != "Identity" && !casts_to_float(n) && !rearranges_values(n.op_type))) return false;
    v = n.inputs[0];
  }
}

// x = C + m for a constant C and a mask m in [0, 1], tested only for x == c: C's entries beyond
// c +- 2 (transformers' causal mask holds float32's lowest value) decide nothing the clamped
// entries would not, and int8 keeps x's values near c apart only if its range is that narrow.
// Returns the value to test (a new Add on the clamped constant, or x).
std::string with_sentinels_clamped(Graph& g, const std::string& x, float c) {
  const int add = producer_of(g, x, "Add");
  if (add < 0 || g.consumers(x).size() != 1 || g.is_graph_output(x)) return x;
  const Node& n = g.nodes[static_cast<std::size_t>(add)];
  if (n.inputs.size() != 2) return x;
  const int k = g.is_constant(n.inputs[0]) ? 0 : 1;
  const Tensor& constant = g.tensor(n.inputs[static_cast<std::size_t>(k)]);
  if (!g.is_constant(n.inputs[static_cast<std::size_t>(k)]) || constant.floats.empty() ||
      !from_integer_mask(g, n.inputs[static_cast<std::size_t>(1 - k)]))
    return x;
  std::vector<float> clamped = constant.floats;
  bool changed = false;
  for (float& v : clamped) {
    const float w = std::max(c - 2.0f, std::min(c + 2.0f, v));
    changed |= w != v;
    v = w;
  }
  if (!changed) return x;
  const std::string name = g.unique_name(n.inputs[static_cast<std::size_t>(k)] + "_clamped");
  g.add_constant(name, constant.shape, std::move(clamped));
  Node sum = n;
  sum.inputs[static_cast<std::size_t>(k)] = name;
  const std::string out = g.add_value(x + "_clamped", g.tensor(x).elem_type, g.tensor(x).shape);
  sum = g.derived_node("Add", n, "_clamped", sum.inputs, {out});
  g.nodes.push_back(std::move(sum));
  return out;
}

// 1 - v, a new value.
std::string one_minus(Graph& g, const Node& where, const std::string& v) {
  const std::string one = g.unique_name(where.name + "_one");
  g.add_constant(one, {}, {1.0f});
  const std::string out = g.add_value(v + "_complement", g.tensor(v).elem_type, g.tensor(v).shape);
  g.nodes.push_back(g.derived_node("Sub", where, "_complement", {one, v}, {out}));
  return out;
}

// The condition of a masked fill as a float value that is 1 where the fill goes and 0 elsewhere,
// made of ops the NPU runs: Cast(x, bool) is sign(|x|); Equal(x, c) for a constant scalar c (the
// bool Cast after it changes nothing) is 1 - sign(|x - c|). Empty when `cond` is neither.
struct FillIndicator {
  std::string value;  // 1 where the fill goes
  std::string x;      // the value tested
  bool nonzero_of_x;  // value is sign(|x|)
};

FillIndicator fill_indicator(Graph& g, const Node& where, const std::string& cond) {
  std::string x;
  float equal_to = 0;
  bool equal = false;
  if (const int same = producer_of(g, cond, "Identity"); same >= 0)  // a bool Cast of a bool
    return fill_indicator(g, where, g.nodes[static_cast<std::size_t>(same)].inputs[0]);
  // A condition moved into place (DistilBERT: Expand(Reshape(Equal(mask, 0)))): the indicator is
  // made where the test is and moved the same way.
  if (const int p = g.producer(cond); p >= 0 && g.nodes[static_cast<std::size_t>(p)].domain.empty() &&
                                       rearranges_values(g.nodes[static_cast<std::size_t>(p)].op_type) &&
                                       g.tensor(cond).elem_type == kBool && g.tensor(cond).shape_known) {
    const Node move = g.nodes[static_cast<std::size_t>(p)];
    const FillIndicator inner = fill_indicator(g, where, move.inputs[0]);
    if (inner.value.empty()) return {};
    const int type = g.tensor(inner.value).elem_type;
    Node moved = g.derived_node(move.op_type, move, "_indicator", move.inputs,
                                {g.add_value(cond + "_indicator", type, g.tensor(cond).shape)});
    moved.attributes = move.attributes;
    moved.inputs[0] = inner.value;
    const std::string out = moved.outputs[0];
    g.nodes.push_back(std::move(moved));
    return {out, inner.x, false};
  }
  int node = producer_of(g, cond, "Cast");
  if (node >= 0) {
    const Node& to_bool = g.nodes[static_cast<std::size_t>(node)];
    if (to_bool.get_int("to", 0) != kBool) return {};
    if (producer_of(g, to_bool.inputs[0], "Equal") >= 0) return fill_indicator(g, where, to_bool.inputs[0]);
    x = to_bool.inputs[0];
  } else if ((node = producer_of(g, cond, "Equal")) >= 0) {
    const Node& eq = g.nodes[static_cast<std::size_t>(node)];
    if (eq.inputs.size() != 2 || !uniform_constant(g, eq.inputs[1], equal_to) || !std::isfinite(equal_to)) return {};
    x = eq.inputs[0];
    equal = true;
    // An integer mask tested directly (DistilBERT: attention_mask == 0): tested as a float, which
    // integer_inputs_to_float then makes the input itself.
    const Tensor& xt = g.tensor(x);
    if ((xt.elem_type == kInt64 || xt.elem_type == kInt32) && xt.shape_known && !g.is_constant(x)) {
      Node cast = g.derived_node("Cast", eq, "_as_float", {x}, {g.add_value(x + "_as_float", kFloat, xt.shape)});
      cast.set_int("to", kFloat);
      x = cast.outputs[0];
      g.nodes.push_back(std::move(cast));
    }
  } else {
    return {};
  }
  if (equal) x = with_sentinels_clamped(g, x, equal_to);
  const std::string tested = x;
  const Tensor& xt = g.tensor(x);
  if (!is_float_type(xt.elem_type) || !xt.shape_known || xt.shape != g.tensor(cond).shape) return {};
  const int type = xt.elem_type;
  if (equal && equal_to != 0.0f) {
    const std::string c = g.unique_name(where.name + "_equal_to");
    g.add_constant(c, {}, {equal_to});
    const std::string diff = g.add_value(x + "_minus_c", type, xt.shape);
    g.nodes.push_back(g.derived_node("Sub", where, "_difference", {x, c}, {diff}));
    x = diff;
  }
  // sign(|x|), not |sign(x)|: int8 then holds the indicator in [0, 1], where 0 and 1 are exact
  // codes; sign(x) in [-1, 1] has a half-integer zero point and its 1 comes back 1/255 short,
  // which times a float32-lowest fill is -1.3e36 where nothing is masked.
  const std::string magnitude = g.add_value(x + "_magnitude", type, xt.shape);
  const std::string nonzero = g.add_value(x + "_nonzero", type, xt.shape);
  g.nodes.push_back(g.derived_node("Abs", where, "_magnitude", {x}, {magnitude}));
  g.nodes.push_back(g.derived_node("Sign", where, "_nonzero", {magnitude}, {nonzero}));
  if (!equal) return {nonzero, tested, true};
  return {one_minus(g, where, nonzero), tested, false};
}

int masked_fills_as_products(Graph& g) {
  int made = 0;
  const std::size_t count = g.nodes.size();
  for (std::size_t i = 0; i < count; ++i) {
    const Node where = g.nodes[i];
    if (where.op_type != "Where" || !where.domain.empty() || where.inputs.size() != 3) continue;
    const std::string other = where.inputs[2];
    if (!is_float_type(g.tensor(other).elem_type)) continue;
    float fill = 0;
    if (!uniform_constant(g, where.inputs[1], fill) || !std::isfinite(fill)) continue;
    const Tensor& out = g.tensor(where.outputs[0]);
    const Tensor& y = g.tensor(other);
    if (!out.shape_known || !y.shape_known || g.tensor(where.inputs[0]).shape != out.shape) continue;
    if (g.is_constant(other) && y.floats.empty()) continue;
    const FillIndicator f = fill_indicator(g, where, where.inputs[0]);
    if (f.value.empty()) continue;
    const std::string& indicator = f.value;
    const int type = g.tensor(indicator).elem_type;
    Node result = where;  // its name and output
    if (f.nonzero_of_x && f.x == other) {
      // x != 0 ? fill : x, and x = 0 there
      result.op_type = "Mul";
      result.inputs = {indicator, where.inputs[1]};
    } else if (g.is_constant(other)) {  // other + indicator * (fill - other), the step a constant
      std::vector<float> d = y.floats;
      for (float& v : d) v = fill - v;
      const std::string step = g.unique_name(where.name + "_fill_step");
      g.add_constant(step, y.shape, std::move(d));
      const std::string jump = g.add_value(where.name + "_fill_jump", type, out.shape);
      g.nodes.push_back(g.derived_node("Mul", where, "_fill_jump", {indicator, step}, {jump}));
      result.op_type = "Add";
      result.inputs = {other, jump};
    } else {
      // other * (1 - indicator) + indicator * fill: fill - other would overflow fp16 (-65504 less
      // a score), and 0 times that infinity is NaN where nothing is masked.
      const std::string kept = g.add_value(where.name + "_kept", type, out.shape);
      g.nodes.push_back(g.derived_node("Mul", where, "_kept", {other, one_minus(g, where, indicator)}, {kept}));
      const std::string filled = g.add_value(where.name + "_filled", type, out.shape);
      g.nodes.push_back(g.derived_node("Mul", where, "_filled", {indicator, where.inputs[1]}, {filled}));
      result.op_type = "Add";
      result.inputs = {kept, filled};
    }
    g.nodes[i] = std::move(result);
    ++made;
  }
  if (made) g.sort_topologically();
  return made;
}

// ScatterND(data, indices, updates) whose constant indices list every element (or every slice)
// of data once, in order: transformers' causal_mask[:, :, :, :n] = masked (the whole mask when n
// is its length) is then updates reshaped to data's shape.
int whole_scatters_as_reshapes(Graph& g) {
  int made = 0;
  for (Node& n : g.nodes) {
    if (n.op_type != "ScatterND" || !n.domain.empty() || n.inputs.size() != 3 || n.has("reduction")) continue;
    const Tensor& data = g.tensor(n.inputs[0]);
    const Tensor& indices = g.tensor(n.inputs[1]);
    const Tensor& updates = g.tensor(n.inputs[2]);
    if (!data.shape_known || !updates.shape_known || !g.is_constant(n.inputs[1]) || indices.shape.empty()) continue;
    const auto k = static_cast<std::size_t>(indices.shape.back());
    if (k == 0 || k > data.shape.size()) continue;
    std::int64_t count = 1;
    for (std::size_t a = 0; a < k; ++a) count *= data.shape[a];
    if (static_cast<std::int64_t>(indices.ints.size()) != count * static_cast<std::int64_t>(k)) continue;
    bool in_order = true;
    for (std::int64_t e = 0; e < count && in_order; ++e) {
      std::int64_t rest = e;
      for (std::size_t a = k; a-- > 0;) {
        const std::int64_t want = rest % data.shape[a];
        rest /= data.shape[a];
        if (indices.ints[static_cast<std::size_t>(e) * k + a] != want) in_order = false;
      }
    }
    std::int64_t update_elements = 1, data_elements = 1;
    for (auto d : updates.shape) update_elements *= d;
    for (auto d : data.shape) data_elements *= d;
    if (!in_order || update_elements != data_elements) continue;
    const std::string shape = g.add_int_vector(n.name + "_shape", data.shape);
    n.op_type = "Reshape";
    n.inputs = {n.inputs[2], shape};
    n.attributes.clear();
    ++made;
  }
  return made;
}

}  // namespace

bool has_integer_masks(const Graph& g) {
  return has_onnx_op(g, "Cast") || has_onnx_op(g, "Where") || has_onnx_op(g, "ScatterND");
}

std::string float_masks_from_integers(Graph& g) {
  const int scatters = whole_scatters_as_reshapes(g);
  const int fills = masked_fills_as_products(g);
  remove_dead_nodes(g);  // the tests the fills replaced may read an integer input
  const int inputs = integer_inputs_to_float(g);
  return std::to_string(inputs) + " integer input(s) only cast to float made float, " + std::to_string(scatters) +
         " whole-tensor ScatterND(s) as Reshape, " + std::to_string(fills) + " masked fill(s) as |sign(x)| * fill";
}

}  // namespace npu::compiler
