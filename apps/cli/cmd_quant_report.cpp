// `npusim quant-report`: which layers lose the accuracy in INT8. Per NPU layer, its output's SQNR
// and cosine against FP32 with only that layer quantised and with every layer quantised (up to
// it), and the model outputs' cosine with only that layer quantised; over the calibration data,
// quantisation simulated in float (compiler/quant/quant_simulation.h).
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "apps/cli/cli_files.h"
#include "apps/cli/command.h"
#include "apps/cli/options.h"
#include "apps/cli/input_options_cli.h"
#include "apps/cli/quant_options_cli.h"
#include "compiler/pipeline.h"
#include "runtime/calibration_host_runner.h"

namespace npu::cli {
namespace {

namespace fs = std::filesystem;

nlohmann::json report_json(const compiler::SensitivityReport& r, const std::string& model, const std::string& scheme) {
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& l : r.layers)
    layers.push_back({{"layer", l.layer},
                      {"op", l.op},
                      {"fp16_capable", l.fp16_capable},
                      {"alone_sqnr_db", l.alone_sqnr_db},
                      {"alone_cosine", l.alone_cosine},
                      {"cumulative_sqnr_db", l.cumulative_sqnr_db},
                      {"cumulative_cosine", l.cumulative_cosine},
                      {"model_cosine_alone", l.model_alone.cosine},
                      {"model_sqnr_db_alone", l.model_alone.sqnr_db}});
  return {{"model", model},
          {"scheme", scheme},
          {"samples", r.samples},
          {"all_int8_cosine", r.all_int8.cosine},
          {"all_int8_sqnr_db", r.all_int8.sqnr_db},
          {"layers", layers}};
}

// Long ONNX names differ at their end ("/features/features.2/features.2.0/Conv").
std::string tail(const std::string& s, std::size_t n) { return s.size() <= n ? s : "..." + s.substr(s.size() - n + 3); }

std::string format_report(const compiler::SensitivityReport& r, const std::string& scheme, std::size_t top) {
  std::string s = fmt::format("quantisation: {} over {} sample(s)\nmodel outputs, all int8: cosine {:.4f}, SQNR {:.1f} dB\n",
                              scheme, r.samples, r.all_int8.cosine, r.all_int8.sqnr_db);
  s += fmt::format("{:<40} {:<22} {:>11} {:>9} {:>11} {:>9} {:>12}\n", "layer (graph order)", "op", "alone SQNR",
                   "alone cos", "cumul SQNR", "cumul cos", "model cos*");
  for (const auto& l : r.layers)
    s += fmt::format("{:<40} {:<22} {:>8.1f} dB {:>9.5f} {:>8.1f} dB {:>9.5f} {:>12.5f}{}\n", tail(l.layer, 40),
                     l.op.substr(0, 22), l.alone_sqnr_db, l.alone_cosine, l.cumulative_sqnr_db, l.cumulative_cosine,
                     l.model_alone.cosine, l.fp16_capable ? "" : "  (no fp16 form)");
  s += "* the model outputs' worst cosine against FP32 with only this layer quantised\n";
  std::vector<const compiler::LayerSensitivity*> ranked;
  for (const auto& l : r.layers) ranked.push_back(&l);
  std::stable_sort(ranked.begin(), ranked.end(), [](auto* a, auto* b) { return a->model_alone.cosine < b->model_alone.cosine; });
  s += "most sensitive (candidates for --keep-fp16 or --precision mixed):";
  for (std::size_t i = 0; i < ranked.size() && i < top; ++i)
    s += fmt::format("{} {} ({:.5f})", i ? "," : "", ranked[i]->layer, ranked[i]->model_alone.cosine);
  return s + "\n";
}

int run_quant_report(const std::vector<std::string>& args) {
  po::options_description opts("quant-report options");
  opts.add_options()
      ("model", po::value<std::string>()->required(), "ONNX or TFLite model")
      ("config,c", po::value<std::string>()->required(), "hardware config YAML (decides what runs on the NPU)")
      ("calib", po::value<std::string>(), "directory of .npy calibration inputs (<input>.npy or <input>_N.npy)")
      ("json", po::value<std::string>(), "write the per-layer figures as JSON to FILE")
      ("output,o", po::value<std::string>(), "PNG bar chart (runs python3 scripts/plot_quant_report.py on the JSON)")
      ("top", po::value<std::size_t>()->default_value(8), "how many of the most sensitive layers to name")
      ("strict", po::bool_switch(), "any CPU fallback of the INT8 compile is an error naming the node (as compile --strict)");
  add_input_options(opts);
  add_quant_options(opts);
  po::positional_options_description pos;
  pos.add("model", 1);
  auto vm = parse_command_line(
      "npusim quant-report MODEL.onnx|MODEL.tflite --config CFG [--calib DIR] [--calib-method M] [--strict] [--json OUT] [-o chart.png]", opts,
      pos, args);
  if (!vm) return kExitOk;

  const auto config = load_hardware_config((*vm)["config"].as<std::string>());
  (void)config;  // partition reads the NPU's op set, not the config's sizes
  compiler::CompileOptions options;
  read_quant_options(*vm, options);
  if (vm->count("calib")) options.calibration_dir = (*vm)["calib"].as<std::string>();
  read_input_options(*vm, options);
  options.strict = (*vm)["strict"].as<bool>();
  const std::string model = (*vm)["model"].as<std::string>();
  std::string scheme;
  std::vector<std::string> warnings;
  const auto report = compiler::quantization_sensitivity(model, runtime::with_host_runner(options), scheme, warnings);
  for (const auto& w : warnings) fmt::print(stderr, "npusim quant-report: warning: {}\n", w);
  fmt::print("{}", format_report(report, scheme, (*vm)["top"].as<std::size_t>()));

  std::string json_path;
  if (vm->count("json")) json_path = (*vm)["json"].as<std::string>();
  else if (vm->count("output")) json_path = fs::path((*vm)["output"].as<std::string>()).replace_extension(".json").string();
  if (!json_path.empty()) {
    std::ofstream out(json_path);
    if (!(out << report_json(report, model, scheme).dump(2) << "\n")) throw std::runtime_error(json_path + ": cannot write file");
  }
  if (vm->count("output")) {
    const std::string png = (*vm)["output"].as<std::string>();
    const std::string command = fmt::format("python3 {} {} -o {}", shell_quote(find_script("plot_quant_report.py").string()),
                                            shell_quote(json_path), shell_quote(png));
    if (std::system(command.c_str()) != 0)
      throw std::runtime_error(fmt::format("plotting failed: {} (needs python3 with matplotlib; the JSON is in {})",
                                           command, json_path));
    fmt::print("sensitivity chart {}\n", png);
  }
  return kExitOk;
}

const CommandRegistration quant_report_command(
    {"quant-report", "per-layer INT8 sensitivity (SQNR, cosine against FP32) on the calibration data", run_quant_report});

}  // namespace
}  // namespace npu::cli
