// Getting a compiled model: from a .npuprog, or by compiling ONNX; saving one; and the lines
// `npusim compile` prints about it.
#pragma once
#include <string>

#include "compiled_model.h"
#include "hardware_config.h"

namespace npu::runtime {

// A .npuprog (recognised by its magic, whatever the extension) is loaded; anything else is
// compiled as ONNX with `options`. `compiled` says which happened.
compiler::CompiledModel load_or_compile(const std::string& path, const HardwareConfig& config,
                                        const compiler::CompileOptions& options, bool* compiled = nullptr);
// The plan goes into the program as an extra section, so the file runs without the ONNX.
void save_compiled_model(compiler::CompiledModel& model, const std::string& path);

compiler::Precision parse_precision(const std::string& text);  // "int8" | "fp16", else throws
const char* precision_name(compiler::Precision p);

// `--explain`: node counts before and after each pass.
std::string format_passes(const compiler::CompiledModel& model);
// What was written: instructions, steps, layers, fallbacks with reasons.
std::string format_compile_summary(const compiler::CompiledModel& model, const std::string& model_path,
                                   const std::string& out_path);

}  // namespace npu::runtime
