#include "compiler/quant/qdq_import.h"

#include <algorithm>
#include <optional>
#include <set>

#include "compiler/core/compile_options.h"
#include "compiler/frontend/pattern_match.h"

namespace npu::compiler {
namespace {

constexpr int kOnnxUint8 = 2, kOnnxInt8 = 3, kOnnxUint16 = 4, kOnnxInt16 = 5, kOnnxInt32 = 6;  // onnx::TensorProto_DataType

struct Params {
  std::vector<float> scales;
  std::vector<std::int64_t> zero_points;
  int elem_type = kOnnxUint8;
};

// Constant 8-bit parameters, or nothing: the node then stays as it is (a dynamic quantisation,
// 16-bit or 4-bit QDQ), for the CPU. `constant_data`: the DequantizeLinear of a constant, where
// 16- and 32-bit integers (quantize_static's int32 biases) dequantise exactly too.
std::optional<Params> params_of(const Graph& g, const Node& n, bool constant_data = false) {
  if (n.inputs.size() < 2 || !g.is_constant(n.inputs[1])) return std::nullopt;
  Params p;
  p.scales = g.tensor(n.inputs[1]).floats;
  if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
    if (!g.is_constant(n.inputs[2])) return std::nullopt;
    const Tensor& z = g.tensor(n.inputs[2]);
    p.zero_points = z.ints;
    p.elem_type = z.elem_type;
  }
  if (p.zero_points.empty()) p.zero_points.assign(p.scales.size(), 0);
  if (constant_data && !n.inputs.empty()) p.elem_type = g.tensor(n.inputs[0]).elem_type;
  const bool wide = constant_data && (p.elem_type == kOnnxInt32 || p.elem_type == kOnnxInt16 || p.elem_type == kOnnxUint16);
  if (p.elem_type != kOnnxUint8 && p.elem_type != kOnnxInt8 && !wide) return std::nullopt;
  if (p.scales.empty() || p.zero_points.size() != p.scales.size()) return std::nullopt;
  return p;
}

// The float constant DequantizeLinear(q) makes of an integer constant q.
std::vector<float> dequantized(const Graph& g, const Node& n, const Tensor& q, const Params& p) {
  std::vector<float> out(q.ints.size());
  if (p.scales.size() == 1) {
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = p.scales[0] * static_cast<float>(q.ints[i] - p.zero_points[0]);
    return out;
  }
  std::int64_t axis = n.get_int("axis", 1);
  const auto rank = static_cast<std::int64_t>(q.shape.size());
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank || q.shape[axis] != static_cast<std::int64_t>(p.scales.size()))
    throw CompileError(g.source + ": node '" + n.name + "' (DequantizeLinear): " + std::to_string(p.scales.size()) +
                       " scales do not fit axis " + std::to_string(axis) + " of " + shape_string(q.shape));
  std::int64_t inner = 1;
  for (std::int64_t d = axis + 1; d < rank; ++d) inner *= q.shape[d];
  const auto channels = q.shape[axis];
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto c = static_cast<std::size_t>((static_cast<std::int64_t>(i) / inner) % channels);
    out[i] = p.scales[c] * static_cast<float>(q.ints[i] - p.zero_points[c]);
  }
  return out;
}

// The real range an 8-bit grid of one scale and zero point covers.
std::pair<float, float> pair_range(const Params& p) {
  const double qmin = p.elem_type == kOnnxUint8 ? 0.0 : -128.0, qmax = qmin + 255.0;
  const double s = p.scales[0], zp = static_cast<double>(p.zero_points[0]);
  return {static_cast<float>(s * (qmin - zp)), static_cast<float>(s * (qmax - zp))};
}

void rename_uses(Graph& g, const std::string& from, const std::string& to) {
  for (auto& n : g.nodes)
    for (auto& v : n.inputs)
      if (v == from) v = to;
}

// QuantizeLinear(DequantizeLinear(q)) on the same parameters is q. A graph output so written,
// where q is a QuantizeLinear's output read by nothing else, comes from that QuantizeLinear
// itself (TFLite's full-integer outputs: the last tensor's QDQ pair, then the output's
// conversion; after a QUANTIZE onto another grid, the output's conversion requantises).
int fold_output_round_trips(Graph& g) {
  auto only_reader = [&](const std::string& v, int node) {
    const auto readers = g.consumers(v);
    return !g.is_graph_output(v) && readers.size() == 1 && readers[0] == node;
  };
  std::set<int> drop;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.op_type != "QuantizeLinear" || !n.domain.empty() || n.outputs.size() != 1 || !g.is_graph_output(n.outputs[0]) ||
        !g.consumers(n.outputs[0]).empty())
      continue;
    const int d = g.producer(n.inputs[0]);
    if (d < 0 || g.nodes[d].op_type != "DequantizeLinear" || !g.nodes[d].domain.empty() || !only_reader(n.inputs[0], static_cast<int>(i)))
      continue;
    const Node& dq = g.nodes[d];
    const int q = g.producer(dq.inputs[0]);
    if (q < 0 || g.nodes[q].op_type != "QuantizeLinear" || !g.nodes[q].domain.empty() || !only_reader(dq.inputs[0], d)) continue;
    const auto a = params_of(g, n), b = params_of(g, dq);
    if (!a || !b || a->scales != b->scales || a->zero_points != b->zero_points || a->elem_type != b->elem_type) continue;
    g.nodes[q].outputs[0] = n.outputs[0];
    drop.insert({static_cast<int>(i), d});
  }
  patterns::erase_nodes(g, drop);
  return static_cast<int>(drop.size() / 2);
}

}  // namespace

