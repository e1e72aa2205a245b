// "sim": npusim's own path — compile the ONNX model for the hardware config, run it on the
// SystemC model through a runtime Session. Its latency is simulated (the report's end-to-end
// latency: NPU steps plus the host model's CPU steps and transitions), not measured.
#include <map>

#include <fmt/format.h>

#include "backends/backend_factories.h"
#include "runtime/compiled_model_io.h"
#include "runtime/onnx_model_info.h"
#include "runtime/session.h"

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
    precision_ = options.sim_precision;
    auto model = runtime::load_or_compile(onnx_path, config_, compile);
    runtime::SessionOptions session;
    session.timing_only = options.timing_only;
    session_ = std::make_unique<runtime::Session>(std::move(model), config_, session, onnx_path);
    session_->declare_boundary(runtime::read_onnx_model_file_info(onnx_path));
  }

  BackendRun run(const std::vector<std::pair<std::string, runtime::HostTensor>>& inputs) override {
    std::map<std::string, runtime::HostTensor> given(inputs.begin(), inputs.end());
    auto result = session_->run(given);
    BackendRun out;
    out.outputs = std::move(result.outputs);
    out.latency_us = result.record.latency_us();
    return out;
  }

  std::vector<NodePlacement> placement() override {
    std::vector<NodePlacement> out;
    if (!session_) return out;
    for (const auto& layer : session_->model().layers) {
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
  std::unique_ptr<runtime::Session> session_;
};

}  // namespace

std::unique_ptr<InferenceBackend> make_simulator_backend(const HardwareConfig& config) {
  return std::make_unique<SimulatorBackend>(config);
}

}  // namespace npu::backends
