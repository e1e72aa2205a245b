#include <fstream>
#include <map>

#include <fmt/core.h>

#include "apps/cli/command.h"
#include "apps/cli/input_options_cli.h"
#include "apps/cli/options.h"
#include "backends/device_comparison.h"
#include "calibrate/layer_match.h"
#include "calibrate/published_comparison.h"
#include "hwconfig/hardware_config.h"
#include "runtime/tensor_file.h"

namespace npu::cli {
namespace {

int run_compare(const std::vector<std::string>& args) {
  po::options_description opts("compare options");
  opts.add_options()
      ("model", po::value<std::string>(), "ONNX or TFLite model")
      ("published", po::value<std::vector<std::string>>()->composing(),
       "FILE of published device latencies (CSV: model,input_shape,precision,latency_ms), repeatable: instead of "
       "measuring, simulate each model on --config and print it against the figures, the error and whether the "
       "config was fitted to that file (its provenance) or the figures are held out")
      ("config,c", po::value<std::string>()->required(), "hardware config YAML the simulator models (configs/*.yaml)")
      ("device,d", po::value<std::vector<std::string>>()->composing(),
       "device to measure, repeatable: openvino:NPU|GPU|CPU, ort:cpu|qnn|openvino (npusim devices lists them)")
      ("runs", po::value<int>()->default_value(10), "timed runs per device")
      ("warmup", po::value<int>()->default_value(2), "untimed runs before them")
      ("strict", po::bool_switch(), "fail when any node falls back to the CPU, naming it")
      ("json", po::value<std::string>(), "write everything as JSON to this file")
      ("input,i", po::value<std::vector<std::string>>()->composing(), "NAME=FILE.npy (repeatable); others are random")
      ("seed", po::value<std::uint64_t>()->default_value(runtime::kDefaultInputSeed), "seed for random inputs")
      ("precision", po::value<std::string>()->default_value("int8"), "what the simulated NPU runs: int8 or fp16")
      ("timing-only", po::bool_switch(), "simulate cycles only (faster; no simulated outputs to compare)")
      ("per-layer", po::bool_switch(),
       "also time each node on the real devices (their profiler) and set it against the simulated layers, "
       "matched through the compiler's fusion record, sorted by the gap")
      ("layer-runs", po::value<int>()->default_value(5), "--per-layer: profiled runs per device")
      ("top-layers", po::value<std::size_t>()->default_value(0), "--per-layer: print only the N largest gaps (0: all)")
      ("quiet,q", po::bool_switch(), "print nothing but errors");
  add_input_options(opts);
  po::positional_options_description pos;
  pos.add("model", 1);
  auto vm = parse_command_line(
      "npusim compare MODEL.onnx|MODEL.tflite --config CFG --device D [--device D2 ...] [--runs N] [--warmup N] [--strict] [--json OUT]\n"
      "       npusim compare --published FILE [--published FILE2 ...] --config CFG [--json OUT]",
      opts, pos, args);
  if (!vm) return kExitOk;

  const auto config = load_hardware_config((*vm)["config"].as<std::string>());
  if (vm->count("published")) {
    if (vm->count("model") || vm->count("device"))
      throw std::runtime_error("--published compares the config with the figures in FILE: give no model and no --device");
    const auto comparison = calibrate::compare_published((*vm)["published"].as<std::vector<std::string>>(), config);
    if (!(*vm)["quiet"].as<bool>()) fmt::print("{}", calibrate::format_published_comparison(comparison));
    if (vm->count("json")) {
      const auto path = (*vm)["json"].as<std::string>();
      std::ofstream out(path);
      if (!(out << calibrate::published_comparison_json(comparison).dump(2) << "\n"))
        throw std::runtime_error(path + ": cannot write file");
    }
    return kExitOk;
  }
  if (!vm->count("model")) throw std::runtime_error("the option '--model' is required but missing");
  backends::CompareOptions options;
  if (vm->count("device")) options.devices = (*vm)["device"].as<std::vector<std::string>>();
  options.runs = (*vm)["runs"].as<int>();
  options.warmup = (*vm)["warmup"].as<int>();
  options.strict = (*vm)["strict"].as<bool>();
  options.seed = (*vm)["seed"].as<std::uint64_t>();
  options.sim_precision = (*vm)["precision"].as<std::string>();
  options.sim_timing_only = (*vm)["timing-only"].as<bool>();
  compiler::CompileOptions fixed;
  read_input_options(*vm, fixed);
  options.input_shapes = fixed.input_shapes;
  options.input_values = fixed.input_values;
  if (vm->count("input"))
    for (const auto& arg : (*vm)["input"].as<std::vector<std::string>>()) {
      const auto eq = arg.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size())
        throw std::runtime_error(fmt::format("--input '{}': expected NAME=FILE", arg));
      options.inputs[arg.substr(0, eq)] = runtime::read_tensor_file(arg.substr(eq + 1)).tensor;
    }

  const bool per_layer = (*vm)["per-layer"].as<bool>();
  if (per_layer) {
    options.layer_runs = (*vm)["layer-runs"].as<int>();
    if (options.layer_runs < 1) throw std::runtime_error("--layer-runs must be at least 1");
  }
  const std::string model = (*vm)["model"].as<std::string>();
  const auto comparison = backends::compare_on_devices(model, config, options);
  const bool quiet = (*vm)["quiet"].as<bool>();
  if (!quiet) fmt::print("{}", backends::format_comparison(comparison));
  std::map<std::string, calibrate::LayerComparison> layers;  // by device
  if (per_layer) {
    bool any = false;
    for (const auto& d : comparison.devices) {
      if (d.simulated) continue;
      any = true;
      std::vector<calibrate::MeasuredNode> measured;
      // A profiled run is several times slower than a timed one (the profiler's own cost): the
      // node times are scaled to sum to the device's measured median latency, so they say how
      // that latency divides between layers.
      double profiled_us = 0;
      for (const auto& t : d.layer_times) profiled_us += t.time_us;
      const double scale = profiled_us > 0 ? d.latency.median_us / profiled_us : 1.0;
      for (const auto& t : d.layer_times) measured.push_back({t.node, t.time_us * scale, t.op_type, t.onnx_node, t.internal});
      layers[d.device] = calibrate::compare_layers(model, config, options.sim_precision, d.device, measured);
      layers[d.device].profiled_total_us = profiled_us;
      if (!quiet) fmt::print("{}", calibrate::format_layer_comparison(layers[d.device], (*vm)["top-layers"].as<std::size_t>()));
    }
    if (!any) throw std::runtime_error("--per-layer needs a real device to measure (--device ort:cpu, openvino:CPU, ...)");
  }
  if (vm->count("json")) {
    const auto path = (*vm)["json"].as<std::string>();
    std::ofstream out(path);
    auto j = backends::comparison_json(comparison);
    for (auto& d : j["devices"])
      if (const auto it = layers.find(d.value("device", std::string())); it != layers.end())
        d["per_layer"] = calibrate::layer_comparison_json(it->second);
    j["precision"] = options.sim_precision;  // what the simulated side ran: npusim calibrate reads it
    if (!(out << j.dump(2) << "\n")) throw std::runtime_error(path + ": cannot write file");
  }
  return kExitOk;
}

const CommandRegistration compare_command(
    {"compare", "run a model on the simulated NPU and on real devices: latency, outputs, per-node placement",
     run_compare});

}  // namespace
}  // namespace npu::cli
