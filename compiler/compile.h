// The compiler's entry point: an ONNX file and a hardware config in, a compiled model (program
// plus execution plan, container/compiled_model.h) out.
#pragma once
#include <string>

#include "compiler/core/compile_options.h"
#include "hwconfig/hardware_config.h"

namespace npu::compiler {

CompiledModel compile(const std::string& onnx_path, const HardwareConfig& config,
                      const CompileOptions& options);

}  // namespace npu::compiler
