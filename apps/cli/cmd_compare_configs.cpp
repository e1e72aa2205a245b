#include <fstream>

#include <fmt/core.h>

#include "apps/cli/command.h"
#include "apps/cli/input_options_cli.h"
#include "apps/cli/options.h"
#include "hwconfig/hardware_config.h"
#include "report/compare_configs.h"
#include "report/model_report.h"
#include "runtime/engine.h"

namespace npu::cli {
namespace {

int run_compare_configs(const std::vector<std::string>& args) {
  po::options_description opts("compare-configs options");
  opts.add_options()
      ("model", po::value<std::string>()->required(), "ONNX or TFLite model (compiled for each config) or .npuprog")
      ("config,c", po::value<std::vector<std::string>>()->composing()->required(),
       "hardware config YAML, two or more (the first is A, the base of the ratios)")
      ("json", po::value<std::string>(), "write the comparison (values and ratios per metric) as JSON")
      ("precision", po::value<std::string>()->default_value("int8"), "when compiling ONNX: int8 or fp16");
  add_input_options(opts, "when compiling ONNX: ");
  po::positional_options_description pos;
  pos.add("model", 1);
  auto vm = parse_command_line("npusim compare-configs MODEL --config A.yaml --config B.yaml [...] [--json OUT]",
                               opts, pos, args);
  if (!vm) return kExitOk;
  const auto paths = (*vm)["config"].as<std::vector<std::string>>();
  if (paths.size() < 2) throw po::error("give at least two --config files to compare");

  compiler::CompileOptions compile_options;
  compile_options.precision = container::parse_precision((*vm)["precision"].as<std::string>());
  read_input_options(*vm, compile_options);
  std::vector<nlohmann::json> reports;
  for (const auto& path : paths) {
    const auto config = load_hardware_config(path);
    // Each config gets its own compile: tiling depends on SRAM size and array shape.
    auto run = runtime::compile_and_run((*vm)["model"].as<std::string>(), config, compile_options);
    reports.push_back(report::model_report_json(
        report::build_model_report(*run.model.compiled, config, std::move(run.result.record)), config));
  }
  fmt::print("{} (timing only; ratios are each config over A)\n", (*vm)["model"].as<std::string>());
  fmt::print("{}", report::format_compare(reports));
  if (vm->count("json")) {
    std::ofstream out((*vm)["json"].as<std::string>());
    if (!(out << report::compare_json(reports).dump(2) << "\n"))
      throw std::runtime_error((*vm)["json"].as<std::string>() + ": cannot write file");
  }
  return kExitOk;
}

const CommandRegistration compare_configs_command(
    {"compare-configs", "one model on several hardware configs: the summary side by side with ratios",
     run_compare_configs});

}  // namespace
}  // namespace npu::cli
