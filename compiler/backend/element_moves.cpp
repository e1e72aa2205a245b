// GatherElements and ScatterElements with constant indices (a feature extractor reflecting the
// end of its signal into the padding: Kaldi's front end once its length is given): every element
// goes to a place known at compile time, so the op is DMA boxes, one per run of elements
// consecutive in both tensors along the innermost axis. ScatterElements writes the data's
// elements no index names and the updates' elements where the indices say, each output element
// once (no box overlaps another, so the DMA's order does not matter).
#include "compiler/backend/element_moves.h"

#include <vector>

namespace npu::compiler {
namespace {

constexpr std::int64_t kMaxElementBoxes = 4096;
constexpr std::int64_t kMaxScatterElements = std::int64_t{1} << 24;  // the output's coverage mask

// A run of `length` elements along the innermost axis, from logical position `from` of the source
// to `to` of the destination.
struct ElementRun {
  std::vector<std::int64_t> from, to;
  std::int64_t length = 0;
};

struct ElementPlan {
  std::vector<ElementRun> runs;
  std::string rejection;
};

std::vector<std::int64_t> position(std::int64_t flat, const std::vector<std::int64_t>& shape) {
  std::vector<std::int64_t> p(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    p[d] = flat % shape[d];
    flat /= shape[d];
  }
  return p;
}

std::int64_t flat_index(const std::vector<std::int64_t>& p, const std::vector<std::int64_t>& shape) {
  std::int64_t f = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) f = f * shape[d] + p[d];
  return f;
}

// Appends `to`/`from` to the last run when both continue it along the innermost axis.
void add_element(std::vector<ElementRun>& runs, const std::vector<std::int64_t>& from, const std::vector<std::int64_t>& to) {
  if (!runs.empty()) {
    ElementRun& r = runs.back();
    std::vector<std::int64_t> next_from = r.from, next_to = r.to;
    next_from.back() += r.length;
    next_to.back() += r.length;
    if (next_from == from && next_to == to) {
      ++r.length;
      return;
    }
  }
  runs.push_back({from, to, 1});
}

ElementPlan plan(const Graph& g, const Node& n) {
  ElementPlan p;
  const bool scatter = n.op_type == "ScatterElements";
  if (n.inputs.size() < (scatter ? 3u : 2u) || !g.is_constant(n.inputs[1])) {
    p.rejection = "indices computed at run time (only constant indices are DMA boxes)";
    return p;
  }
  if (scatter && n.get_string("reduction", "none") != "none") {
    p.rejection = "reduction '" + n.get_string("reduction", "") + "' (only plain writes are DMA boxes)";
    return p;
  }
  const Tensor& data = g.tensor(n.inputs[0]);
  const Tensor& indices = g.tensor(n.inputs[1]);
  const auto rank = static_cast<std::int64_t>(data.shape.size());
  std::int64_t axis = n.get_int("axis", 0);
  if (axis < 0) axis += rank;
  if (!data.shape_known || rank == 0 || axis < 0 || axis >= rank || indices.shape.size() != data.shape.size() ||
      indices.ints.size() != static_cast<std::size_t>(indices.elements())) {
    p.rejection = "indices of another rank than the data, or an axis out of range";
    return p;
  }
  const std::int64_t extent = data.shape[static_cast<std::size_t>(axis)];
  std::vector<char> covered;
  if (scatter) {
    if (data.elements() > kMaxScatterElements) {
      p.rejection = "a scatter into more than 2^24 elements";
      return p;
    }
    covered.assign(static_cast<std::size_t>(data.elements()), 0);
  }
  std::vector<ElementRun> updates;
  for (std::int64_t i = 0; i < indices.elements(); ++i) {
    std::vector<std::int64_t> at = position(i, indices.shape), target = at;
    std::int64_t index = indices.ints[static_cast<std::size_t>(i)];
    if (index < 0) index += extent;
    if (index < 0 || index >= extent) {
      p.rejection = "index " + std::to_string(indices.ints[static_cast<std::size_t>(i)]) + " out of range on axis " +
                    std::to_string(axis);
      return p;
    }
    target[static_cast<std::size_t>(axis)] = index;
    for (std::size_t d = 0; d < target.size(); ++d)
      if (target[d] >= data.shape[d]) {
        p.rejection = "indices larger than the data off the axis";
        return p;
      }
    if (scatter) {
      char& c = covered[static_cast<std::size_t>(flat_index(target, data.shape))];
      if (c) {
        p.rejection = "two updates of one element (their order is undefined)";
        return p;
      }
      c = 1;
      add_element(updates, at, target);  // from the updates, to the output
    } else {
      add_element(p.runs, target, at);  // from the data, to the output
    }
  }
  if (scatter) {
    // The data's elements no update replaces, then the updates (input 2).
    for (std::int64_t f = 0; f < data.elements(); ++f)
      if (!covered[static_cast<std::size_t>(f)]) {
        const auto at = position(f, data.shape);
        add_element(p.runs, at, at);
      }
    for (auto& r : updates) r.length = -r.length;  // marks the source as the updates
    p.runs.insert(p.runs.end(), updates.begin(), updates.end());
  }
  if (static_cast<std::int64_t>(p.runs.size()) > kMaxElementBoxes)
    p.rejection = std::to_string(p.runs.size()) + " runs of elements (one DMA box each; at most " +
                  std::to_string(kMaxElementBoxes) + ")";
  return p;
}

std::int64_t offset(const std::vector<std::int64_t>& at, const std::vector<std::int64_t>& strides) {
  std::int64_t o = 0;
  for (std::size_t d = 0; d < at.size(); ++d) o += at[d] * strides[d];
  return o;
}

}  // namespace

bool is_element_move(const Node& n) {
  return n.domain.empty() && (n.op_type == "GatherElements" || n.op_type == "ScatterElements");
}

std::string element_move_rejection(const Graph& g, const Node& n) { return plan(g, n).rejection; }

std::vector<MoveBox> element_move_boxes(CodegenContext& ctx, const Node& n, const QuantParams& q) {
  const ElementPlan p = plan(ctx.graph, n);
  if (!p.rejection.empty()) throw CompileError(ctx.graph.source + ": layer '" + n.name + "': internal: " + p.rejection);
  const DdrTensor& y = ctx.tensor(n.outputs[0]);
  const bool scatter = n.op_type == "ScatterElements";
  auto operand = [&](const std::string& name) -> const DdrTensor& {
    return ctx.graph.is_constant(name) ? ctx.constant(name, q) : ctx.tensor(name);
  };
  const DdrTensor& data = operand(n.inputs[0]);
  const DdrTensor* updates = scatter ? &operand(n.inputs[2]) : nullptr;
  std::vector<MoveBox> boxes;
  for (const ElementRun& r : p.runs) {
    const DdrTensor& src = r.length < 0 ? *updates : data;
    MoveBox b;
    b.src_addr = src.addr + static_cast<std::uint64_t>(offset(r.from, src.strides) * src.elem);
    b.dst_addr = y.addr + static_cast<std::uint64_t>(offset(r.to, y.strides) * y.elem);
    b.dims.push_back({r.length < 0 ? -r.length : r.length, src.strides.back(), y.strides.back()});
    boxes.push_back(b);
  }
  return boxes;
}

}  // namespace npu::compiler
