// The runtime's tensor files use the compiler's .npy reader/writer (one parser per project).
#pragma once
#include "npy_file.h"

namespace npu::runtime {
using compiler::NpyArray;
using compiler::read_npy;
using compiler::write_npy;
}  // namespace npu::runtime
