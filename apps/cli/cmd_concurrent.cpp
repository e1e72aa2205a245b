#include <fstream>

#include <fmt/core.h>

#include "apps/cli/command.h"
#include "apps/cli/options.h"
#include "hwconfig/hardware_config.h"
#include "report/concurrent_report.h"
#include "runtime/concurrent.h"
#include "sim/trace_writer.h"

namespace npu::cli {
namespace {

int run_concurrent(const std::vector<std::string>& args) {
  po::options_description opts("concurrent options");
  opts.add_options()
      ("model", po::value<std::vector<std::string>>()->composing()->required(), "ONNX models (or .npuprog) to run together")
      ("config,c", po::value<std::string>()->required(), "hardware config YAML with engines.count >= the models")
      ("engines", po::value<std::string>()->default_value(""),
       "NAME=FIRST-LAST,... which engines each model gets (NAME: file name without extension); default: an even split")
      ("precision", po::value<std::string>()->default_value("int8"), "int8 or fp16")
      ("json", po::value<std::string>(), "write each model's latencies, the makespan and the slowdowns as JSON")
      ("trace", po::value<std::string>(), "write the run together as a Perfetto/Chrome trace (a group of tracks per engine)");
  po::positional_options_description pos;
  pos.add("model", -1);
  auto vm = parse_command_line(
      "npusim concurrent A.onnx B.onnx ... --config CFG [--engines A=0-3,B=4-5] [--json OUT] [--trace OUT]", opts, pos,
      args);
  if (!vm) return kExitOk;
  const auto config = load_hardware_config((*vm)["config"].as<std::string>());
  const auto paths = (*vm)["model"].as<std::vector<std::string>>();
  std::vector<runtime::ConcurrentModel> models;
  try {
    models = runtime::assign_engines(paths, (*vm)["engines"].as<std::string>(), config.engines.count);
  } catch (const std::invalid_argument& e) {
    throw po::error(e.what());
  }
  compiler::CompileOptions options;
  options.precision = container::parse_precision((*vm)["precision"].as<std::string>());
  const auto result = runtime::run_concurrent(models, config, options, vm->count("trace") > 0);
  fmt::print("{}", report::format_concurrent(result, config));
  if (vm->count("json")) {
    std::ofstream out((*vm)["json"].as<std::string>());
    if (!(out << report::concurrent_json(result, config).dump(2) << "\n"))
      throw std::runtime_error((*vm)["json"].as<std::string>() + ": cannot write file");
  }
  if (vm->count("trace")) {
    std::ofstream out((*vm)["trace"].as<std::string>());
    sim::write_chrome_trace(result.combined, config, out);
    if (!out) throw std::runtime_error((*vm)["trace"].as<std::string>() + ": cannot write file");
  }
  return kExitOk;
}

const CommandRegistration concurrent_command(
    {"concurrent", "several models on one simulated NPU at once, each on its engines: latency alone and together",
     run_concurrent});

}  // namespace
}  // namespace npu::cli
