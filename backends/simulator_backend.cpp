// "sim": npusim's own path — compile the ONNX model for the hardware config, run it on the
// SystemC model through the runtime's engine (runtime/engine.h), as `npusim run` does. Its latency is simulated (the report's end-to-end
// latency: NPU steps plus the host model's CPU steps and transitions), not measured.
#include <map>
#include <set>

#include <fmt/format.h>

#include "backends/backend_factories.h"
#include "compiler/frontend/passes.h"
#include "runtime/engine.h"

namespace npu::backends {

namespace {

class SimulatorBackend : public InferenceBackend {
 public:
  explicit SimulatorBackend(HardwareConfig config) : config_(std::move(config)) {}

  std::string name() const override { return "sim"; }
  bool simulated() const override { return true; }

  BackendAvailability availability() override {
    BackendAvailability a;
    a.available = true;
    a.versions.push_back(config_.name.empty() ? "npusim simulator" : fmt::format("npusim simulator, config {}", config_.name));
    return a;
  }

  void load(const std::string& onnx_path, const BackendOptions& options) override {
    compiler::CompileOptions compile;
    compile.precision = container::parse_precision(options.sim_precision);
    compile.strict = options.strict;  // a CPU fallback step is an error naming the node
    compile.input_shapes = options.input_shapes;
    compile.input_values = options.input_values;
    fixed_inputs_.clear();
    for (const auto& spec : options.input_values) fixed_inputs_.insert(compiler::parse_input_value(spec, onnx_path).first);
    precision_ = options.sim_precision;
    timing_only_ = options.timing_only;
    engine_ = std::make_unique<runtime::Engine>(runtime::compile_model(onnx_path, config_, compile), config_);
  }

  BackendRun run(const std::vector<std::pair<std::string, runtime::HostTensor>>& inputs) override {
    runtime::RunRequest request;
    request.timing_only = timing_only_;
    for (const auto& [name, tensor] : inputs)
      if (!fixed_inputs_.count(name)) request.inputs.emplace(name, tensor);
    auto result = engine_->run(request);
    BackendRun out;
    out.outputs = std::move(result.outputs);
    out.latency_us = result.record.latency_us();
    return out;
  }

  std::vector<NodePlacement> placement() override {
    std::vector<NodePlacement> out;
    if (!engine_) return out;
    for (const auto& layer : engine_->compiled().layers) {
      NodePlacement p;
      p.node = layer.name;
      p.op_type = layer.op;
      const bool npu = layer.device == "npu";
      p.device = npu ? "sim NPU" : "CPU";
      p.precision = npu ? precision_ : "fp32";
      p.fallback = !npu;
      out.push_back(std::move(p));
    }
    return out;
  }

 private:
  HardwareConfig config_;
  std::string precision_;
  bool timing_only_ = false;
  std::set<std::string> fixed_inputs_;  // --input-value inputs: constants of the program
  std::unique_ptr<runtime::Engine> engine_;
};

}  // namespace

std::unique_ptr<InferenceBackend> make_simulator_backend(const HardwareConfig& config) {
  return std::make_unique<SimulatorBackend>(config);
}

}  // namespace npu::backends
