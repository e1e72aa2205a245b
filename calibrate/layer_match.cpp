#include "calibrate/layer_match.h"

#include <algorithm>
#include <cmath>
#include <set>

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

  std::map<std::string, double> by_node;
  for (const auto& m : measured) by_node[m.node] += m.time_us;
  std::set<std::string> used;
  LayerComparison out;
  out.device = device;
  for (const auto& l : model.layers) {
    LayerGap g;
    g.layer = l.name;
    g.op = l.op;
    if (const auto it = simulated.layer_us.find(l.name); it != simulated.layer_us.end()) g.sim_us = it->second;
    std::vector<std::string> nodes = l.fused_nodes;
    if (nodes.empty()) nodes.push_back(l.name);
    for (const auto& n : nodes)
      if (const auto it = by_node.find(n); it != by_node.end() && used.insert(n).second) {
        g.onnx_nodes.push_back(n);
        g.measured_us += it->second;
      }
    out.sim_total_us += g.sim_us;
    out.measured_total_us += g.measured_us;
    out.rows.push_back(g);
  }
  for (const auto& [node, us] : by_node)
    if (!used.count(node)) {
      out.unmatched_us[node] = us;
      out.measured_total_us += us;
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
