#include <fstream>

#include <fmt/core.h>

#include "apps/cli/command.h"
#include "apps/cli/options.h"
#include "apps/cli/quant_options_cli.h"
#include "hwconfig/hardware_config.h"
#include "report/generation_report.h"
#include "runtime/generation.h"

namespace npu::cli {
namespace {

int generate_tokens(const std::vector<std::string>& args) {
  po::options_description opts("generate options");
  opts.add_options()
      ("prefill", po::value<std::string>()->required(), "prefill graph: the prompt's token ids -> logits and present K/V")
      ("decode", po::value<std::string>()->required(),
       "decode graph: one token id and past K/V -> logits and present K/V (a dynamic past axis is compiled per cache length)")
      ("config,c", po::value<std::string>()->required(), "hardware config YAML (configs/*.yaml)")
      ("prompt", po::value<int>()->default_value(0), "prompt tokens (0: the prefill graph's fixed length)")
      ("tokens", po::value<int>()->default_value(8), "tokens to generate: one decode step each")
      ("timing-only", po::bool_switch(), "cycles only: generated inputs, no token chosen (the same cycles)")
      ("calib", po::value<std::string>(), "directory of .npy calibration inputs (both graphs)")
      ("seed", po::value<std::uint64_t>()->default_value(runtime::kDefaultInputSeed), "seed of the prompt's token ids")
      ("device", po::value<std::string>()->default_value("sim"), "NPU back end")
      ("json", po::value<std::string>(), "write every step and the totals as JSON")
      ("trace", po::value<std::string>(), "write the steps as a Chrome/Perfetto trace")
      ("quiet,q", po::bool_switch(), "print nothing but errors");
  add_quant_options(opts);
  po::positional_options_description pos;
  pos.add("prefill", 1).add("decode", 1);
  auto vm = parse_command_line(
      "npusim generate PREFILL.onnx DECODE.onnx --config CFG [--prompt N] [--tokens T] [--precision int8|fp16] "
      "[--weights int8|int4] [--timing-only] [--json OUT] [--trace OUT.json]",
      opts, pos, args);
  if (!vm) return kExitOk;
  const auto config = load_hardware_config((*vm)["config"].as<std::string>());
  compiler::CompileOptions options;
  read_quant_options(*vm, options);
  if (vm->count("calib")) options.calibration_dir = (*vm)["calib"].as<std::string>();
  runtime::GenerationOptions generation;
  generation.prompt = (*vm)["prompt"].as<int>();
  generation.tokens = (*vm)["tokens"].as<int>();
  generation.timing_only = (*vm)["timing-only"].as<bool>();
  generation.seed = (*vm)["seed"].as<std::uint64_t>();
  generation.device = (*vm)["device"].as<std::string>();
  const auto result =
      runtime::generate((*vm)["prefill"].as<std::string>(), (*vm)["decode"].as<std::string>(), config, options, generation);
  if (!(*vm)["quiet"].as<bool>()) fmt::print("{}", report::format_generation(result));
  if (vm->count("json")) {
    std::ofstream out((*vm)["json"].as<std::string>());
    if (!(out << report::generation_json(result).dump(2) << "\n"))
      throw std::runtime_error((*vm)["json"].as<std::string>() + ": cannot write file");
  }
  if (vm->count("trace")) {
    std::ofstream out((*vm)["trace"].as<std::string>());
    report::write_generation_trace(result, out);
    if (!out) throw std::runtime_error((*vm)["trace"].as<std::string>() + ": cannot write file");
  }
  return kExitOk;
}

const CommandRegistration generate_command(
    {"generate", "a decoder's prefill then one decode step per token: time to first token, tokens/s, each step's DDR bound",
     generate_tokens});

}  // namespace
}  // namespace npu::cli
