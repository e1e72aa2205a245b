// A decoded instruction: opcode, dependency tokens and field values by name.
#pragma once
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "isa/instruction_set.h"

namespace npu::isa {

struct Instruction {
  Opcode opcode = Opcode::Halt;
  std::uint8_t pop = 0;   // bit i: consume a token from unit i before starting
  std::uint8_t push = 0;  // bit i: give a token to unit i after finishing
  // Raw field bits in the opcode's field order (opcode_info(opcode).fields);
  // signed fields are stored sign-extended, float fields as their IEEE-754 bits.
  std::array<std::int64_t, kMaxFields> values{};

  Unit unit() const { return opcode_info(opcode).unit; }
  bool has(Field f) const;
  std::int64_t get(Field f) const;  // throws IsaError if the opcode has no such field
  float get_float(Field f) const;
  // Checks the value fits the field's width and kind; throws IsaError naming the field.
  void set(Field f, std::int64_t value);
  void set_float(Field f, float value);

  bool operator==(const Instruction& o) const {
    return opcode == o.opcode && pop == o.pop && push == o.push && values == o.values;
  }
};

struct IsaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// An instruction of opcode `op` with every field at its table default (what the assembler
// produces when all fields are omitted). A value-initialised Instruction has all bits zero.
Instruction make_instruction(Opcode op);

using EncodedInstruction = std::array<std::uint8_t, kInstructionBytes>;

EncodedInstruction encode(const Instruction& inst);
// Throws IsaError for out-of-range values or masks (encode), an unknown opcode or set bits
// beyond the last field (decode).
Instruction decode(const std::uint8_t* bytes);

}  // namespace npu::isa
