// Calibration inputs: a .npy file of float32/float64/float16/int* values as an FP32 tensor.
#pragma once
#include <string>

#include "compiler/reference/float_evaluator.h"

namespace npu::compiler {

// Throws CompileError naming the file for anything it cannot read.
FloatTensor read_npy_as_float(const std::string& path);

}  // namespace npu::compiler
