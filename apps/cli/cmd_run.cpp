#include <filesystem>
#include <fstream>
#include <map>

#include <fmt/core.h>

#include "apps/cli/cli_files.h"
#include "apps/cli/command.h"
#include "apps/cli/options.h"
#include "apps/cli/input_options_cli.h"
#include "apps/cli/quant_options_cli.h"
#include "compiler/lowering_cache.h"
#include "hwconfig/hardware_config.h"
#include "report/compile_summary.h"
#include "report/layer_table.h"
#include "report/model_report.h"
#include "report/trace_labels.h"
#include "runtime/engine.h"
#include "runtime/step_vcd.h"
#include "runtime/tensor_file.h"
#include "sim/trace_writer.h"

namespace npu::cli {
namespace {

// --input NAME=FILE, or --input FILE.pb when the TensorProto carries the name.
struct GivenInputs {
  std::map<std::string, runtime::HostTensor> tensors;
  std::map<std::string, std::string> files;
};

GivenInputs read_inputs(const std::vector<std::string>& args) {
  GivenInputs given;
  for (const auto& arg : args) {
    const auto eq = arg.find('=');
    std::string name, path = arg;
    if (eq != std::string::npos) {
      name = arg.substr(0, eq);
      path = arg.substr(eq + 1);
      if (name.empty() || path.empty()) throw std::runtime_error(fmt::format("--input '{}': expected NAME=FILE", arg));
    }
    auto file = runtime::read_tensor_file(path);
    if (name.empty()) name = file.name;
    if (name.empty())
      throw std::runtime_error(fmt::format("--input {}: the file carries no tensor name; give NAME={}", path, path));
    if (given.tensors.count(name)) throw std::runtime_error(fmt::format("--input {}: given twice", name));
    given.tensors[name] = std::move(file.tensor);
    given.files[name] = path;
  }
  return given;
}

int run_model(const std::vector<std::string>& args) {
  compiler::set_lowered_models_kept(0);  // one model, compiled once
  po::options_description opts("run options");
  opts.add_options()
      ("model", po::value<std::string>()->required(), "ONNX or TFLite model (compiled on the fly) or .npuprog")
      ("config,c", po::value<std::string>()->required(), "hardware config YAML (configs/*.yaml)")
      ("input,i", po::value<std::vector<std::string>>()->composing(),
       "NAME=FILE (.npy or TensorProto .pb), repeatable; none given: deterministic random inputs")
      ("save-outputs", po::value<std::string>(), "write each output to DIR/<output-name>.npy")
      ("report", po::bool_switch(), "print the summary and per-layer table (the default; --quiet turns it off)")
      ("top", po::value<std::size_t>()->default_value(0), "per-layer table: only the N costliest layers by cycles")
      ("json", po::value<std::string>(), "write the report (summary + per-layer) as JSON")
      ("csv", po::value<std::string>(), "write the per-layer table as CSV")
      ("trace", po::value<std::string>(),
       "write a Chrome/Perfetto trace: unit and DMA-channel tracks, layer and tile in args, DDR bandwidth counter")
      ("vcd", po::value<std::string>(), "write a VCD of unit and DMA-channel busy signals per NPU step (GTKWave)")
      ("timing-only", po::bool_switch(), "cycles only: no arithmetic, no outputs")
      ("calib", po::value<std::string>(), "when compiling ONNX: directory of .npy calibration inputs")
      ("strict", po::bool_switch(), "when compiling ONNX: any CPU fallback is an error")
      ("device", po::value<std::string>()->default_value("sim"), "NPU back end")
      ("misalign-inputs", po::value<std::uint64_t>()->default_value(0),
       "place every model input BYTES past a 4 KiB boundary in DDR, as a pre-processing buffer might be "
       "(reads below dma.min_alignment_bytes go through the bounce buffer); 0: where the compiler put it")
      ("seed", po::value<std::uint64_t>()->default_value(runtime::kDefaultInputSeed), "seed for generated inputs")
      ("quiet,q", po::bool_switch(), "print nothing but errors");
  add_input_options(opts, "when compiling ONNX: ");
  add_quant_options(opts, "when compiling ONNX: ");
  po::positional_options_description pos;
  pos.add("model", 1);
  auto vm = parse_command_line(
      "npusim run MODEL.onnx|MODEL.tflite|MODEL.npuprog --config CFG [--input NAME=FILE ...] [--save-outputs DIR] [--json OUT] "
      "[--csv OUT] [--top N] [--trace OUT.json] [--vcd OUT.vcd] [--timing-only]",
      opts, pos, args);
  if (!vm) return kExitOk;

  const auto config = load_hardware_config((*vm)["config"].as<std::string>());
  compiler::CompileOptions compile_options;
  read_quant_options(*vm, compile_options);
  if (vm->count("calib")) compile_options.calibration_dir = (*vm)["calib"].as<std::string>();
  read_input_options(*vm, compile_options);
  compile_options.strict = (*vm)["strict"].as<bool>();

  runtime::PlaceOptions place;
  place.device = (*vm)["device"].as<std::string>();
  place.input_misalignment_bytes = (*vm)["misalign-inputs"].as<std::uint64_t>();
  runtime::RunRequest request;
  request.timing_only = (*vm)["timing-only"].as<bool>();
  request.record_trace = vm->count("trace") > 0;
  if (request.timing_only && vm->count("save-outputs"))
    throw std::runtime_error("--save-outputs needs a functional run (drop --timing-only)");

  const std::string model_path = (*vm)["model"].as<std::string>();
  auto given = read_inputs(vm->count("input") ? (*vm)["input"].as<std::vector<std::string>>()
                                              : std::vector<std::string>{});
  runtime::Engine engine(runtime::compile_model(model_path, config, compile_options), config, place);
  // No inputs at all: a timing or smoke run on generated ones. Partial inputs are an error.
  request.inputs = std::move(given.tensors);
  request.input_files = std::move(given.files);
  request.seed = (*vm)["seed"].as<std::uint64_t>();
  request.notes.how_to_give = [](const std::string& input) {
    return fmt::format("give --input {}=FILE for real data", input);
  };
  auto result = engine.run(request);
  auto model_report = report::build_model_report(engine.compiled(), config, std::move(result.record));

  report::ReportFormat format;
  format.top = (*vm)["top"].as<std::size_t>();
  if (!(*vm)["quiet"].as<bool>()) fmt::print("{}", report::format_model_report(model_report, config, format));
  if (vm->count("json"))
    write_text((*vm)["json"].as<std::string>(), report::model_report_json(model_report, config).dump(2) + "\n");
  if (vm->count("csv")) write_text((*vm)["csv"].as<std::string>(), report::layers_csv(model_report.layers, config));
  if (vm->count("trace")) {
    report::label_trace(model_report.npu.trace,
                         report::instruction_labels(engine.compiled().layers, engine.compiled().program));
    std::ofstream out((*vm)["trace"].as<std::string>());
    sim::write_chrome_trace(model_report.npu, config, out);
    if (!out) throw std::runtime_error((*vm)["trace"].as<std::string>() + ": cannot write file");
  }
  if (vm->count("vcd")) {
    const auto files = runtime::write_step_vcds(engine.compiled(), config, (*vm)["vcd"].as<std::string>());
    if (!(*vm)["quiet"].as<bool>())
      for (const auto& f : files) fmt::print("vcd               {}\n", f);
  }
  if (vm->count("save-outputs")) {
    const std::filesystem::path dir = (*vm)["save-outputs"].as<std::string>();
    std::filesystem::create_directories(dir);
    for (const auto& [name, tensor] : result.outputs)
      runtime::write_tensor_npy((dir / runtime::npy_file_name(name)).string(), tensor);
  }
  return kExitOk;
}

const CommandRegistration run_command({"run", "compile (if ONNX) and run a model: outputs, latency, per-layer report", run_model});

}  // namespace
}  // namespace npu::cli
