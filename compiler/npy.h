// NumPy .npy files (calibration inputs): float32/float64/float16/int* little-endian, C order.
#pragma once
#include <string>

#include "reference_interpreter.h"

namespace npu::compiler {

// Throws CompileError naming the file for anything it cannot read.
FloatTensor read_npy(const std::string& path);

}  // namespace npu::compiler
