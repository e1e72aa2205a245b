// Getting a compiled model: from a .npuprog, or by compiling ONNX; saving one.
#pragma once
#include <string>

#include "compiler/compile.h"
#include "container/compiled_model.h"
#include "hwconfig/hardware_config.h"

namespace npu::runtime {

// A .npuprog (recognised by its magic, whatever the extension) is loaded; anything else is
// compiled as ONNX with `options` (calibration running what the FP32 evaluator cannot on ONNX
// Runtime unless options.host_runner says otherwise: calibration_host_runner.h). `compiled` says which happened.
container::CompiledModel load_or_compile(const std::string& path, const HardwareConfig& config,
                                        const compiler::CompileOptions& options, bool* compiled = nullptr);
// The plan goes into the program as an extra section, so the file runs without the ONNX.
void save_compiled_model(container::CompiledModel& model, const std::string& path);

}  // namespace npu::runtime
