#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <fmt/core.h>

#include "apps/cli/cli_files.h"
#include "apps/cli/command.h"
#include "apps/cli/input_options_cli.h"
#include "apps/cli/options.h"
#include "hwconfig/hardware_config.h"
#include "report/model_report.h"
#include "report/roofline_report.h"
#include "runtime/engine.h"

namespace npu::cli {
namespace {

namespace fs = std::filesystem;

int run_roofline(const std::vector<std::string>& args) {
  po::options_description opts("roofline options");
  opts.add_options()
      ("model", po::value<std::string>()->required(), "ONNX or TFLite model (compiled for the config) or .npuprog")
      ("config,c", po::value<std::string>()->required(), "hardware config YAML (configs/*.yaml)")
      ("output,o", po::value<std::string>(), "PNG plot (runs python3 scripts/plot_roofline.py on the JSON)")
      ("json", po::value<std::string>(), "roofline JSON (default with -o: the PNG's path with .json)")
      ("precision", po::value<std::string>()->default_value("int8"), "when compiling ONNX: int8 or fp16");
  add_input_options(opts, "when compiling ONNX: ");
  po::positional_options_description pos;
  pos.add("model", 1);
  auto vm = parse_command_line("npusim roofline MODEL --config CFG [-o roofline.png] [--json OUT] [--precision P]",
                               opts, pos, args);
  if (!vm) return kExitOk;

  const auto config = load_hardware_config((*vm)["config"].as<std::string>());
  compiler::CompileOptions compile_options;
  compile_options.precision = container::parse_precision((*vm)["precision"].as<std::string>());
  read_input_options(*vm, compile_options);
  auto run = runtime::compile_and_run((*vm)["model"].as<std::string>(), config, compile_options);
  const auto model_report = report::build_model_report(*run.model.compiled, config, std::move(run.result.record));
  fmt::print("{}", report::format_roofline(model_report, config));

  std::string json_path;
  if (vm->count("json")) json_path = (*vm)["json"].as<std::string>();
  else if (vm->count("output")) json_path = fs::path((*vm)["output"].as<std::string>()).replace_extension(".json").string();
  if (!json_path.empty()) {
    std::ofstream out(json_path);
    if (!(out << report::roofline_json(model_report, config).dump(2) << "\n"))
      throw std::runtime_error(json_path + ": cannot write file");
    fmt::print("roofline JSON     {}\n", json_path);
  }
  if (vm->count("output")) {
    const std::string png = (*vm)["output"].as<std::string>();
    const fs::path script = find_script("plot_roofline.py");
    const std::string command =
        fmt::format("python3 {} {} -o {}", shell_quote(script.string()), shell_quote(json_path), shell_quote(png));
    if (std::system(command.c_str()) != 0)
      throw std::runtime_error(fmt::format("plotting failed: {} (needs python3 with matplotlib; the JSON is in {})",
                                           command, json_path));
    fmt::print("roofline plot     {}\n", png);
  }
  return kExitOk;
}

const CommandRegistration roofline_command(
    {"roofline", "a model's layers on the config's roofline: text chart and table, JSON, PNG plot", run_roofline});

}  // namespace
}  // namespace npu::cli
