// The lines `npusim compile` prints about a compiled model.
#pragma once
#include <string>

#include "container/compiled_model.h"

namespace npu::report {

// `--explain`: node counts before and after each pass.
std::string format_passes(const container::CompiledModel& model);
// What was written: instructions, steps, layers, fallbacks with reasons.
std::string format_compile_summary(const container::CompiledModel& model, const std::string& model_path,
                                   const std::string& out_path);

}  // namespace npu::report
