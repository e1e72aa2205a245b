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

  // Runtimes rename nodes they rewrite: ONNX Runtime's NCHWc layout pass names the new node
  // after the tensor it produces ("/relu/Relu_output_0_nchwc"), and PyTorch's exporter names
  // that tensor after its node ("/relu/Relu" -> "/relu/Relu_output_0").
  std::map<std::string, std::size_t> layer_of;  // ONNX node (or layer) name -> row
  for (std::size_t i = 0; i < model.layers.size(); ++i) {
    layer_of.emplace(model.layers[i].name, i);
    for (const auto& n : model.layers[i].fused_nodes) layer_of.emplace(n, i);
  }
  auto find_layer = [&](std::string name) -> const std::size_t* {
    for (int step = 0; step < 3; ++step) {
      if (const auto it = layer_of.find(name); it != layer_of.end()) return &it->second;
      if (step == 0) {
        if (name.size() > 6 && name.compare(name.size() - 6, 6, "_nchwc") == 0) name.resize(name.size() - 6);
      } else if (const auto at = name.rfind("_output_"); at != std::string::npos &&
                 name.find_first_not_of("0123456789", at + 8) == std::string::npos && at + 8 < name.size()) {
        name.resize(at);
      }
    }
    return nullptr;
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
  for (const auto& m : measured) {
    out.measured_total_us += m.time_us;
    if (const std::size_t* row = find_layer(m.node)) {
      out.rows[*row].onnx_nodes.push_back(m.node);
      out.rows[*row].measured_us += m.time_us;
    } else {
      out.unmatched_us[m.node] += m.time_us;
    }
  }
  std::stable_sort(out.rows.begin(), out.rows.end(),
                   [](const LayerGap& a, const LayerGap& b) { return std::fabs(a.gap_us()) > std::fabs(b.gap_us()); });
  return out;
}

namespace {
std::string ratio_text(double sim, double measured) {
  return measured > 0 ? fmt::format("{:.2f}", sim / measured) : "-";
}
}  // namespace

std::string format_layer_comparison(const LayerComparison& c, std::size_t top) {
  std::string out = fmt::format(
      "\nper layer against {}: simulated {:.1f} us, measured {:.1f} us in {} layers (sorted by |gap|)\n", c.device,
      c.sim_total_us, c.measured_total_us, c.rows.size());
  out += fmt::format("{:<28} {:<18} {:>10} {:>11} {:>9} {:>10}  {}\n", "layer", "op", "sim us", "measured us", "sim/meas",
                     "gap us", "measured ONNX nodes");
  std::size_t shown = 0;
  for (const auto& r : c.rows) {
    if (top && shown++ >= top) break;
    std::string nodes;
    for (const auto& n : r.onnx_nodes) nodes += (nodes.empty() ? "" : ", ") + n;
    out += fmt::format("{:<28} {:<18} {:>10.1f} {:>11.1f} {:>9} {:>+10.1f}  {}\n", r.layer, r.op, r.sim_us,
                       r.measured_us, ratio_text(r.sim_us, r.measured_us), r.gap_us(), nodes.empty() ? "-" : nodes);
  }
  if (!c.unmatched_us.empty()) {
    double total = 0;
    std::string names;
    for (const auto& [n, us] : c.unmatched_us) {
      total += us;
      if (names.size() < 200) names += (names.empty() ? "" : ", ") + n;
    }
    out += fmt::format("{} measured node(s), {:.1f} us, in no simulated layer (folded by the compiler or renamed by "
                       "the runtime): {}\n", c.unmatched_us.size(), total, names);
  }
  return out;
}

nlohmann::json layer_comparison_json(const LayerComparison& c) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : c.rows) {
    nlohmann::json row = {{"layer", r.layer}, {"op", r.op}, {"sim_layers", {r.layer}}, {"onnx_nodes", r.onnx_nodes},
                          {"sim_us", r.sim_us}, {"measured_us", r.measured_us}, {"gap_us", r.gap_us()}};
    row["ratio"] = r.measured_us > 0 ? nlohmann::json(r.sim_us / r.measured_us) : nlohmann::json();
    rows.push_back(row);
  }
  return {{"sim_total_us", c.sim_total_us}, {"measured_total_us", c.measured_total_us}, {"rows", rows},
          {"unmatched", c.unmatched_us}};
}

}  // namespace npu::calibrate
