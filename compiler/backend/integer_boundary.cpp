#include "compiler/backend/integer_boundary.h"

#include <algorithm>
#include <cmath>

namespace npu::compiler {
namespace {

bool is_graph_input(const Graph& g, const std::string& v) { return std::find(g.inputs.begin(), g.inputs.end(), v) != g.inputs.end(); }

// The per-tensor int8 scale and zero point of a Quantize/DequantizeLinear, if constant.
bool int8_params(const Graph& g, const Node& n, float& scale, std::int32_t& zero_point) {
  if (n.inputs.size() < 2 || !g.is_constant(n.inputs[1])) return false;
  const Tensor& s = g.tensor(n.inputs[1]);
  if (s.floats.size() != 1 || !(s.floats[0] > 0.0f)) return false;
  zero_point = 0;
  if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
    if (!g.is_constant(n.inputs[2])) return false;
    const Tensor& z = g.tensor(n.inputs[2]);
    if (z.elem_type != kInt8 || z.ints.size() != 1) return false;
    zero_point = static_cast<std::int32_t>(z.ints[0]);
  } else if (n.op_type == "QuantizeLinear") {
    return false;  // uint8 by default
  }
  scale = s.floats[0];
  return true;
}

// The NPU value holds the file's parameters (its range came from them; see qdq_import.h).
bool same_params(const QuantParams& q, float scale, std::int32_t zero_point) {
  return q.channel_scales.empty() && q.zero_point == zero_point && std::fabs(q.scale - scale) <= 1e-6f * scale;
}

bool runs_int8_on_npu(const Node& n) { return n.device == Node::Device::Npu && n.get_string("precision", "") != "fp16"; }

void rename_reads(Graph& g, const std::string& from, const std::string& to) {
  for (auto& n : g.nodes)
    for (auto& v : n.inputs)
      if (v == from) v = to;
}

}  // namespace

std::string fold_integer_boundary(Graph& g, container::CompiledModel& model) {
  std::vector<std::string> removed;
  std::vector<bool> drop(g.nodes.size(), false);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    float scale;
    std::int32_t zp;
    if (n.device != Node::Device::Cpu || !n.domain.empty() || n.inputs.empty() || n.outputs.size() != 1 ||
        !int8_params(g, n, scale, zp))
      continue;
    const std::string in = n.inputs[0], out = n.outputs[0];
    if (n.op_type == "DequantizeLinear" && is_graph_input(g, in) && g.tensor(in).elem_type == kInt8 && !g.is_graph_output(out)) {
      const auto readers = g.consumers(out);
      if (readers.empty() || !std::all_of(readers.begin(), readers.end(), [&](int r) { return runs_int8_on_npu(g.nodes[r]); }) ||
          !same_params(g.tensor(out).quant, scale, zp))
        continue;
      Tensor t = g.tensor(out);
      t.name = in;
      g.tensors[in] = t;
      rename_reads(g, out, in);
      drop[i] = true;
      removed.push_back(n.name);
      model.integer_io.push_back(in);
    } else if (n.op_type == "QuantizeLinear" && g.is_graph_output(out) && g.consumers(out).empty() && !g.is_graph_output(in) &&
               !is_graph_input(g, in)) {
      const int producer = g.producer(in);
      if (producer < 0 || !runs_int8_on_npu(g.nodes[producer]) || g.consumers(in).size() != 1 ||
          !same_params(g.tensor(in).quant, scale, zp))
        continue;
      Tensor t = g.tensor(in);
      t.name = out;
      g.tensors[out] = t;
      for (auto& o : g.nodes[producer].outputs)
        if (o == in) o = out;
      g.tensors.erase(in);
      drop[i] = true;
      removed.push_back(n.name);
      model.integer_io.push_back(out);
    }
  }
  if (removed.empty()) return "";
  std::vector<Node> kept;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    if (!drop[i]) kept.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(kept);
  auto& fallbacks = model.fallbacks;
  fallbacks.erase(std::remove_if(fallbacks.begin(), fallbacks.end(),
                                 [&](const container::Fallback& f) {
                                   return std::find(removed.begin(), removed.end(), f.node) != removed.end();
                                 }),
                  fallbacks.end());
  return std::to_string(removed.size()) + " int8 graph input/output conversions taken by the NPU as they are";
}

}  // namespace npu::compiler
