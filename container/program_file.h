#pragma once
#include <string>

#include "isa/program.h"

namespace npu::container {

// A program from a binary .npuprog or an assembly .npuasm file (chosen by content).
isa::Program load_program_file(const std::string& path);

}  // namespace npu::container
