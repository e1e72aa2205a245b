// Rotary position embeddings as Hugging Face writes them, q * cos + rotate_half(q) * sin, with
//   rotate_half(x) = Concat(Neg(Slice(x, [h/2, h) of the last axis)), Slice(x, [0, h/2)), last axis)
// move their halves through four layers (two slices, a negation, a concat) that the NPU runs as
// DMA copies through DDR, a chain on the critical path of every decode step. The same values
// are x times a constant signed permutation R (h x h): out[i] = -x[i + h/2] below h/2 and
// x[i - h/2] above; one MatMul whose weights are 0 and +-1 (exact in fp16 and int8) and whose
// output stays on chip for the Mul by sin.
#include <algorithm>
#include <optional>

#include "compiler/core/node_parameters.h"
#include "compiler/frontend/passes.h"
#include "compiler/frontend/pattern_match.h"

namespace npu::compiler {
namespace {

using namespace patterns;

// The [begin, end) of the last axis a Slice takes of its input, or nullopt if it slices any
// other axis or steps.
std::optional<std::pair<std::int64_t, std::int64_t>> last_axis_range(const Graph& g, const Node& slice) {
  if (slice.op_type != "Slice" || !slice.domain.empty() || slice.inputs.empty()) return std::nullopt;
  const Tensor& x = g.tensor(slice.inputs[0]);
  if (!x.shape_known || x.shape.empty()) return std::nullopt;
  const auto rank = static_cast<std::int64_t>(x.shape.size());
  const std::int64_t h = x.shape.back();
  std::vector<std::int64_t> starts, ends, axes, steps;
  if (!parameter_ints(g, slice, "starts", starts) || !parameter_ints(g, slice, "ends", ends)) return std::nullopt;
  if (!parameter_ints(g, slice, "axes", axes)) axes = {rank - 1};
  if (parameter_ints(g, slice, "steps", steps) && (steps.size() != 1 || steps[0] != 1)) return std::nullopt;
  if (starts.size() != 1 || ends.size() != 1 || axes.size() != 1) return std::nullopt;
  if (axes[0] != rank - 1 && axes[0] != -1) return std::nullopt;
  auto clamp = [h](std::int64_t v) { return std::max<std::int64_t>(0, std::min(h, v < 0 ? v + h : v)); };
  return std::make_pair(clamp(starts[0]), clamp(ends[0]));
}

}  // namespace

bool has_negations(const Graph& g) { return has_onnx_op(g, "Neg"); }

std::string rotate_half_as_products(Graph& g) {
  int rewritten = 0;
  for (Node& concat : g.nodes) {
    if (concat.op_type != "Concat" || !concat.domain.empty() || concat.inputs.size() != 2) continue;
    const Tensor& y = g.tensor(concat.outputs[0]);
    if (!y.shape_known || y.shape.empty()) continue;
    const auto rank = static_cast<std::int64_t>(y.shape.size());
    const std::int64_t axis = concat.get_int("axis", 0);
    if (axis != rank - 1 && axis != -1) continue;
    const int neg = producer_of(g, concat.inputs[0], "Neg");
    const int lower = producer_of(g, concat.inputs[1], "Slice");
    if (neg < 0 || lower < 0) continue;
    const int upper = producer_of(g, g.nodes[static_cast<std::size_t>(neg)].inputs[0], "Slice");
    if (upper < 0) continue;
    const Node& up = g.nodes[static_cast<std::size_t>(upper)];
    const Node& low = g.nodes[static_cast<std::size_t>(lower)];
    const std::string x = low.inputs[0];
    if (up.inputs[0] != x || g.tensor(x).shape != y.shape || !is_float_type(g.tensor(x).elem_type)) continue;
    const std::int64_t h = y.shape.back();
    const auto lo = last_axis_range(g, low), hi = last_axis_range(g, up);
    if (h % 2 || !lo || !hi || *lo != std::make_pair<std::int64_t, std::int64_t>(0, h / 2) ||
        *hi != std::make_pair<std::int64_t, std::int64_t>(h / 2, std::int64_t{h}))
      continue;
    std::vector<float> rotation(static_cast<std::size_t>(h * h), 0.0f);
    for (std::int64_t i = 0; i < h / 2; ++i) {
      rotation[static_cast<std::size_t>((i + h / 2) * h + i)] = -1.0f;
      rotation[static_cast<std::size_t>(i * h + i + h / 2)] = 1.0f;
    }
    const std::string r = g.unique_name(concat.name + "_rotation");
    g.add_constant(r, {h, h}, std::move(rotation));
    Node product = concat;  // its name and output
    product.op_type = "MatMul";
    product.inputs = {x, r};
    product.attributes.clear();
    concat = std::move(product);
    ++rewritten;
  }
  return std::to_string(rewritten) + " rotate_half(x) as x times a signed permutation";
}

}  // namespace npu::compiler
