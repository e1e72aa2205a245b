// The options that fix a model's inputs at compile time, shared by every command that compiles
// ONNX: --input-shape NAME=1x3x224x224 (dynamic dims) and --input-value NAME=VALUE (an input
// that becomes a constant, e.g. a sample rate an If node tests).
#pragma once
#include "apps/cli/options.h"
#include "compiler/compile.h"

namespace npu::cli {

// `what` prefixes the help texts ("when compiling ONNX: ").
void add_input_options(po::options_description& options, const std::string& what = "");
void read_input_options(const po::variables_map& vm, compiler::CompileOptions& options);

}  // namespace npu::cli
