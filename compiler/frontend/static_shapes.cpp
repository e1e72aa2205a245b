// The static-shape front end: once input shapes are fixed, shape inference, constant folding,
// parameter canonicalisation and no-op removal repeat until nothing changes, so the subgraphs
// that compute shapes (Shape -> Gather -> Unsqueeze -> Concat -> Reshape, Range/Expand anchors,
// masks built with ScatterND) fold away and every parameter is an attribute.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>

#include "compiler/core/node_parameters.h"
#include "compiler/frontend/passes.h"
#include "compiler/frontend/shape_inference.h"

namespace npu::compiler {
namespace {

constexpr int kMaxSweeps = 64;

void make_identity(Node& n) {
  n.op_type = "Identity";
  n.inputs.resize(1);
  n.attributes.clear();
  n.outputs.resize(1);
}

bool all_ones(const std::vector<std::int64_t>& v) {
  return std::all_of(v.begin(), v.end(), [](std::int64_t x) { return x == 1; });
}

// A node that returns its input unchanged, now that shapes and parameters are known.
bool is_noop(const Graph& g, const Node& n) {
  if (!n.domain.empty() || n.inputs.empty() || n.inputs[0].empty() || n.outputs.size() != 1) return false;
  const std::string& op = n.op_type;
  const Tensor& x = g.tensor(n.inputs[0]);
  const Tensor& y = g.tensor(n.outputs[0]);
  if (!x.shape_known || !y.shape_known || x.shape != y.shape || x.elem_type != y.elem_type) return false;
  auto only_data_input = [&] {
    for (std::size_t i = 1; i < n.inputs.size(); ++i)
      if (!n.inputs[i].empty()) return false;
    return true;
  };
  if (op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze" || op == "Expand")
    return only_data_input();
  if (op == "Cast" || op == "CastLike") return true;
  if (op == "Concat" || op == "Split" || op == "Sum" || op == "Max" || op == "Min" || op == "Mean") return n.inputs.size() == 1;
  if (op == "Transpose") {
    auto perm = n.get_ints("perm");
    for (std::size_t d = 0; d < perm.size(); ++d)
      if (perm[d] != static_cast<std::int64_t>(d)) return false;
    return !perm.empty();
  }
  if (op == "Slice") {
    std::vector<std::int64_t> steps;
    return only_data_input() && (!parameter_ints(g, n, "steps", steps) || all_ones(steps));
  }
  if (op == "Tile") return only_data_input();
  if (op == "Pad") {
    auto pads = n.get_ints("pads");
    return only_data_input() && std::all_of(pads.begin(), pads.end(), [](std::int64_t p) { return p == 0; });
  }
  if (op == "Resize" || op == "Upsample") return only_data_input();
  return false;
}

// Why `n` leaves output `out` without a static shape although its inputs have one.
std::string dynamic_reason(const Graph& g, const Node& n) {
  static const std::set<std::string> data_dependent = {"NonZero", "Unique", "Compress", "NonMaxSuppression", "Loop",
                                                       "If", "Scan", "StringSplit", "TfIdfVectorizer"};
  if (data_dependent.count(n.op_type)) return "its output size depends on the input values";
  for (std::size_t i = 1; i < n.inputs.size(); ++i) {
    const std::string& in = n.inputs[i];
    if (!in.empty() && !g.is_constant(in))
      return "its input " + std::to_string(i) + " ('" + in + "') is computed at run time, not from shapes";
  }
  if (!n.domain.empty()) return "domain '" + n.domain + "' has no shape rule";
  return "no shape rule gives its output shape";
}

}  // namespace

std::vector<DynamicShape> find_dynamic_shapes(const Graph& g) {
  std::vector<DynamicShape> found;
  std::map<std::string, std::size_t> origin_of;  // unknown tensor -> index into found
  for (const auto& n : g.nodes) {
    std::size_t origin = SIZE_MAX;
    for (const auto& in : n.inputs) {
      if (in.empty()) continue;
      auto it = origin_of.find(in);
      if (it != origin_of.end()) {
        origin = it->second;
        break;
      }
      const Tensor& t = g.tensor(in);
      if (!t.shape_known && !t.is_constant) {
        found.push_back({in, "", "", "it has no static shape (a graph input or an outer-scope value)"});
        origin = origin_of[in] = found.size() - 1;
        break;
      }
    }
    for (const auto& out : n.outputs) {
      if (out.empty() || g.tensor(out).shape_known) continue;
      if (origin == SIZE_MAX) {
        found.push_back({out, n.name, n.op_type, dynamic_reason(g, n)});
        origin = found.size() - 1;
      }
      origin_of[out] = origin;
    }
  }
  return found;
}

std::string describe(const DynamicShape& d, const std::string& source) {
  if (d.node.empty()) return source + ": tensor '" + d.tensor + "' has a dynamic shape: " + d.reason;
  return source + ": tensor '" + d.tensor + "' has a dynamic shape after folding: node '" + d.node + "' (" + d.op +
         ") makes it dynamic: " + d.reason;
}

std::string fold_static_shapes(Graph& g) {
  int folded = 0, moved = 0, noops = 0, sweeps = 0, branches = 0, unrolled = 0;
  for (; sweeps < kMaxSweeps; ++sweeps) {
    int changed = infer_shapes(g);
    std::size_t before = g.nodes.size();
    fold_constants(g);
    changed += static_cast<int>(before - g.nodes.size());
    folded += static_cast<int>(before - g.nodes.size());
    const int ifs = fold_known_ifs(g), loops = unroll_static_loops(g);
    branches += ifs;
    unrolled += loops;
    changed += ifs + loops;
    for (auto& n : g.nodes) {
      int m = parameters_to_attributes(g, n);
      moved += m;
      changed += m;
      if (n.op_type != "Identity" && is_noop(g, n)) {
        make_identity(n);
        ++noops;
        ++changed;
      }
    }
    if (!changed) break;
  }
  auto dynamic = find_dynamic_shapes(g);
  std::string detail = "folded " + std::to_string(folded) + " nodes, " + std::to_string(moved) +
                       " parameters to attributes, " + std::to_string(noops) + " no-ops, " + std::to_string(branches) +
                       " If nodes inlined, " + std::to_string(unrolled) +
                       " Loop/Scan nodes unrolled, " + std::to_string(sweeps + 1) + " sweeps";
  if (!dynamic.empty())
    detail += "; " + std::to_string(dynamic.size()) + " dynamic shape origin(s), first '" + dynamic[0].tensor + "'" +
              (dynamic[0].node.empty() ? "" : " from node '" + dynamic[0].node + "'");
  return detail;
}

}  // namespace npu::compiler
