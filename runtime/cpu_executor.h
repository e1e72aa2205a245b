// Executes the CPU steps of a compiled model: each one is a self-contained FP32 ONNX model
// (ONNX semantics, NCHW). Behind an interface so our own kernels can replace
// ONNX Runtime op by op later.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "container/compiled_model.h"
#include "runtime/tensor.h"

namespace npu::runtime {

class CpuExecutor {
 public:
  virtual ~CpuExecutor() = default;
  virtual std::string name() const = 0;
  // `step_index` identifies the step so an executor may prepare it once and reuse it.
  // Inputs come in step.inputs order, outputs go in step.outputs order.
  virtual std::vector<HostTensor> run(std::size_t step_index, const container::CpuStep& step,
                                      const std::vector<HostTensor>& inputs) = 0;
};

// ONNX Runtime's CPUExecutionProvider through the embedded Python interpreter (the
// `onnxruntime` package of scripts/requirements.txt). Throws on first use, naming what is
// missing, when the package cannot be imported.
std::unique_ptr<CpuExecutor> make_onnxruntime_executor();

// Our own kernels for single element-wise integer nodes ONNX Runtime's CPU provider lacks
// (Add/Sub/Mul/Div uint8, Max/Min int8/int16/uint8/uint16, BitShift uint16, Pow with
// unsigned exponents); every other step goes to `next`.
std::unique_ptr<CpuExecutor> make_integer_cpu_kernels(std::unique_ptr<CpuExecutor> next);

}  // namespace npu::runtime
