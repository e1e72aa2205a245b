#include "runtime/calibration_host_runner.h"

#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>

#include "runtime/cpu_executor.h"
#include "runtime/tensor_conversion.h"

namespace npu::runtime {

namespace {

struct OnnxRuntimeForCalibration {
  std::unique_ptr<CpuExecutor> executor = make_onnxruntime_executor();
  // The executor prepares a session per step index: one index per distinct one-node model.
  std::map<std::vector<std::uint8_t>, std::size_t> step_indices;
};

HostTensor to_host(const compiler::HostStepInput& input) {
  HostTensor f = make_host_tensor(ElementType::Float32, input.value->shape);
  std::memcpy(f.bytes.data(), input.value->data.data(), input.value->data.size() * sizeof(float));
  const auto type = element_type_from_onnx(input.elem_type);
  if (!type) throw std::runtime_error("ONNX element type " + std::to_string(input.elem_type) + " has no host type");
  return cast(f, *type);
}

compiler::FloatTensor to_float(const HostTensor& t) {
  const HostTensor f = cast(t, ElementType::Float32);
  compiler::FloatTensor out;
  out.shape = f.shape;
  out.data.resize(static_cast<std::size_t>(f.element_count()));
  std::memcpy(out.data.data(), f.bytes.data(), out.data.size() * sizeof(float));
  return out;
}

}  // namespace

compiler::HostStepRunner onnxruntime_host_runner() {
  auto ort = std::make_shared<OnnxRuntimeForCalibration>();
  return [ort](const container::CpuStep& step, const std::vector<compiler::HostStepInput>& inputs) {
    const std::size_t index = ort->step_indices.emplace(step.onnx_model, ort->step_indices.size()).first->second;
    std::vector<HostTensor> feed;
    feed.reserve(inputs.size());
    for (const auto& in : inputs) feed.push_back(to_host(in));
    std::vector<compiler::FloatTensor> outputs;
    for (const auto& out : ort->executor->run(index, step, feed)) outputs.push_back(to_float(out));
    return outputs;
  };
}

compiler::CompileOptions with_host_runner(const compiler::CompileOptions& options) {
  compiler::CompileOptions out = options;
  if (!out.host_runner) out.host_runner = onnxruntime_host_runner();
  return out;
}

}  // namespace npu::runtime
