// What the runtime lends the compiler for INT8 calibration: nodes the FP32 reference evaluator
// has no kernel for run on ONNX Runtime, like CPU steps do (CompileOptions::host_runner). The
// compiler itself never loads Python; this is where the runtime injects it.
#pragma once
#include "compiler/core/compile_options.h"

namespace npu::runtime {

// A HostStepRunner on ONNX Runtime (make_onnxruntime_executor: Python is loaded on the first
// node calibration cannot run itself, never before). Each distinct step is prepared once.
compiler::HostStepRunner onnxruntime_host_runner();

// `options` with host_runner set to onnxruntime_host_runner() unless the caller set one.
compiler::CompileOptions with_host_runner(const compiler::CompileOptions& options);

}  // namespace npu::runtime
