// The compiler's entry point: an ONNX file and a hardware config in, a compiled model (program
// plus execution plan, container/compiled_model.h) out.
#pragma once
#include <string>

#include "compiler/core/compile_options.h"
#include "hwconfig/hardware_config.h"

namespace npu::compiler {

// Each NPU step's estimated_cycles is the timing core's exact figure (time_npu_steps).
CompiledModel compile(const std::string& onnx_path, const HardwareConfig& config,
                      const CompileOptions& options);

// Sets every NPU step's estimated_cycles: the timing core's cycles for it, which a timing-only
// simulation of the step equals. Throws CompileError when a step fails the simulator's checks.
void time_npu_steps(const HardwareConfig& config, CompiledModel& model);

}  // namespace npu::compiler
