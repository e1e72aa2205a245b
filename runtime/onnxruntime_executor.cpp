// CPU steps on ONNX Runtime: the executor itself lives in the Python bridge
// (runtime/python_bridge.h), which is loaded the first time a step needs it.
#include <stdexcept>

#include <fmt/format.h>

#include "runtime/cpu_executor.h"
#include "runtime/python_bridge.h"

namespace npu::runtime {

namespace {

class OnnxRuntimeThroughBridge : public CpuExecutor {
 public:
  std::string name() const override { return "onnxruntime"; }

  std::vector<HostTensor> run(std::size_t step_index, const container::CpuStep& step,
                              const std::vector<HostTensor>& inputs) override {
    if (!executor_) {
      try {
        executor_.reset(python_bridge_function<MakeOnnxRuntimeExecutorFn>(kMakeOnnxRuntimeExecutor)());
      } catch (const std::exception& e) {
        throw std::runtime_error(fmt::format("CPU step {} ({} nodes, first '{}') needs ONNX Runtime: {}", step_index,
                                             step.node_names.size(),
                                             step.node_names.empty() ? "" : step.node_names.front(), e.what()));
      }
    }
    return executor_->run(step_index, step, inputs);
  }

 private:
  std::unique_ptr<CpuExecutor> executor_;  // made by the bridge on first use
};

}  // namespace

std::unique_ptr<CpuExecutor> make_onnxruntime_executor() { return std::make_unique<OnnxRuntimeThroughBridge>(); }

}  // namespace npu::runtime
