// Types derived from instruction_set.def. Nothing here defines an opcode or a field by hand.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace npu::isa {

constexpr std::size_t kInstructionBytes = 32;  // 256-bit instructions
constexpr int kHeaderBits = 16;                // opcode 8, pop 4, push 4
constexpr int kMaxFields = 24;

// Dependency-token endpoints; the bit index in pop/push masks.
enum class Unit : std::uint8_t { Load = 0, Compute = 1, Vector = 2, Store = 3, Control = 4 };
constexpr int kQueueCount = 4;  // units that own a queue (Control has none)
std::string_view unit_name(Unit u);

enum class FieldKind : std::uint8_t { U, S, F };

enum class Field : std::uint8_t {
#define NPU_FIELD(name, kind, default_value, doc) name,
#define NPU_INSTRUCTION(...)
#include "isa/instruction_set.def"
#undef NPU_FIELD
#undef NPU_INSTRUCTION
  kCount
};

enum class Opcode : std::uint8_t {
#define NPU_FIELD(...)
#define NPU_INSTRUCTION(name, mnemonic, unit, fields, semantics, timing) name,
#include "isa/instruction_set.def"
#undef NPU_FIELD
#undef NPU_INSTRUCTION
  kCount
};

enum class DType : std::uint8_t { Int8 = 0, Int32 = 1, Fp16 = 2, Fp32 = 3 };
std::size_t dtype_bytes(DType t);
std::string_view dtype_name(DType t);

struct FieldInfo {
  std::string_view name;
  FieldKind kind;
  std::string_view doc;
  std::int64_t default_bits = 0;  // the table default as stored in Instruction::values
};
const FieldInfo& field_info(Field f);
// nullptr when unknown
const FieldInfo* find_field(std::string_view name);

struct FieldSlot {
  Field field;
  int width_bits;
  int offset_bits;  // from bit 0 of the instruction
};

struct OpcodeInfo {
  Opcode opcode;
  std::string_view mnemonic;
  Unit unit;
  std::string_view semantics;
  std::string_view timing;
  int field_count;
  std::array<FieldSlot, kMaxFields> fields;
  int used_bits = kHeaderBits;  // bits [used_bits, 256) are always zero
};
const OpcodeInfo& opcode_info(Opcode op);
// nullptr when unknown
const OpcodeInfo* find_opcode(std::string_view mnemonic);
// Index of `f` in opcode_info(op).fields (and Instruction::values), or -1. Table lookup.
int field_slot(Opcode op, Field f);

}  // namespace npu::isa
