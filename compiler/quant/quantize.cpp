#include "compiler/quant/quantize.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>

#include "compiler/core/npu_ops.h"
#include "compiler/quant/calibration_statistics.h"
#include "compiler/quant/int8_layer_params.h"

namespace npu::compiler {

ValueRanges measure_ranges(const Graph& g, const std::vector<TensorMap>& inputs) {
  ValueRanges ranges;
  for (const auto& [name, h] : collect_statistics(g, inputs, false)) ranges[name] = {h.min(), h.max()};
  return ranges;
}

QuantParams activation_params(float lo, float hi) {
  lo = std::min(lo, 0.0f);
  hi = std::max(hi, 0.0f);
  if (hi - lo < 1e-6f) hi = lo + 1e-6f;
  QuantParams q;
  q.scale = (hi - lo) / 255.0f;
  q.zero_point = static_cast<std::int32_t>(std::clamp<long>(std::lround(-128.0 - lo / q.scale), -128, 127));
  return q;
}

std::vector<std::string> assign_quantization(Graph& g, const ValueRanges& ranges,
                                             const std::map<std::string, std::string>* why_unmeasured) {
  // NPU nodes touching a value calibration could not measure (after a node neither the FP32
  // evaluator nor the host runner could run) go to the CPU instead.
  auto no_range = [&](const std::string& v) {
    const std::string head = "int8 calibration has no range for '" + v + "': ";
    if (why_unmeasured) {
      const auto why = why_unmeasured->find(v);
      if (why != why_unmeasured->end()) return head + why->second;
    }
    return head + "no calibration run computed it";
  };
  // Integer values on the NPU (a gather's run-time indices) are not quantised.
  auto quantised = [&](const std::string& v) {
    return !v.empty() && !g.is_constant(v) && g.tensor(v).elem_type != kInt32 && g.tensor(v).elem_type != kInt64;
  };
  std::vector<std::string> unmeasured;
  for (auto& n : g.nodes) {
    if (n.device != Node::Device::Npu) continue;
    std::vector<std::string> values;
    for (const auto& v : n.inputs) if (quantised(v)) values.push_back(v);
    for (const auto& v : n.outputs) if (!v.empty()) values.push_back(v);
    for (const char* key : {"acc_value", "act_value"}) if (n.has(key)) values.push_back(n.get_string(key, ""));
    auto finite = [](float x) { return std::isfinite(x); };
    for (const auto& v : values) {
      const auto r = ranges.find(v);
      if (r != ranges.end() && finite(r->second.first) && finite(r->second.second)) continue;
      n.device = Node::Device::Cpu;
      n.fallback_reason = r == ranges.end()
                              ? no_range(v)
                              : "int8 calibration saw NaN or infinity in '" + v + "': no int8 scale represents it";
      unmeasured.push_back(n.name);
      break;
    }
    if (n.device != Node::Device::Npu) continue;
    for (const auto& c : n.inputs)  // weights and biases: quantised per channel
      if (!c.empty() && g.is_constant(c) && !std::all_of(g.tensor(c).floats.begin(), g.tensor(c).floats.end(), finite)) {
        n.device = Node::Device::Cpu;
        n.fallback_reason = "constant '" + c + "' holds NaN or infinity: not quantisable to int8";
        unmeasured.push_back(n.name);
        break;
      }
  }
  // Union-find over value names that must share parameters.
  std::map<std::string, std::string> parent;
  std::function<std::string(const std::string&)> find = [&](const std::string& x) {
    auto it = parent.find(x);
    if (it == parent.end() || it->second == x) return x;
    return it->second = find(it->second);
  };
  auto unite = [&](const std::string& a, const std::string& b) { parent[find(a)] = find(b); };
  std::set<std::string> activations;
  for (const auto& n : g.nodes) {
    if (n.device != Node::Device::Npu) continue;
    for (const auto& v : n.inputs)
      if (quantised(v)) activations.insert(v);
    for (const auto& v : n.outputs)
      if (!v.empty()) activations.insert(v);
    // Data movement passes its parameters through unchanged (the bytes are the values), as do
    // pooling and the clamps that run in the integer domain.
    static const std::set<std::string> kSameParams = {"MaxPool", "AveragePool", "Resize",
                                                      "Upsample", "Relu", "Clip", "GlobalMaxPool",
                                                      "ReduceMax", "ReduceMin"};
    const bool moves = move_ops().count(n.op_type) != 0;
    if (kSameParams.count(n.op_type) || moves) {
      // Gather and Pad: only the data operand; Concat: every operand.
      const std::size_t operands = n.op_type == "Concat" || n.op_type == "Where" ? n.inputs.size() : 1;
      for (std::size_t i = 0; i < operands && i < n.inputs.size(); ++i)
        for (const auto& o : n.outputs)
          if (!n.inputs[i].empty() && !g.is_constant(n.inputs[i]) && !o.empty()) unite(n.inputs[i], o);
    }
  }
  std::map<std::string, std::pair<float, float>> group_range;
  for (const auto& v : activations) {
    auto it = ranges.find(v);
    if (it == ranges.end()) throw CompileError(g.source + ": calibration produced no range for '" + v + "'");
    auto root = find(v);
    auto gr = group_range.find(root);
    if (gr == group_range.end()) group_range[root] = it->second;
    else gr->second = {std::min(gr->second.first, it->second.first), std::max(gr->second.second, it->second.second)};
  }
  // A table's rows picked by run-time indices (token embeddings) may be any of its rows, not
  // only those the calibration inputs picked: its output covers the whole table.
  for (const auto& n : g.nodes)
    if (n.device == Node::Device::Npu && n.op_type == "Gather" && n.inputs.size() > 1 && g.is_constant(n.inputs[0]) &&
        !g.is_constant(n.inputs[1]) && !g.tensor(n.inputs[0]).floats.empty()) {
      const auto& table = g.tensor(n.inputs[0]).floats;
      const auto [lo, hi] = std::minmax_element(table.begin(), table.end());
      auto& r = group_range[find(n.outputs[0])];
      r = {std::min(r.first, *lo), std::max(r.second, *hi)};
    }
  for (const auto& v : activations) {
    auto [lo, hi] = group_range[find(v)];
    g.tensor(v).quant = activation_params(lo, hi);
  }
  // A masked Where's output stays fp16 (no scale): -inf where masked has no int8 code.
  for (const auto& n : g.nodes)
    if (n.device == Node::Device::Npu && masked_where(g, n)) g.tensor(n.outputs[0]).quant = QuantParams{};
  for (auto& n : g.nodes) {
    if (n.device != Node::Device::Npu || n.domain != "npusim") continue;
    for (const char* key : {"acc_value", "act_value"}) {
      std::string value = n.get_string(key, "");
      if (value.empty() || value == n.outputs[0]) continue;
      auto it = ranges.find(value);
      if (it == ranges.end()) throw CompileError(g.source + ": calibration produced no range for '" + value + "'");
      QuantParams q = activation_params(it->second.first, it->second.second);
      std::string prefix = std::string(key).substr(0, 3);
      n.set_float(prefix + "_scale", q.scale);
      n.set_int(prefix + "_zero_point", q.zero_point);
    }
  }
  return unmeasured;
}

QuantizedWeights quantize_weights(const std::vector<float>& w, std::int64_t channels, std::int64_t inner) {
  QuantizedWeights q;
  q.channel_scales.assign(static_cast<std::size_t>(channels), 0.0f);
  // Element i belongs to channel (i / inner) % channels: walked as runs of `inner` elements
  // with the channel counting round, so no division per element.
  const auto run = static_cast<std::size_t>(inner);
  const auto for_each_run = [&](auto&& body) {
    std::size_t c = 0;
    for (std::size_t begin = 0; begin < w.size(); begin += run) {
      body(c, begin, std::min(begin + run, w.size()));
      if (++c == q.channel_scales.size()) c = 0;
    }
  };
  for_each_run([&](std::size_t c, std::size_t begin, std::size_t end) {
    float m = q.channel_scales[c];
    for (std::size_t i = begin; i < end; ++i) m = std::max(m, std::abs(w[i]));
    q.channel_scales[c] = m;
  });
  // Weights already on an int8 grid (a QDQ model's, qdq_import.h) keep it: the integers the file
  // gives, where fresh scales would round them anew. The grid is max / k for k the largest
  // integer magnitude: 127, or 64 or 63 for ONNX Runtime's reduce_range (7-bit weights in
  // [-64, 63], its advice for x86 without VNNI); per tensor or per channel.
  auto on_grid = [](float v, float scale) {
    const float k = v / scale;
    return std::fabs(k - std::nearbyint(k)) < 1e-3f;
  };
  const std::vector<float> max_abs = q.channel_scales;
  const float tensor_max = *std::max_element(max_abs.begin(), max_abs.end());
  for (auto& s : q.channel_scales) s = s > 0 ? s / 127.0f : 1.0f;
  bool per_tensor_grid = false;
  constexpr float kGrids[] = {127.0f, 64.0f, 63.0f};
  for (float steps : kGrids) {
    if (per_tensor_grid || tensor_max <= 0 || channels <= 1) break;
    per_tensor_grid = std::all_of(w.begin(), w.end(), [&](float v) { return on_grid(v, tensor_max / steps); });
    if (per_tensor_grid) q.channel_scales.assign(q.channel_scales.size(), tensor_max / steps);
  }
  if (!per_tensor_grid) {
    for (float steps : {kGrids[1], kGrids[2]}) {  // max / 127 is the default anyway
      std::vector<char> grid(max_abs.size(), 1);    // the channel is on its max / steps grid
      for_each_run([&](std::size_t c, std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end && grid[c]; ++i) grid[c] = max_abs[c] > 0 && on_grid(w[i], max_abs[c] / steps);
      });
      for (std::size_t c = 0; c < max_abs.size(); ++c)
        if (grid[c]) q.channel_scales[c] = max_abs[c] / steps;
    }
  }
  q.values.resize(w.size());
  for_each_run([&](std::size_t c, std::size_t begin, std::size_t end) {
    const float scale = q.channel_scales[c];
    for (std::size_t i = begin; i < end; ++i)
      q.values[i] = static_cast<std::int8_t>(std::clamp<long>(std::lround(w[i] / scale), -127, 127));
  });
  return q;
}

}  // namespace npu::compiler
