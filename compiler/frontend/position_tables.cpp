// Values computed from an integer input position by position, as transformers (4.38 and later)
// computes rotary embeddings: cos/sin(Concat(inv_freq x Cast(position_ids, float))). On the NPU
// those are float ops on an integer input: int8 would quantise the angles (up to thousands of
// radians) with the range of its calibration samples, fp16 rounds an angle of 2048 rad to 2 rad.
// Earlier transformers versions Gathered rows of cos/sin tables by position_ids; this pass
// restores that form for any such value: a float value Y whose leading axes are the input p's
// and whose row Y[t] is a function of p[t] alone becomes Gather(table, p), the table holding
// f(0), ..., f(N - 1) as the FP32 evaluator computes them from the graph's own ops. The row
// gather is exact in fp16 and int8 calibrates the table's own range; a position outside the
// table is a run-time error naming the Gather (the row gather's bound check).
// Found by evaluation, not by pattern: the region of nodes reading only p and constants is run on
// p = 0, 1, ... (chunks of p's size) to fill the tables, then once more on scrambled positions;
// a value whose rows do not then match its table's (it mixes positions) is left alone. Only
// values past a Cos or a Sin: their p is a position or a time step, never negative.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "compiler/core/npu_ops.h"
#include "compiler/frontend/passes.h"
#include "compiler/frontend/pattern_match.h"
#include "compiler/reference/float_evaluator.h"