std::string import_qdq(Graph& g) {
  const int round_trips = fold_output_round_trips(g);
  int weights = 0, pairs = 0;
  std::vector<bool> drop(g.nodes.size(), false);
  // The integer boundary of a model with int8 inputs or outputs (TFLite's full-integer models):
  // the dequantised input and the value quantised for output take the file's parameters where
  // no pair gave them others (then the conversion is a requantisation: integer_boundary.h); the
  // conversion itself stays.
  std::vector<std::pair<std::string, Params>> boundary;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    Node& n = g.nodes[i];
    if (!n.domain.empty() && n.domain != "ai.onnx") continue;
    if (n.op_type == "DequantizeLinear" && g.is_constant(n.inputs[0])) {
      const auto p = params_of(g, n, true);
      if (!p || g.tensor(n.inputs[0]).ints.empty()) continue;
      const Tensor q = g.tensor(n.inputs[0]);
      g.add_constant(n.outputs[0], q.shape, dequantized(g, n, q, *p));
      drop[i] = true;
      ++weights;
      continue;
    }
    if (n.op_type == "DequantizeLinear" && std::find(g.inputs.begin(), g.inputs.end(), n.inputs[0]) != g.inputs.end()) {
      if (const auto p = params_of(g, n); p && p->scales.size() == 1) boundary.emplace_back(n.outputs[0], *p);
      continue;
    }
    if (n.op_type != "QuantizeLinear") continue;
    const auto params = params_of(g, n);
    if (!params || params->scales.size() != 1) continue;  // per-axis activations: the NPU's are per tensor
    const Params& p = *params;
    const std::string x = n.inputs[0], y = n.outputs[0];
    const auto readers = g.consumers(y);
    if (g.is_graph_output(y) && readers.empty()) {
      boundary.emplace_back(x, p);
      continue;
    }
    bool pairs_only = !readers.empty() && !g.is_graph_output(y);
    for (int r : readers) {
      const Node& dq = g.nodes[r];
      pairs_only &= dq.op_type == "DequantizeLinear" && dq.inputs.size() >= 2 && dq.inputs[1] == n.inputs[1] &&
                    (dq.inputs.size() > 2 ? dq.inputs[2] : "") == (n.inputs.size() > 2 ? n.inputs[2] : "");
    }
    if (!pairs_only) continue;  // the int8 value itself is used: not a QDQ pair
    const std::pair<float, float> range = pair_range(p);
    auto [it, fresh] = g.qdq_ranges.try_emplace(x, range);
    if (!fresh) it->second = {std::min(it->second.first, range.first), std::max(it->second.second, range.second)};
    drop[i] = true;
    for (int r : readers) {
      Node& dq = g.nodes[r];
      drop[r] = true;
      const std::string z = dq.outputs[0];
      if (g.is_graph_output(z)) {  // keep the output's name: z = Identity(x)
        dq.op_type = "Identity";
        dq.inputs = {x};
        drop[r] = false;
      } else {
        rename_uses(g, z, x);
      }
    }
    ++pairs;
  }
  for (const auto& [value, p] : boundary) g.qdq_ranges.try_emplace(value, pair_range(p));
  // An Identity (a float graph output of a value in a pair) holds the same values: calibration's
  // unclamped range of its copy would widen the value's own (they share parameters).
  for (const auto& n : g.nodes)
    if (n.op_type == "Identity" && n.domain.empty() && n.inputs.size() == 1 && n.outputs.size() == 1) {
      const auto r = g.qdq_ranges.find(n.inputs[0]);
      if (r != g.qdq_ranges.end()) g.qdq_ranges.try_emplace(n.outputs[0], r->second);
    }
  if (!weights && !pairs && !round_trips) return "";
  std::vector<Node> kept;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    if (!drop[i]) kept.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(kept);
  return std::to_string(pairs) + " activation QDQ pairs -> fixed ranges, " + std::to_string(weights) +
         " dequantized constants" +
         (round_trips ? ", " + std::to_string(round_trips) + " output DequantizeLinear -> QuantizeLinear round trips dropped" : "");
}

}  // namespace npu::compiler
