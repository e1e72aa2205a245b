#include "compiler/backend/integer_boundary.h"

#include "compiler/backend/partition.h"
#include "compiler/core/npu_ops.h"

#include <algorithm>
#include <cmath>

namespace npu::compiler {
namespace {

bool is_graph_input(const Graph& g, const std::string& v) { return std::find(g.inputs.begin(), g.inputs.end(), v) != g.inputs.end(); }

// The host's side of a graph-boundary Quantize/DequantizeLinear: int8 as it is, uint8 as the
// int8 grid of the same reals (its zero point less 128), int16 held as int32 on the NPU.
enum class HostSide { Int8, Uint8, Int16 };

// The per-tensor scale and zero point of a Quantize/DequantizeLinear, if constant, on the NPU
// side's integer grid (int8 or uint8 as int8, or int16).
bool boundary_params(const Graph& g, const Node& n, float& scale, std::int32_t& zero_point, HostSide& side) {
  if (n.inputs.size() < 2 || !g.is_constant(n.inputs[1])) return false;
  const Tensor& s = g.tensor(n.inputs[1]);
  if (s.floats.size() != 1 || !(s.floats[0] > 0.0f)) return false;
  zero_point = 0;
  side = HostSide::Int8;
  if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
    if (!g.is_constant(n.inputs[2])) return false;
    const Tensor& z = g.tensor(n.inputs[2]);
    if ((z.elem_type != kInt8 && z.elem_type != kUint8 && z.elem_type != kInt16) || z.ints.size() != 1) return false;
    zero_point = static_cast<std::int32_t>(z.ints[0]);
    side = z.elem_type == kUint8 ? HostSide::Uint8 : z.elem_type == kInt16 ? HostSide::Int16 : HostSide::Int8;
  } else if (n.op_type == "QuantizeLinear" || g.tensor(n.inputs[0]).elem_type == kUint8) {
    // No zero point: QuantizeLinear makes uint8; DequantizeLinear reads its input's type.
    side = HostSide::Uint8;
  } else if (g.tensor(n.inputs[0]).elem_type == kInt16) {
    side = HostSide::Int16;
  }
  if (side == HostSide::Uint8) zero_point -= 128;
  scale = s.floats[0];
  return true;
}

// The NPU value holds the file's parameters (its range came from them; see qdq_import.h).
bool same_params(const QuantParams& q, float scale, std::int32_t zero_point) {
  return q.channel_scales.empty() && q.zero_point == zero_point && std::fabs(q.scale - scale) <= 1e-6f * scale;
}

bool runs_int8_on_npu(const Node& n) { return n.device == Node::Device::Npu && n.get_string("precision", "") != "fp16"; }

void add_integer_io(container::CompiledModel& model, const std::string& value) {
  if (std::find(model.integer_io.begin(), model.integer_io.end(), value) == model.integer_io.end()) model.integer_io.push_back(value);
}

void rename_reads(Graph& g, const std::string& from, const std::string& to) {
  for (auto& n : g.nodes)
    for (auto& v : n.inputs)
      if (v == from) v = to;
}

}  // namespace

bool is_int16_boundary_conversion(const Node& n) {
  return is_requantisation(n.op_type) && n.get_int("integer_type", 0) == kInt16;
}

bool at_integer_boundary(const Graph& g, const Node& n) {
  if ((!n.domain.empty() && !is_contrib_requantisation(n.domain, n.op_type)) || n.inputs.empty() || n.outputs.size() != 1)
    return false;
  const std::string &in = n.inputs[0], &out = n.outputs[0];
  const int host_type = g.tensor(in).elem_type;
  if (n.op_type == "DequantizeLinear")
    return is_graph_input(g, in) && (host_type == kInt8 || host_type == kUint8 || host_type == kInt16) &&
           !g.is_graph_output(out);
  return n.op_type == "QuantizeLinear" && g.is_graph_output(out) && g.consumers(out).empty() && !g.is_graph_output(in) &&
         !is_graph_input(g, in);
}

