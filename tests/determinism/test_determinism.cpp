// Determinism: the same program and inputs give the same cycles, outputs, report and trace,
// run after run and in any order within one process (the Python package and sweep workers
// reuse a process for many models and configs). Compiles and runs the bundled model, the
// generated CNNs at 64x64 and a few exported models (CPU steps included) in one order, then
// in reverse with other work (an FP16 compile, a timing-only run) in between, and compares
// everything a user can see byte for byte.
#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>

#include "report/model_report.h"
#include "report/trace_labels.h"
#include "runtime/engine.h"
#include "sim/trace_writer.h"

using namespace npu;

namespace {

std::string source_path(const std::string& relative) { return std::string(NPUSIM_SOURCE_DIR) + "/" + relative; }

std::vector<std::string> model_paths() {
  std::vector<std::string> paths = {source_path("models/tiny_convnet.onnx")};
#ifdef NPUSIM_SMALL_MODELS_DIR
  for (const char* name : {"resnet18", "mobilenetv2", "yolo_style"})
    if (const auto p = std::string(NPUSIM_SMALL_MODELS_DIR) + "/" + name + ".onnx"; std::filesystem::exists(p))
      paths.push_back(p);
#endif
  // Exported by PyTorch: a small CNN, a ResNet at opset 11, and a decoder step whose
  // attention runs as CPU steps.
  for (const char* name : {"fashion_mnist_cnn", "resnet_small_opset11", "gpt_tiny_decode"})
    paths.push_back(source_path(std::string("models/exported/") + name + ".onnx"));
  return paths;
}

struct Observed {
  std::uint64_t cycles = 0;
  std::vector<std::pair<std::string, runtime::HostTensor>> outputs;
  std::string report_json;
  std::string trace_json;
};

Observed compile_and_run(const std::string& path, const HardwareConfig& config, bool timing_only = false,
                         container::Precision precision = container::Precision::Int8) {
  compiler::CompileOptions options;
  options.precision = precision;
  // The engine's run, as every app makes it (runtime/engine.h): default seed, declared boundary.
  runtime::RunRequest request;
  request.timing_only = timing_only;
  request.record_trace = true;
  auto run = runtime::compile_and_run(path, config, options, request);
  const auto& model = *run.model.compiled;
  auto report = report::build_model_report(model, config, std::move(run.result.record));
  report::label_trace(report.npu.trace, report::instruction_labels(model.layers, model.program));
  Observed seen;
  seen.cycles = report.npu.cycles;
  seen.outputs = std::move(run.result.outputs);
  seen.report_json = report::model_report_json(report, config).dump();
  std::ostringstream trace;
  sim::write_chrome_trace(report.npu, config, trace);
  seen.trace_json = trace.str();
  return seen;
}

void require_same(const Observed& a, const Observed& b) {
  CHECK(a.cycles == b.cycles);
  REQUIRE(a.outputs.size() == b.outputs.size());
  for (std::size_t i = 0; i < a.outputs.size(); ++i) {
    INFO("output " << a.outputs[i].first);
    CHECK(a.outputs[i].first == b.outputs[i].first);
    CHECK(a.outputs[i].second.shape == b.outputs[i].second.shape);
    CHECK(a.outputs[i].second.bytes == b.outputs[i].second.bytes);
  }
  CHECK(a.report_json == b.report_json);
  CHECK(a.trace_json == b.trace_json);
}

}  // namespace

TEST_CASE("runs repeat exactly, in any order within one process", "[determinism]") {
  const auto config = load_hardware_config(source_path("configs/default.yaml"));
  const auto other = load_hardware_config(source_path("configs/tiny-8x8.yaml"));
  const auto paths = model_paths();
  REQUIRE(paths.size() >= 4);

  std::vector<Observed> first;
  for (const auto& p : paths) {
    INFO(p);
    first.push_back(compile_and_run(p, config));
    if (p.find("gpt_tiny_decode") == std::string::npos) CHECK(first.back().cycles > 0);  // it runs all on the CPU
    CHECK(!first.back().outputs.empty());
    CHECK(!first.back().trace_json.empty());
  }
  // Reverse order, each run preceded by other work on the same process-wide state: another
  // model compiled for another config in FP16, and a timing-only run of this one.
  for (std::size_t k = paths.size(); k-- > 0;) {
    INFO(paths[k]);
    (void)compile_and_run(paths[(k + 1) % paths.size()], other, false, container::Precision::Fp16);
    const auto timing = compile_and_run(paths[k], config, true);
    CHECK(timing.cycles == first[k].cycles);  // timing-only gives the functional run's cycles
    require_same(compile_and_run(paths[k], config), first[k]);
  }
}
