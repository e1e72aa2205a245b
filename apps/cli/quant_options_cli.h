// The quantisation options every command that compiles ONNX shares (compile, run, quant-report):
// --precision int8|fp16|mixed, --calib-method, --calib-percentile, --activations,
// --accuracy-target, --keep-fp16, --weights, --group-size. One place parses them.
#pragma once
#include "apps/cli/options.h"
#include "compiler/compile.h"

namespace npu::cli {

// --precision included; `what` prefixes the help texts ("when compiling ONNX: ").
void add_quant_options(po::options_description& options, const std::string& what = "");
// Fills precision and options.quant; throws one line naming a bad value.
void read_quant_options(const po::variables_map& vm, compiler::CompileOptions& options);

}  // namespace npu::cli
