// `npusim compare --per-layer`: measured per-node times (a runtime's profiler, by ONNX node
// name) set against the simulated layers, through the compiler's fusion record: a simulated
// layer's measured time is the sum of the ONNX nodes it fused. Measured nodes that no
// simulated layer fused (folded away by the compiler, or named differently by the runtime)
// are listed apart, so their time is not silently lost.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hwconfig/hardware_config.h"

namespace npu::calibrate {

struct LayerGap {
  std::string layer, op;
  std::vector<std::string> onnx_nodes;  // fused into the layer and measured
  double sim_us = 0, measured_us = 0;
  double gap_us() const { return sim_us - measured_us; }
};

struct LayerComparison {
  std::string device;
  std::vector<LayerGap> rows;                    // sorted by |gap|, largest first
  std::map<std::string, double> unmatched_us;    // measured node -> time, in no simulated layer
  double sim_total_us = 0, measured_total_us = 0;
};

struct MeasuredNode {
  std::string node;
  double time_us = 0;
};

// Compiles `model_path` for `config` at `precision`, simulates it (timing only) and matches
// the measured nodes of `device`. Throws one line when the model does not compile.
LayerComparison compare_layers(const std::string& model_path, const HardwareConfig& config, const std::string& precision,
                               const std::string& device, const std::vector<MeasuredNode>& measured);

std::string format_layer_comparison(const LayerComparison& c, std::size_t top = 0);
// {"rows": [{layer, op, sim_layers, onnx_nodes, sim_us, measured_us, ratio}], "unmatched": {...}}:
// the rows npusim calibrate --layers reads back.
nlohmann::json layer_comparison_json(const LayerComparison& c);

}  // namespace npu::calibrate
