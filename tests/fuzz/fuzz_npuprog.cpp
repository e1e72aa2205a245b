// The .npuprog loader: the binary container, then the execution plan inside it, then the
// disassembler over what was loaded. The header's size and checksum are made to agree with
// the mutated bytes first: otherwise nearly every input stops at "checksum mismatch".
#include <vector>

#include "container/compiled_model.h"
#include "isa/assembler.h"
#include "isa/program.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace npu;
  std::vector<std::uint8_t> bytes(data, data + size);
  isa::reseal_program_bytes(bytes);
  try {
    isa::Program program = isa::deserialize(bytes.data(), bytes.size(), "fuzz.npuprog");
    const auto model = container::plan_from_program(std::move(program), "fuzz.npuprog");
    (void)isa::disassemble(model.program);
    const auto again = isa::serialize(model.program);
    fuzz::require(isa::serialize(isa::deserialize(again.data(), again.size(), "fuzz-again.npuprog")) == again,
                  "a loaded program does not survive serialize/deserialize");
  } catch (const std::exception& e) {
    fuzz::require_clean_error(e, "fuzz.npuprog");
  }
  return 0;
}