namespace npu::compiler {
namespace {

using namespace patterns;

constexpr std::int64_t kMinTableRows = 4096;
constexpr std::int64_t kMaxTableBytes = std::int64_t{64} << 20;  // FP32, per table
constexpr double kMaxTableWork = 2e8;  // element operations to fill the tables (~0.2 s)

// Rows of every position table: positions 0 .. N-1 with N the smallest power of two of at least
// kMinTableRows and every graph input's dims (a static export's K/V length bounds its positions).
std::int64_t table_rows(const Graph& g) {
  std::int64_t longest = kMinTableRows;
  for (const auto& in : g.inputs) {
    const Tensor& t = g.tensor(in);
    if (t.shape_known)
      for (auto d : t.shape) longest = std::max(longest, d);
  }
  std::int64_t n = 1;
  while (n < longest) n *= 2;
  return n;
}

struct Region {
  std::vector<int> nodes;              // topological order
  std::set<std::string> values;        // computed from p and constants only (p included)
  std::set<std::string> computed;      // of those, the ones past an op that is not a Cast or a move
  std::set<std::string> periodic;      // of those, the ones past a Cos or a Sin
};

Region region_of(const Graph& g, const std::string& p) {
  Region r;
  r.values.insert(p);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (!n.domain.empty() || n.outputs.empty() || !evaluator_supports(n)) continue;
    bool reads_p = false, other = false, computed = false, periodic = n.op_type == "Cos" || n.op_type == "Sin";
    for (const std::string& v : n.inputs) {
      if (v.empty() || g.is_constant(v)) continue;
      if (!r.values.count(v)) {
        other = true;
        break;
      }
      reads_p = true;
      computed = computed || r.computed.count(v);
      periodic = periodic || r.periodic.count(v);
    }
    if (!reads_p || other) continue;
    const bool moves = n.op_type == "Cast" || rearranges_values(n.op_type);
    // Integer values only move or become float: a comparison of ids (a one-hot Equal(ids, iota),
    // one_hot_gather.cpp's) or integer arithmetic is no function of a position's float value.
    bool integer_read = false;
    for (const auto& v : n.inputs)
      if (!v.empty() && !g.is_constant(v) && !is_float_type(g.tensor(v).elem_type)) integer_read = true;
    if (integer_read && !moves) continue;
    r.nodes.push_back(static_cast<int>(i));
    for (const auto& out : n.outputs) {
      r.values.insert(out);
      if (computed || !moves) r.computed.insert(out);
      if (periodic) r.periodic.insert(out);
    }
  }
  return r;
}

// The region's values for one value of p.
TensorMap run_region(const Graph& g, const Region& r, const std::string& p, FloatTensor positions,
                     const TensorMap& constants) {
  TensorMap values;
  values[p] = std::move(positions);
  for (int i : r.nodes) {
    const Node& n = g.nodes[static_cast<std::size_t>(i)];
    std::vector<const FloatTensor*> in;
    for (const auto& v : n.inputs) {
      if (v.empty()) in.push_back(nullptr);
      else if (auto it = values.find(v); it != values.end()) in.push_back(&it->second);
      else in.push_back(&constants.at(v));
    }
    auto outs = evaluate_node(g, n, in);
    for (std::size_t k = 0; k < outs.size() && k < n.outputs.size(); ++k) values[n.outputs[k]] = std::move(outs[k]);
  }
  return values;
}

bool rows_match(const FloatTensor& y, const std::vector<float>& table, const std::vector<float>& positions,
                std::int64_t row) {
  for (std::size_t t = 0; t < positions.size(); ++t)
    for (std::int64_t k = 0; k < row; ++k) {
      const float a = y.data[t * static_cast<std::size_t>(row) + static_cast<std::size_t>(k)];
      const float b = table[static_cast<std::size_t>(positions[t]) * static_cast<std::size_t>(row) + static_cast<std::size_t>(k)];
      if (std::isnan(a) != std::isnan(b) || std::abs(a - b) > 1e-5f * (1.0f + std::abs(b))) return false;
    }
  return true;
}

int tabulate(Graph& g, const std::string& p, std::int64_t rows) {
  const Tensor& input = g.tensor(p);
  if (!input.shape_known || input.shape.empty()) return 0;
  const std::vector<std::int64_t> p_shape = input.shape;
  std::int64_t n = 1;
  for (auto d : p_shape) n *= d;
  if (n <= 0) return 0;
  const Region r = region_of(g, p);
  // Y: computed, float, p's shape leading its own; a table where such values end (a graph output,
  // or read by a node making anything else: a value of another shape, or outside the region).
  // Only values past a Cos or Sin: an integer input those read is a position or a time step,
  // never negative, so the table's rows 0 .. N-1 are its domain (a negative value would Gather a
  // row from the table's end, ONNX's wrap-around, and a silent wrong value for any other input).
  auto tabulable = [&](const std::string& v) {
    if (!r.computed.count(v) || !r.periodic.count(v)) return false;
    const Tensor& t = g.tensor(v);
    return t.shape_known && is_float_type(t.elem_type) && t.shape.size() >= p_shape.size() &&
           std::equal(p_shape.begin(), p_shape.end(), t.shape.begin());
  };
  std::vector<std::string> targets;
  for (const auto& v : r.values) {
    if (!tabulable(v)) continue;
    bool ends = g.is_graph_output(v);
    for (int c : g.consumers(v))
      for (const auto& out : g.nodes[static_cast<std::size_t>(c)].outputs)
        if (!tabulable(out)) ends = true;
    if (ends) targets.push_back(v);
  }
  if (targets.empty()) return 0;
  // The tables cost rows / n runs of the region: not for a region of large products (an
  // embedding as a one-hot MatMul, which one_hot_gather.cpp turns into a Gather instead).
  double work = 0;
  for (int i : r.nodes) {
    const Node& node = g.nodes[static_cast<std::size_t>(i)];
    for (const auto& out : node.outputs) {
      const Tensor& t = g.tensor(out);
      if (!t.shape_known) return 0;
      double elements = 1;
      for (auto d : t.shape) elements *= static_cast<double>(d);
      const Tensor& a = g.tensor(node.inputs[0]);
      const bool product = node.op_type == "MatMul" || node.op_type == "Gemm" || node.op_type == "Conv";
      work += elements * (product && a.shape_known && !a.shape.empty() ? static_cast<double>(a.shape.back()) : 1.0);
    }
  }
  if (work * static_cast<double>((rows + n - 1) / n) > kMaxTableWork) return 0;
  std::map<std::string, std::vector<float>> tables;  // rows x each row's elements
  for (const auto& v : targets) {
    std::int64_t row = 1;
    const auto& s = g.tensor(v).shape;
    for (std::size_t k = p_shape.size(); k < s.size(); ++k) row *= s[k];
    if (rows * row * 4 > kMaxTableBytes) continue;
    tables[v].assign(static_cast<std::size_t>(rows * row), 0.0f);
  }
  if (tables.empty()) return 0;
  auto row_of = [&](const std::vector<float>& table) { return static_cast<std::int64_t>(table.size()) / rows; };
  // The region's own constants in FP32, not the model's weights.
  TensorMap constants;
  for (int i : r.nodes)
    for (const auto& v : g.nodes[static_cast<std::size_t>(i)].inputs)
      if (!v.empty() && g.is_constant(v) && !constants.count(v)) constants[v] = constant_as_float(g.tensor(v));
  try {
    for (std::int64_t first = 0; first < rows; first += n) {
      FloatTensor positions;
      positions.shape = p_shape;
      positions.data.resize(static_cast<std::size_t>(n));
      for (std::int64_t t = 0; t < n; ++t) positions.data[static_cast<std::size_t>(t)] = static_cast<float>(std::min(first + t, rows - 1));
      const TensorMap values = run_region(g, r, p, positions, constants);
      for (auto& [v, table] : tables) {
        const FloatTensor& y = values.at(v);
        const std::int64_t row = row_of(table);
        for (std::int64_t t = 0; t < n && first + t < rows; ++t)
          std::copy_n(y.data.begin() + t * row, row, table.begin() + (first + t) * row);
      }
    }
    // Positions out of order and repeated: a value mixing positions (a cumulative sum, a
    // reduction over p's axes) no longer matches its table.
    FloatTensor scrambled;
    scrambled.shape = p_shape;
    for (std::int64_t t = 0; t < n; ++t) scrambled.data.push_back(static_cast<float>((t * 7919 + 13 + n / 2 * 101) % rows));
    if (n > 1) scrambled.data[0] = scrambled.data[static_cast<std::size_t>(n - 1)];
    const TensorMap values = run_region(g, r, p, scrambled, constants);
    for (auto it = tables.begin(); it != tables.end();)
      it = rows_match(values.at(it->first), it->second, scrambled.data, row_of(it->second)) ? std::next(it) : tables.erase(it);
  } catch (const CompileError&) {
    return 0;  // a node the evaluator refuses on these values: the region stays as it is
  }
  int made = 0;
  for (auto& [v, table] : tables) {
    const int producer = g.producer(v);
    if (producer < 0) continue;
    const Node from = g.nodes[static_cast<std::size_t>(producer)];
    std::vector<std::int64_t> shape = {rows};
    const auto& s = g.tensor(v).shape;
    shape.insert(shape.end(), s.begin() + static_cast<std::ptrdiff_t>(p_shape.size()), s.end());
    const std::string name = g.unique_name(v + "_position_table");
    g.add_constant(name, shape, std::move(table));
    Node gather = g.derived_node("Gather", from, "_position_table", {name, p}, {v});
    gather.attributes.clear();
    // The producer may make other outputs: it stays for them, its output `v` renamed away.
    if (from.outputs.size() == 1) {
      g.nodes[static_cast<std::size_t>(producer)] = std::move(gather);
    } else {
      Node& old = g.nodes[static_cast<std::size_t>(producer)];
      for (auto& out : old.outputs)
        if (out == v) out = g.add_value(v + "_unused", g.tensor(v).elem_type, g.tensor(v).shape);
      g.nodes.push_back(std::move(gather));
    }
    ++made;
  }
  if (made) g.sort_topologically();
  return made;
}

}  // namespace

bool has_position_functions(const Graph& g) {
  for (const auto& in : g.inputs) {
    const int t = g.tensor(in).elem_type;
    if (t == kInt64 || t == kInt32) return has_onnx_op(g, "Cast");
  }
  return false;
}

std::string position_functions_as_tables(Graph& g) {
  // A Loop's, If's or Scan's body may read a graph input by name without consumers() seeing it.
  for (const Node& n : g.nodes)
    if (n.op_type == "Loop" || n.op_type == "If" || n.op_type == "Scan") return "none (control flow in the graph)";
  const std::int64_t rows = table_rows(g);
  int made = 0;
  const std::vector<std::string> inputs = g.inputs;
  for (const auto& in : inputs) {
    const int t = g.tensor(in).elem_type;
    if (t == kInt64 || t == kInt32) made += tabulate(g, in, rows);
  }
  return std::to_string(made) + " value(s) of an integer input's positions as Gathers of " + std::to_string(rows) +
         "-row tables";
}

}  // namespace npu::compiler
