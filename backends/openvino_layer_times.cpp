#include "backends/openvino_layer_times.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace npu::backends {

namespace {

// A node fused into the executed layer before it: not run on its own, no implementation chosen.
bool fused_into_previous(const OpenVinoCounter& c) { return !c.executed && c.exec_type == "undef"; }

}  // namespace

std::vector<LayerTime> openvino_layer_times(const std::vector<OpenVinoCounter>& before, int before_runs,
                                            const std::vector<OpenVinoCounter>& after, int after_runs,
                                            const OnnxGraphNames& onnx) {
  const int window = after_runs - before_runs;
  if (window < 1) throw std::invalid_argument("openvino_layer_times: no runs between the two readings");
  // The list has the same layers in the same order at every reading; by name in case not.
  std::map<std::string, double> before_total_us;
  for (const auto& c : before) before_total_us[c.node] = c.mean_us * before_runs;

  std::vector<LayerTime> out;
  for (std::size_t i = 0; i < after.size(); ++i) {
    const auto& c = after[i];
    if (!c.executed) continue;
    const auto it = before_total_us.find(c.node);
    const double time_us = (c.mean_us * after_runs - (it == before_total_us.end() ? 0.0 : it->second)) / window;
    if (time_us <= 0) continue;  // as ORT's profiler: a layer that took no time says nothing
    LayerTime t;
    t.node = c.node;
    t.op_type = c.node_type;
    t.time_us = time_us;
    const bool inserted_reorder = c.node_type == "Reorder";
    t.onnx_node = onnx_node_of(c.node, onnx, inserted_reorder);
    for (std::size_t j = i + 1; t.onnx_node.empty() && !inserted_reorder && j < after.size(); ++j) {
      if (!fused_into_previous(after[j])) break;
      t.onnx_node = onnx_node_of(after[j].node, onnx);
    }
    t.internal = t.onnx_node.empty();
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace npu::backends
