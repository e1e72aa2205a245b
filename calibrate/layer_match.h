// `npusim compare --per-layer`: measured per-node times (a runtime's profiler, by ONNX node
// name) set against the simulated layers, through the compiler's fusion record: a simulated
// layer's measured time is the sum of the ONNX nodes it fused. Measured time that no simulated
// layer fused (folded away by the compiler, renamed past recognition, or inserted by the
// runtime, like OpenVINO's layout Reorders) gets rows of its own, one per kind and op, so the
// rows add up to the measured total.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hwconfig/hardware_config.h"

namespace npu::calibrate {

struct LayerGap {
  std::string layer, op;
  bool simulated = true;                   // false: a row of measured time in no simulated layer
  std::vector<std::string> onnx_nodes;     // fused into the layer and measured (as matched)
  std::vector<std::string> runtime_nodes;  // the same, as the runtime named them
  double sim_us = 0, measured_us = 0;
  double gap_us() const { return sim_us - measured_us; }
};

struct LayerComparison {
  std::string device;
  std::vector<LayerGap> rows;  // sorted by |gap|, largest first; measured time in no layer included
  double sim_total_us = 0, measured_total_us = 0;
  double profiled_total_us = 0;  // the profiler's sum before scaling to the measured latency (0: not scaled)
};

struct MeasuredNode {
  std::string node;        // as the runtime names it
  double time_us = 0;
  std::string op_type;     // the runtime's: names the row when no simulated layer fused the node
  std::string onnx_node;   // the ONNX node a renamed runtime layer stands for (empty: `node`)
  bool internal = false;   // no ONNX origin (the runtime inserted it): row "<stack>-internal: <op>"
};

// Compiles `model_path` for `config` at `precision`, simulates it (timing only) and matches
// the measured nodes of `device`. Throws one line when the model does not compile.
LayerComparison compare_layers(const std::string& model_path, const HardwareConfig& config, const std::string& precision,
                               const std::string& device, const std::vector<MeasuredNode>& measured);

std::string format_layer_comparison(const LayerComparison& c, std::size_t top = 0);
// {"rows": [{layer, op, sim_layers, onnx_nodes, runtime_nodes, sim_us, measured_us, gap_us, ratio}], totals}:
// the rows npusim calibrate --layers reads back (those with sim_layers; the rest have none).
nlohmann::json layer_comparison_json(const LayerComparison& c);

}  // namespace npu::calibrate
