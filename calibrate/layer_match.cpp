#include "calibrate/layer_match.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "calibrate/simulated_latency.h"

namespace npu::calibrate {

LayerComparison compare_layers(const std::string& model_path, const HardwareConfig& config, const std::string& precision,
                               const std::string& device, const std::vector<MeasuredNode>& measured) {
  ModelCase c;
  c.model_path = model_path;
  c.precision = precision;
  SimulatedLatency sim({c});
  sim.compile(config);
  const auto simulated = sim.simulate(0, config, true);
  const auto& model = sim.compiled(0);

  // Measured nodes come traced to their ONNX node by the back end (backends/onnx_graph_names.h);
  // a simulated layer answers for its own name and every node fused into it.
  std::map<std::string, std::size_t> layer_of;  // ONNX node (or layer) name -> row
  for (std::size_t i = 0; i < model.layers.size(); ++i) {
    layer_of.emplace(model.layers[i].name, i);
    for (const auto& n : model.layers[i].fused_nodes) layer_of.emplace(n, i);
  }
  auto find_layer = [&](const std::string& name) -> const std::size_t* {
    const auto it = layer_of.find(name);
    return it == layer_of.end() ? nullptr : &it->second;
  };
  LayerComparison out;
  out.device = device;
  for (const auto& l : model.layers) {
    LayerGap g;
    g.layer = l.name;
    g.op = l.op;
    if (const auto it = simulated.layer_us.find(l.name); it != simulated.layer_us.end()) g.sim_us = it->second;
    out.sim_total_us += g.sim_us;
    out.rows.push_back(g);
  }
  // Measured time in no simulated layer: one row per kind and op ("openvino-internal: Reorder").
  const std::string stack = device.substr(0, device.find(':'));
  std::map<std::string, std::size_t> extra_row;
  for (const auto& m : measured) {
    out.measured_total_us += m.time_us;
    const std::string& onnx_name = m.onnx_node.empty() ? m.node : m.onnx_node;
    std::size_t row = 0;
    if (const std::size_t* found = m.internal ? nullptr : find_layer(onnx_name)) {
      row = *found;
    } else {
      const std::string op = m.op_type.empty() ? "?" : m.op_type;
      const std::string label = m.internal ? fmt::format("{}-internal: {}", stack, op) : "no simulated layer: " + op;
      const auto [it, added] = extra_row.emplace(label, out.rows.size());
      if (added) {
        LayerGap g;
        g.layer = label;
        g.op = op;
        g.simulated = false;
        out.rows.push_back(g);
      }
      row = it->second;
    }
    if (!m.internal) out.rows[row].onnx_nodes.push_back(onnx_name);
    out.rows[row].runtime_nodes.push_back(m.node);
    out.rows[row].measured_us += m.time_us;
  }
  std::stable_sort(out.rows.begin(), out.rows.end(),
                   [](const LayerGap& a, const LayerGap& b) { return std::fabs(a.gap_us()) > std::fabs(b.gap_us()); });
  return out;
}

namespace {
std::string ratio_text(double sim, double measured) {
  return measured > 0 ? fmt::format("{:.2f}", sim / measured) : "-";
}

// The runtime's names, with the ONNX node each stands for where the runtime renamed it.
std::string measured_nodes_text(const LayerGap& r) {
  constexpr std::size_t kShown = 6;
  std::string text;
  for (std::size_t i = 0; i < r.runtime_nodes.size() && i < kShown; ++i) {
    text += (text.empty() ? "" : ", ") + r.runtime_nodes[i];
    if (r.simulated && i < r.onnx_nodes.size() && r.onnx_nodes[i] != r.runtime_nodes[i]) text += " (" + r.onnx_nodes[i] + ")";
  }
  if (r.runtime_nodes.size() > kShown) text += fmt::format(", ... {} in all", r.runtime_nodes.size());
  return text.empty() ? "-" : text;
}
}  // namespace

std::string format_layer_comparison(const LayerComparison& c, std::size_t top) {
  std::string out = fmt::format(
      "\nper layer against {}: simulated {:.1f} us, measured {:.1f} us in {} rows (sorted by |gap|)\n", c.device,
      c.sim_total_us, c.measured_total_us, c.rows.size());
  if (c.profiled_total_us > 0)
    out += fmt::format("  measured: the profiler's node times ({:.1f} us in all per profiled run) scaled to the median "
                       "latency\n", c.profiled_total_us);
  std::size_t width = 28;
  for (const auto& r : c.rows) width = std::max(width, r.layer.size());
  out += fmt::format("{:<{}} {:<18} {:>10} {:>11} {:>9} {:>10}  {}\n", "layer", width, "op", "sim us", "measured us",
                     "sim/meas", "gap us", "measured nodes (ONNX node where renamed)");
  std::size_t shown = 0;
  for (const auto& r : c.rows) {
    if (top && shown++ >= top) break;
    out += fmt::format("{:<{}} {:<18} {:>10} {:>11.1f} {:>9} {:>+10.1f}  {}\n", r.layer, width, r.op,
                       r.simulated ? fmt::format("{:.1f}", r.sim_us) : "-", r.measured_us,
                       r.simulated ? ratio_text(r.sim_us, r.measured_us) : "-", r.gap_us(), measured_nodes_text(r));
  }
  return out;
}

nlohmann::json layer_comparison_json(const LayerComparison& c) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : c.rows) {
    nlohmann::json row = {{"layer", r.layer},
                          {"op", r.op},
                          {"sim_layers", r.simulated ? nlohmann::json::array({r.layer}) : nlohmann::json::array()},
                          {"onnx_nodes", r.onnx_nodes},
                          {"runtime_nodes", r.runtime_nodes},
                          {"sim_us", r.sim_us},
                          {"measured_us", r.measured_us},
                          {"gap_us", r.gap_us()}};
    row["ratio"] = r.simulated && r.measured_us > 0 ? nlohmann::json(r.sim_us / r.measured_us) : nlohmann::json();
    rows.push_back(row);
  }
  nlohmann::json j = {{"sim_total_us", c.sim_total_us}, {"measured_total_us", c.measured_total_us}, {"rows", rows}};
  if (c.profiled_total_us > 0) j["profiled_total_us"] = c.profiled_total_us;
  return j;
}

}  // namespace npu::calibrate
