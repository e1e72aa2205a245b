// A causal mask as transformers' GPT-2 writes it, Where(causal, scores, float32's lowest) with
// a constant bool condition, followed by the padding mask's Add: in an int8 program the Where's
// output keeps fp16 (a fill has no int8 code) and only a softmax can read that, so each such
// Where and what reads it ran on the CPU (a third of GPT-2's prefill on the NPU). The same values
// are scores + M with M = 0 where the condition holds and the fill elsewhere: exact in FP32 for
// any score below 1e31 in magnitude (the fill absorbs it), and an Add of a mask the int8 path
// quantises (quantize.cpp: a sum of scores and masks read by a softmax spans the scores).
// Run for int8 programs only: fp16 programs keep the Where's exact multiply-add.
#include <cmath>

#include "compiler/core/npu_ops.h"
#include "compiler/frontend/passes.h"
#include "compiler/frontend/pattern_match.h"

namespace npu::compiler {

bool has_constant_masks(const Graph& g) {
  for (const Node& n : g.nodes)
    if (n.op_type == "Where" && n.domain.empty() && n.inputs.size() == 3 && g.is_constant(n.inputs[0])) return true;
  return false;
}

std::string constant_masks_as_sums(Graph& g) {
  int made = 0;
  for (Node& n : g.nodes) {
    if (n.op_type != "Where" || !n.domain.empty() || n.inputs.size() != 3 || !g.is_constant(n.inputs[0])) continue;
    const Tensor& cond = g.tensor(n.inputs[0]);
    const Tensor& out = g.tensor(n.outputs[0]);
    const std::vector<float> holds = patterns::constant_values(cond);
    if (!cond.shape_known || !out.shape_known || !patterns::is_float_type(out.elem_type) || holds.empty()) continue;
    // Which operand is the fill: Where(c, x, fill) keeps x where c holds, Where(c, fill, x) the fill.
    float fill = 0;
    std::size_t data = 0;
    bool fill_where_true = false;
    if (patterns::uniform_constant(g, n.inputs[2], fill) && !g.is_constant(n.inputs[1])) {
      data = 1;
    } else if (patterns::uniform_constant(g, n.inputs[1], fill) && !g.is_constant(n.inputs[2])) {
      data = 2;
      fill_where_true = true;
    } else {
      continue;
    }
    if (!std::isfinite(fill) || std::abs(fill) < kMaskFillMagnitude) continue;
    const std::string& x = n.inputs[data];
    if (g.tensor(x).shape != out.shape) continue;  // the mask broadcasts over the scores, not the reverse
    std::vector<float> mask(holds.size());
    for (std::size_t i = 0; i < mask.size(); ++i) mask[i] = (holds[i] != 0.0f) == fill_where_true ? fill : 0.0f;
    const std::string m = g.unique_name(n.name + "_mask");
    g.add_constant(m, cond.shape, std::move(mask));
    n.op_type = "Add";
    n.inputs = {x, m};
    n.attributes.clear();
    ++made;
  }
  return std::to_string(made) + " Where(constant condition, x, fill) as x + a constant mask";
}

}  // namespace npu::compiler
