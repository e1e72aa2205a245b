#include <fstream>

#include <fmt/core.h>

#include "apps/cli/cli_files.h"
#include "apps/cli/command.h"
#include "apps/cli/options.h"
#include "hwconfig/hardware_config.h"
#include "report/stream_report.h"
#include "runtime/engine.h"

namespace npu::cli {
namespace {

// --pre-ms X or --pre MODEL.onnx (not both): a fixed time or an ONNX model timed on the host.
runtime::HostStage host_stage(const po::variables_map& vm, const std::string& name, const HardwareConfig& config) {
  const bool fixed = !vm[name + "-ms"].defaulted(), model = vm.count(name) > 0;
  if (fixed && model) throw std::runtime_error(fmt::format("--{0}-ms and --{0}: give one of them", name));
  if (model) return runtime::host_stage_from_model(name, vm[name].as<std::string>(), config, {});
  runtime::HostStage stage;
  stage.name = name;
  stage.us = vm[name + "-ms"].as<double>() * 1000.0;
  if (!(stage.us >= 0)) throw std::runtime_error(fmt::format("--{}-ms: must be a time >= 0", name));
  return stage;
}

int stream_model(const std::vector<std::string>& args) {
  po::options_description opts("stream options");
  opts.add_options()
      ("model", po::value<std::string>()->required(), "ONNX or TFLite model (compiled on the fly) or .npuprog")
      ("config,c", po::value<std::string>()->required(), "hardware config YAML (configs/*.yaml)")
      ("frames,n", po::value<int>()->default_value(16), "frames through the pipeline")
      ("pre-ms", po::value<double>()->default_value(0.0), "pre-processing per frame on the host, ms")
      ("post-ms", po::value<double>()->default_value(0.0), "post-processing per frame on the host, ms")
      ("pre", po::value<std::string>(), "pre-processing as an ONNX model, timed on the host (host.gflops)")
      ("post", po::value<std::string>(), "post-processing as an ONNX model, timed on the host (host.gflops)")
      ("depth", po::value<int>()->default_value(2),
       "buffers per tensor between stages: 2 = double-buffered input and output, 1 = single")
      ("json", po::value<std::string>(), "write the stream report (stages, per-frame times, both schedules) as JSON")
      ("trace", po::value<std::string>(),
       "write a Chrome/Perfetto trace: host pre, inference and host post per frame, with the NPU units under each")
      ("precision", po::value<std::string>()->default_value("int8"), "when compiling ONNX: int8 or fp16")
      ("calib", po::value<std::string>(), "when compiling ONNX: directory of .npy calibration inputs")
      ("strict", po::bool_switch(), "when compiling ONNX: any CPU fallback is an error")
      ("input-shape", po::value<std::vector<std::string>>()->composing(), "when compiling ONNX: NAME=1x3x224x224")
      ("misalign-inputs", po::value<std::uint64_t>()->default_value(0),
       "place the model inputs BYTES past a 4 KiB boundary in DDR (see npusim run --help)")
      ("device", po::value<std::string>()->default_value("sim"), "NPU back end")
      ("seed", po::value<std::uint64_t>()->default_value(runtime::kDefaultInputSeed), "seed for the generated inputs")
      ("quiet,q", po::bool_switch(), "print nothing but errors");
  po::positional_options_description pos;
  pos.add("model", 1);
  auto vm = parse_command_line(
      "npusim stream MODEL.onnx|MODEL.tflite|MODEL.npuprog --config CFG [--frames N] [--pre-ms X | --pre PRE.onnx] "
      "[--post-ms Y | --post POST.onnx] [--depth 2] [--json OUT] [--trace OUT.json]",
      opts, pos, args);
  if (!vm) return kExitOk;

  const auto config = load_hardware_config((*vm)["config"].as<std::string>());
  runtime::StreamOptions stream;
  stream.frames = (*vm)["frames"].as<int>();
  stream.depth = (*vm)["depth"].as<int>();
  if (stream.frames < 1) throw std::runtime_error(fmt::format("--frames: must be at least 1 (got {})", stream.frames));
  if (stream.depth < 1) throw std::runtime_error(fmt::format("--depth: must be at least 1 (got {})", stream.depth));
  stream.pre = host_stage(*vm, "pre", config);
  stream.post = host_stage(*vm, "post", config);

  compiler::CompileOptions compile_options;
  compile_options.precision = container::parse_precision((*vm)["precision"].as<std::string>());
  if (vm->count("calib")) compile_options.calibration_dir = (*vm)["calib"].as<std::string>();
  if (vm->count("input-shape")) compile_options.input_shapes = (*vm)["input-shape"].as<std::vector<std::string>>();
  compile_options.strict = (*vm)["strict"].as<bool>();

  // Timing only (Engine::stream): every frame's inference takes the cycles of one simulated run.
  runtime::PlaceOptions place;
  place.device = (*vm)["device"].as<std::string>();
  place.input_misalignment_bytes = (*vm)["misalign-inputs"].as<std::uint64_t>();
  runtime::Engine engine(runtime::compile_model((*vm)["model"].as<std::string>(), config, compile_options), config, place);
  const auto seed = (*vm)["seed"].as<std::uint64_t>();
  auto result = engine.stream(stream, seed, vm->count("trace") > 0);
  result.inference.notes.push_back(fmt::format(
      "inputs: generated (seed {}); the stream runs timing only, every frame takes the cycles of one simulated "
      "inference", seed));
  if (!(*vm)["quiet"].as<bool>()) fmt::print("{}", report::format_stream_report(result, config));
  if (vm->count("json"))
    write_text((*vm)["json"].as<std::string>(),
               report::stream_report_json(result, engine.compiled(), config).dump(2) + "\n");
  if (vm->count("trace")) {
    std::ofstream out((*vm)["trace"].as<std::string>());
    report::write_stream_trace(result, engine.compiled(), config, out);
    if (!out) throw std::runtime_error((*vm)["trace"].as<std::string>() + ": cannot write file");
  }
  return kExitOk;
}

const CommandRegistration stream_command(
    {"stream", "frames through host pre-processing, the model and host post-processing, pipelined vs serial",
     stream_model});

}  // namespace
}  // namespace npu::cli
