#pragma once
#include <string>

#include "isa/program.h"

namespace npu::isa {

// Text form (.npuasm). Throws IsaError "<origin>:<line>:<col>: <message>".
Program assemble(const std::string& text, const std::string& origin);
// Round-trips through assemble() bit-exactly.
std::string disassemble(const Program& program);
std::string disassemble(const Instruction& inst);
// isa/ISA.md, generated from instruction_set.def.
std::string generate_isa_markdown();

}  // namespace npu::isa
