#include <fstream>

#include <fmt/core.h>

#include "backends/device_comparison.h"
#include "hwconfig/hardware_config.h"
#include "runtime/cli/command.h"
#include "runtime/cli/options.h"
#include "runtime/tensor_file.h"

namespace npu::cli {
namespace {

int run_compare(const std::vector<std::string>& args) {
  po::options_description opts("compare options");
  opts.add_options()
      ("model", po::value<std::string>()->required(), "ONNX model")
      ("config,c", po::value<std::string>()->required(), "hardware config YAML the simulator models (configs/*.yaml)")
      ("device,d", po::value<std::vector<std::string>>()->composing(),
       "device to measure, repeatable: openvino:NPU|GPU|CPU, ort:cpu|qnn|openvino (npusim devices lists them)")
      ("runs", po::value<int>()->default_value(10), "timed runs per device")
      ("warmup", po::value<int>()->default_value(2), "untimed runs before them")
      ("strict", po::bool_switch(), "fail when any node falls back to the CPU, naming it")
      ("json", po::value<std::string>(), "write everything as JSON to this file")
      ("input,i", po::value<std::vector<std::string>>()->composing(), "NAME=FILE.npy (repeatable); others are random")
      ("seed", po::value<std::uint64_t>()->default_value(1), "seed for random inputs")
      ("precision", po::value<std::string>()->default_value("int8"), "what the simulated NPU runs: int8 or fp16")
      ("timing-only", po::bool_switch(), "simulate cycles only (faster; no simulated outputs to compare)")
      ("quiet,q", po::bool_switch(), "print nothing but errors");
  po::positional_options_description pos;
  pos.add("model", 1);
  auto vm = parse_command_line(
      "npusim compare MODEL.onnx --config CFG --device D [--device D2 ...] [--runs N] [--warmup N] [--strict] [--json OUT]",
      opts, pos, args);
  if (!vm) return kExitOk;

  const auto config = load_hardware_config((*vm)["config"].as<std::string>());
  backends::CompareOptions options;
  if (vm->count("device")) options.devices = (*vm)["device"].as<std::vector<std::string>>();
  options.runs = (*vm)["runs"].as<int>();
  options.warmup = (*vm)["warmup"].as<int>();
  options.strict = (*vm)["strict"].as<bool>();
  options.seed = (*vm)["seed"].as<std::uint64_t>();
  options.sim_precision = (*vm)["precision"].as<std::string>();
  options.sim_timing_only = (*vm)["timing-only"].as<bool>();
  if (vm->count("input"))
    for (const auto& arg : (*vm)["input"].as<std::vector<std::string>>()) {
      const auto eq = arg.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == arg.size())
        throw std::runtime_error(fmt::format("--input '{}': expected NAME=FILE", arg));
      options.inputs[arg.substr(0, eq)] = runtime::read_tensor_file(arg.substr(eq + 1)).tensor;
    }

  const auto comparison = backends::compare_on_devices((*vm)["model"].as<std::string>(), config, options);
  if (!(*vm)["quiet"].as<bool>()) fmt::print("{}", backends::format_comparison(comparison));
  if (vm->count("json")) {
    const auto path = (*vm)["json"].as<std::string>();
    std::ofstream out(path);
    if (!(out << backends::comparison_json(comparison).dump(2) << "\n")) throw std::runtime_error(path + ": cannot write file");
  }
  return kExitOk;
}

const CommandRegistration compare_command(
    {"compare", "run a model on the simulated NPU and on real devices: latency, outputs, per-node placement",
     run_compare});

}  // namespace
}  // namespace npu::cli
