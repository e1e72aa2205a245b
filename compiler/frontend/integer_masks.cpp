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
//   is |sign(x)| * a when y is x (x = 0 gives 0 = x), else y + |sign(x)| * (a - y) (the causal
//   mask's fill over the padding mask in a prefill); a NaN x gives NaN rather than a. fp16
//   programs write a finite a beyond fp16's range as its largest finite value
//   (isa::float_to_half_saturating), so 0 * a stays 0.
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

int masked_fills_as_products(Graph& g) {
  int made = 0;
  const std::size_t count = g.nodes.size();
  for (std::size_t i = 0; i < count; ++i) {
    const Node where = g.nodes[i];
    if (where.op_type != "Where" || !where.domain.empty() || where.inputs.size() != 3) continue;
    const int cast = producer_of(g, where.inputs[0], "Cast");
    if (cast < 0) continue;
    const Node& to_bool = g.nodes[static_cast<std::size_t>(cast)];
    const std::string x = to_bool.inputs[0], other = where.inputs[2];
    if (to_bool.get_int("to", 0) != kBool || !is_float_type(g.tensor(x).elem_type) ||
        !is_float_type(g.tensor(other).elem_type))
      continue;
    float fill = 0;
    if (!uniform_constant(g, where.inputs[1], fill) || !std::isfinite(fill)) continue;
    const Tensor& out = g.tensor(where.outputs[0]);
    const Tensor& y = g.tensor(other);
    if (!out.shape_known || !g.tensor(x).shape_known || !y.shape_known || g.tensor(x).shape != out.shape) continue;
    if (other != x && g.is_constant(other) && y.floats.empty()) continue;
    const int type = g.tensor(x).elem_type;
    const std::string sign = g.add_value(x + "_sign", type, out.shape);
    const std::string nonzero = g.add_value(x + "_nonzero", type, out.shape);
    g.nodes.push_back(g.derived_node("Sign", where, "_sign", {x}, {sign}));
    g.nodes.push_back(g.derived_node("Abs", where, "_nonzero", {sign}, {nonzero}));
    Node result = where;  // its name and output
    if (other == x) {  // x != 0 ? fill : x, and x = 0 there
      result.op_type = "Mul";
      result.inputs = {nonzero, where.inputs[1]};
    } else {  // other + [x != 0] * (fill - other)
      std::string step;
      if (g.is_constant(other)) {
        std::vector<float> d = y.floats;
        for (float& v : d) v = fill - v;
        step = g.unique_name(where.name + "_fill_step");
        g.add_constant(step, y.shape, std::move(d));
      } else {
        step = g.add_value(where.name + "_fill_step", type, y.shape);
        g.nodes.push_back(g.derived_node("Sub", where, "_fill_step", {where.inputs[1], other}, {step}));
      }
      const std::string jump = g.add_value(where.name + "_fill_jump", type, out.shape);
      g.nodes.push_back(g.derived_node("Mul", where, "_fill_jump", {nonzero, step}, {jump}));
      result.op_type = "Add";
      result.inputs = {other, jump};
    }
    g.nodes[i] = std::move(result);
    ++made;
  }
  if (made) g.sort_topologically();
  return made;
}

}  // namespace

bool has_integer_masks(const Graph& g) { return has_onnx_op(g, "Cast"); }

std::string float_masks_from_integers(Graph& g) {
  const int inputs = integer_inputs_to_float(g);
  const int fills = masked_fills_as_products(g);
  return std::to_string(inputs) + " integer input(s) only cast to float made float, " + std::to_string(fills) +
         " masked fill(s) as |sign(x)| * fill";
}

}  // namespace npu::compiler
