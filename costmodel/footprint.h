// Which scratchpad and DDR bytes an instruction reads and writes: its operands as the ISA
// table defines them (isa/operands.h; the Operands sections of isa/ISA.md), the same spans
// costmodel/program_plan checks against the capacity. The compiler derives its dependency tokens
// from these (compiler/backend/dependency_tokens.h). A strided DMA box or broadcast operand counts as
// its whole span, so a footprint may be larger than the bytes moved, never smaller.
#pragma once
#include <optional>
#include <cstdint>
#include <vector>

#include "isa/instruction.h"

namespace npu::cost {

struct ByteRange {
  std::uint64_t begin = 0, end = 0;  // [begin, end)
};

struct Footprint {
  std::vector<ByteRange> sram_read, sram_write, ddr_read, ddr_write;
  // False for an opcode the ISA does not know: treat it as touching the whole scratchpad.
  bool known = true;
};

Footprint footprint(const isa::Instruction& inst);

// Where `later` conflicts with `earlier` (one writes bytes the other reads or writes, scratchpad
// or DDR): the first overlapping bytes found and which hazard it is ("read after write of sram").
struct FootprintConflict {
  ByteRange bytes;
  const char* what;
};
std::optional<FootprintConflict> first_conflict(const Footprint& earlier, const Footprint& later);

// Bytes a load, mload or store moves (len0 * count1 * count2 * count3), a gather len0 * count; 0 for
// other instructions.
std::uint64_t transfer_bytes(const isa::Instruction& inst);

// The DDR bytes an instruction of engine `engine` moves: transfer_bytes, but 0 in the shared
// SRAM window and for an mload of an engine other than its group's first (that one reads the
// group's bytes once).
std::uint64_t ddr_transfer_bytes(const isa::Instruction& inst, std::size_t engine);

}  // namespace npu::cost