std::string fold_integer_boundary(Graph& g, container::CompiledModel& model) {
  std::vector<std::string> removed, requantised;
  int unsigned_sides = 0, int16_sides = 0;
  std::vector<bool> drop(g.nodes.size(), false);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    Node& n = g.nodes[i];
    float scale;
    std::int32_t zp;
    HostSide side;
    if (n.device != Node::Device::Cpu || !at_integer_boundary(g, n) || !boundary_params(g, n, scale, zp, side)) continue;
    const bool unsigned_io = side == HostSide::Uint8, int16_io = side == HostSide::Int16;
    const std::string in = n.inputs[0], out = n.outputs[0];
    QuantParams file;
    file.scale = scale;
    file.zero_point = zp;
    // Any other parameters on the NPU side: the node itself runs there, an int8 -> int8 table
    // (int8_layer_params.h), its integer side holding the file's parameters. A uint8 side holds
    // the code itself on the grid (1, -128): byte u as u - 128, which the runtime's quantisation of
    // the host's uint8 values (and dequantisation back) computes exactly, with no uint8 type on
    // the NPU; the table then applies the file's parameters (the node's integer_* attributes).
    auto requantise = [&](const std::string& integer_side) {
      if (int16_io) {
        // Held as int32 on the NPU (the host's int16 widened exactly); the node runs as the
        // converter between it and the int8 value (codegen_convert.cpp).
        ++int16_sides;
        n.set_float("integer_scale", file.scale);
        n.set_int("integer_zero_point", file.zero_point);
        n.set_int("integer_type", kInt16);
        g.tensor(integer_side).quant = QuantParams{};
      } else if (unsigned_io) {
        ++unsigned_sides;
        n.set_float("integer_scale", file.scale);
        n.set_int("integer_zero_point", file.zero_point);
        QuantParams code;
        code.scale = 1.0f;
        code.zero_point = -128;
        g.tensor(integer_side).quant = code;
      } else {
        g.tensor(integer_side).quant = file;
      }
      n.device = Node::Device::Npu;
      n.fallback_reason.clear();
      requantised.push_back(n.name);
      add_integer_io(model, integer_side);
    };
    if (n.op_type == "DequantizeLinear") {
      const auto readers = g.consumers(out);
      // (an input another DequantizeLinear already gave other parameters stays as it is)
      if (readers.empty() || !std::all_of(readers.begin(), readers.end(), [&](int r) { return runs_int8_on_npu(g.nodes[r]); }) ||
          !g.tensor(out).quant.valid() || (g.tensor(in).quant.valid() && !same_params(g.tensor(in).quant, scale, zp)))
        continue;
      if (unsigned_io || int16_io || !same_params(g.tensor(out).quant, scale, zp)) {
        requantise(in);
        continue;
      }
      Tensor t = g.tensor(out);
      t.name = in;
      g.tensors[in] = t;
      rename_reads(g, out, in);
      drop[i] = true;
      removed.push_back(n.name);
      add_integer_io(model, in);
    } else {
      const int producer = g.producer(in);
      if (producer < 0 || !runs_int8_on_npu(g.nodes[producer]) || !g.tensor(in).quant.valid()) continue;
      // The value read elsewhere, or computed on another grid: the NPU requantises it.
      if (unsigned_io || int16_io || g.consumers(in).size() != 1 || !same_params(g.tensor(in).quant, scale, zp)) {
        requantise(out);
        continue;
      }
      Tensor t = g.tensor(in);
      t.name = out;
      g.tensors[out] = t;
      for (auto& o : g.nodes[producer].outputs)
        if (o == in) o = out;
      g.tensors.erase(in);
      drop[i] = true;
      removed.push_back(n.name);
      add_integer_io(model, out);
    }
  }
  if (removed.empty() && requantised.empty()) return "";
  std::vector<Node> kept;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    if (!drop[i]) kept.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(kept);
  if (!requantised.empty()) order_by_device(g);
  auto& fallbacks = model.fallbacks;
  auto left_cpu = [&](const std::string& node) {
    return std::find(removed.begin(), removed.end(), node) != removed.end() ||
           std::find(requantised.begin(), requantised.end(), node) != requantised.end();
  };
  fallbacks.erase(std::remove_if(fallbacks.begin(), fallbacks.end(), [&](const container::Fallback& f) { return left_cpu(f.node); }),
                  fallbacks.end());
  std::string detail;
  if (!removed.empty()) detail = std::to_string(removed.size()) + " int8 graph input/output conversions taken by the NPU as they are";
  if (!requantised.empty())
    detail += (detail.empty() ? "" : ", ") + std::to_string(requantised.size()) +
              " requantised on the NPU (" +
              (unsigned_sides ? std::to_string(unsigned_sides) + " of them uint8 on the host, u held as u - 128; " : "") +
              (int16_sides ? std::to_string(int16_sides) + " of them int16 on the host, held as int32; " : "") +
              "the file's parameters differ from the NPU value's)";
  return detail;
}

void reject_cpu_fallbacks(const Graph& graph, const std::vector<container::Fallback>& fallbacks) {
  for (const auto& f : fallbacks)
    throw CompileError(graph.source + ": --strict: node '" + f.node + "' (" + f.op + ") would fall back to the CPU: " + f.reason);
}

void require_npu_after_integer_boundary(const Graph& graph, const container::CompiledModel& model) {
  Graph folded = graph;
  container::CompiledModel judged;
  judged.fallbacks = model.fallbacks;
  if (std::any_of(folded.nodes.begin(), folded.nodes.end(), [](const Node& n) { return is_requantisation(n.op_type); }))
    fold_integer_boundary(folded, judged);
  reject_cpu_fallbacks(graph, judged.fallbacks);
}

}  // namespace npu::compiler
