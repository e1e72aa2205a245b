#include <fstream>

#include <fmt/core.h>

#include "apps/cli/command.h"
#include "apps/cli/options.h"
#include "apps/cli/input_options_cli.h"
#include "apps/cli/quant_options_cli.h"
#include "compiler/lowering_cache.h"
#include "hwconfig/hardware_config.h"
#include "report/compile_summary.h"
#include "report/model_report.h"
#include "report/precision_comparison.h"
#include "runtime/compiled_model_io.h"
#include "runtime/precision_times.h"

namespace npu::cli {
namespace {

int run_compile(const std::vector<std::string>& args) {
  compiler::set_lowered_models_kept(0);  // one model, compiled once
  po::options_description opts("compile options");
  opts.add_options()
      ("model", po::value<std::string>()->required(), "ONNX or TFLite model to compile")
      ("config,c", po::value<std::string>()->required(), "hardware config YAML (configs/*.yaml)")
      ("output,o", po::value<std::string>()->required(), "program to write (.npuprog)")
      ("calib", po::value<std::string>(), "directory of .npy calibration inputs (<input>.npy or <input>_N.npy)")
      ("strict", po::bool_switch(), "any CPU fallback is an error naming the node")
      ("explain", po::bool_switch(), "print the node counts before and after each pass")
      ("dump-dir", po::value<std::string>(), "write each pass's graph as ONNX into DIR (view in Netron)")
      ("quiet,q", po::bool_switch(), "print nothing but errors")
      ("json", po::value<std::string>(), "write the summary as JSON to FILE: estimated_cycles (equal to a timing-only run's), steps, placement, layers")
      ("no-interleave", po::bool_switch(), "each layer's code after the one before (no cross-layer interleaving)")
      ("engine-split", po::value<std::string>()->default_value("auto"),
       "with engines.count > 1, how conv/gemm layers share the engines: auto (the fastest program of the next "
       "three as the timing core finds), layer-price (each layer as its parts are timed fastest), traffic (each "
       "layer the way that adds the fewest DDR bytes), none (engine 0 runs everything); rows, channels (every "
       "layer that can, split so)")
      ("debug-schedule", po::bool_switch(),
       "print to stderr each layer's region and estimate, why values stay in DDR, each interleaving decision, "
       "each step's estimate")
      ("debug-estimate-file", po::value<std::string>(),
       "with --debug-schedule: write each instruction's estimated start and end cycle to FILE");
  add_input_options(opts);
  add_quant_options(opts);
  po::positional_options_description pos;
  pos.add("model", 1);
  auto vm = parse_command_line(
      "npusim compile MODEL.onnx|MODEL.tflite --config CFG -o MODEL.npuprog [--precision int8|fp16|mixed] [--calib DIR] "
      "[--calib-method M] [--accuracy-target cosine=X] [--keep-fp16 NODE,...] [--weights int8|int4 [--group-size N]] [--strict] "
      "[--explain] [--input-shape NAME=1x3x224x224] [--input-value NAME=VALUE] [--dump-dir DIR] [--json OUT]",
      opts, pos, args);
  if (!vm) return kExitOk;

  const auto config = load_hardware_config((*vm)["config"].as<std::string>());
  compiler::CompileOptions options;
  read_quant_options(*vm, options);
  if (vm->count("calib")) options.calibration_dir = (*vm)["calib"].as<std::string>();
  read_input_options(*vm, options);
  if (vm->count("dump-dir")) options.dump_dir = (*vm)["dump-dir"].as<std::string>();
  options.strict = (*vm)["strict"].as<bool>();
  options.explain = (*vm)["explain"].as<bool>();
  options.interleave_layers = !(*vm)["no-interleave"].as<bool>();
  const std::string split = (*vm)["engine-split"].as<std::string>();
  if (split == "auto") options.engine_split = compiler::EngineSplitMode::Auto;
  else if (split == "rows") options.engine_split = compiler::EngineSplitMode::Rows;
  else if (split == "channels") options.engine_split = compiler::EngineSplitMode::Channels;
  else if (split == "none") options.engine_split = compiler::EngineSplitMode::None;
  else if (split == "layer-price") options.engine_split = compiler::EngineSplitMode::LayerPrice;
  else if (split == "traffic") options.engine_split = compiler::EngineSplitMode::Traffic;
  else throw std::runtime_error("--engine-split: '" + split + "' is not auto, layer-price, traffic, rows, channels or none");
  options.debug_schedule = (*vm)["debug-schedule"].as<bool>();
  if (vm->count("debug-estimate-file")) options.debug_estimate_file = (*vm)["debug-estimate-file"].as<std::string>();

  const std::string model_path = (*vm)["model"].as<std::string>();
  bool compiled = false;
  auto model = runtime::load_or_compile(model_path, config, options, &compiled);
  if (!compiled) throw std::runtime_error(model_path + ": already a compiled program; compile takes an ONNX model");
  const std::string out = (*vm)["output"].as<std::string>();
  runtime::save_compiled_model(model, out);

  const auto placement = report::summarize_placement(model, config);
  if (vm->count("json")) {
    const std::string json_path = (*vm)["json"].as<std::string>();
    std::ofstream f(json_path);
    if (!f) throw std::runtime_error(json_path + ": cannot write the JSON summary");
    f << report::compile_summary_json(model, placement, config, model_path, out).dump(2) << "\n";
  }
  if (!(*vm)["quiet"].as<bool>()) {
    for (const auto& w : model.warnings) fmt::print(stderr, "npusim compile: warning: {}\n", w);
    if (options.explain) fmt::print("{}{}", report::format_passes(model), report::format_mappings(model));
    fmt::print("{}", report::format_compile_summary(model, model_path, out));
    // What the fp16 layers cost: the same model all int8 and all fp16, simulated timing-only.
    if (model.precision == container::Precision::Int8 && !model.quantization.fp16_layers.empty())
      fmt::print("{}", report::format_precision_times(runtime::compare_precisions(model, model_path, config, options)));
    fmt::print("{}", report::format_placement(placement));
    if (options.explain) fmt::print("{}", report::format_placement_by_op(placement));
  }
  return kExitOk;
}

const CommandRegistration compile_command({"compile", "compile an ONNX model into a program (.npuprog)", run_compile});

}  // namespace
}  // namespace npu::cli
