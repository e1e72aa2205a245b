// Executes the CPU steps of a compiled model: each one is a self-contained FP32 ONNX model
// (ONNX semantics, NCHW). A session chains three executors, each passing what it does not
// take to the next: our integer kernels, the compiler's FP32 evaluator, ONNX Runtime.
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

// ONNX Runtime's CPUExecutionProvider, through Python (the `onnxruntime` package of
// scripts/requirements.txt): the Python bridge (runtime/python_bridge.h) is loaded on the
// first step this executor runs, not before. Throws then, naming what is missing, when the
// bridge, libpython or the package cannot be loaded.
std::unique_ptr<CpuExecutor> make_onnxruntime_executor();

// The compiler's FP32 evaluator (compiler/reference/float_evaluator.h) for every step whose nodes it
// all supports and whose computed values are all float32 (integer step inputs are taken when
// exactly representable); other steps go to `next`. Decided per step, once.
std::unique_ptr<CpuExecutor> make_float_evaluator_executor(std::unique_ptr<CpuExecutor> next);

// Our own kernels for single element-wise integer nodes ONNX Runtime's CPU provider lacks
// (Add/Sub/Mul/Div uint8, Max/Min int8/int16/uint8/uint16, BitShift uint16, Pow with
// unsigned exponents); every other step goes to `next`.
std::unique_ptr<CpuExecutor> make_integer_cpu_kernels(std::unique_ptr<CpuExecutor> next);

}  // namespace npu::runtime
