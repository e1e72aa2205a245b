#include <algorithm>
#include <cmath>

#include "compiler/float_evaluator.h"
#include "compiler/passes/passes.h"

namespace npu::compiler {
namespace {

// Large constant expressions (e.g. a weight transposed by a node) fold too; only the ops the
// FP32 evaluator knows are evaluated.
bool foldable(const Graph& g, const Node& n) {
  if (!evaluator_supports(n) || n.domain == "npusim") return false;
  if (n.op_type == "Shape") return g.tensor(n.inputs[0]).shape_known;
  for (const auto& in : n.inputs)
    if (!in.empty() && !g.is_constant(in)) return false;
  return !n.inputs.empty();
}

bool is_integer_type(int t) { return t == kInt64 || t == kInt32 || t == kInt8 || t == kUint8 || t == kBool; }

}  // namespace

std::string fold_constants(Graph& g) {
  int folded = 0;
  std::vector<Node> kept;
  for (auto& n : g.nodes) {
    if (!foldable(g, n)) {
      kept.push_back(n);
      continue;
    }
    std::vector<FloatTensor> args;
    args.reserve(n.inputs.size());
    std::vector<const FloatTensor*> ptrs;
    FloatTensor shape_only;
    for (const auto& in : n.inputs) {
      if (in.empty()) { args.emplace_back(); continue; }
      const Tensor& t = g.tensor(in);
      if (n.op_type == "Shape") {
        // Shape-15's start/end select a slice of the dims (negative counts from the end, clamped).
        auto rank = static_cast<std::int64_t>(t.shape.size());
        auto clamp = [&](std::int64_t v) { return std::min(std::max(v < 0 ? v + rank : v, std::int64_t{0}), rank); };
        std::int64_t start = clamp(n.get_int("start", 0)), end = clamp(n.get_int("end", rank));
        shape_only.shape.assign(t.shape.begin() + start, t.shape.begin() + std::max(start, end));
        args.push_back(shape_only);
      } else {
        args.push_back(constant_as_float(t));
      }
    }
    for (std::size_t i = 0; i < n.inputs.size(); ++i) ptrs.push_back(n.inputs[i].empty() ? nullptr : &args[i]);
    auto outs = evaluate_node(g, n, ptrs);
    for (std::size_t o = 0; o < outs.size() && o < n.outputs.size(); ++o) {
      Tensor& t = g.tensor(n.outputs[o]);
      int type = t.elem_type;
      if (n.op_type == "Shape") type = kInt64;
      if (n.op_type == "Cast") type = static_cast<int>(n.get_int("to", kFloat));
      if (type == kUndefined) type = g.tensor(n.inputs[0]).elem_type;
      t.elem_type = type;
      t.shape = outs[o].shape;
      t.shape_known = true;
      t.is_constant = true;
      t.floats.clear();
      t.ints.clear();
      if (is_integer_type(type)) {
        for (float v : outs[o].data) t.ints.push_back(static_cast<std::int64_t>(std::llround(v)));
      } else {
        t.floats = std::move(outs[o].data);
      }
    }
    ++folded;
  }
  g.nodes = std::move(kept);
  return "folded " + std::to_string(folded) + " constant nodes";
}

}  // namespace npu::compiler
