// `npusim compare`: one model on the simulated NPU and on real stacks, side by side —
// simulated vs measured latency, outputs against an FP32 reference (ONNX Runtime on the CPU),
// and where each stack placed each node, with CPU fallbacks counted.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/inference_backend.h"
#include "backends/output_match.h"
#include "hwconfig/hardware_config.h"
#include "runtime/input_check.h"

namespace npu::backends {

struct CompareOptions {
  std::vector<std::string> devices;  // real stacks; the simulator always runs as well
  int runs = 10;                     // timed runs per device (after warm-up)
  int warmup = 2;
  bool strict = false;               // a fallback on any device is an error naming the nodes
  bool sim_timing_only = false;      // simulate cycles only: no simulated outputs to compare
  std::string sim_precision = "int8";
  int layer_runs = 0;                // > 0: profile each real device this many runs for per-node times
  std::uint64_t seed = runtime::kDefaultInputSeed;  // for inputs not given
  std::map<std::string, runtime::HostTensor> inputs;  // given inputs by name
  // --input-shape NAME=1x3x224x224 (dynamic dims) and --input-value NAME=VALUE (a one-element
  // input the compiler folds as a constant): the simulator compiles with them, every device is
  // fed inputs of those shapes and that value.
  std::vector<std::string> input_shapes, input_values;
};

struct DeviceComparison {
  std::string device;
  bool simulated = false;
  std::vector<std::string> versions;
  LatencyStats latency;
  std::vector<OutputMatch> outputs;  // empty when there is no reference or no outputs
  std::vector<NodePlacement> placement;
  std::vector<LayerTime> layer_times;  // measured per node (CompareOptions::layer_runs)
  std::size_t fallback_nodes() const;
};

struct Comparison {
  std::string model;
  std::string config;                // hardware config name
  std::string reference = "ort:cpu";
  std::string reference_problem;     // why outputs were not compared, if they were not
  int runs = 0, warmup = 0;
  bool strict = false;
  std::vector<std::string> input_notes;
  std::vector<DeviceComparison> devices;  // the simulator first
};

// Throws one line when a requested device is unknown or not available (before running
// anything), or when a device fails to load or run (in strict mode: naming the nodes).
Comparison compare_on_devices(const std::string& model_path, const HardwareConfig& config, const CompareOptions& options);

std::string format_comparison(const Comparison& comparison);
nlohmann::json comparison_json(const Comparison& comparison);

}  // namespace npu::backends
