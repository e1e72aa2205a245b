// The .npuasm assembler, and its promise asm(disasm(p)) == p for every program it accepts.
#include <string>

#include "isa/assembler.h"
#include "isa/program.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace npu;
  const std::string text(reinterpret_cast<const char*>(data), size);
  isa::Program program;
  try {
    program = isa::assemble(text, "fuzz.npuasm");
  } catch (const std::exception& e) {
    fuzz::require_clean_error(e, "fuzz.npuasm");
    return 0;
  }
  const std::string listing = isa::disassemble(program);
  isa::Program again;
  try {
    again = isa::assemble(listing, "fuzz-disassembled.npuasm");
  } catch (const std::exception&) {
    fuzz::require(false, "the disassembly of an accepted program does not assemble");
  }
  fuzz::require(isa::serialize(again) == isa::serialize(program), "asm(disasm(p)) != p");
  return 0;
}
