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

// The table's NPU_CONSTANT lines: isa::kSharedSramBase, ...
#define NPU_CONSTANT(name, value, doc) constexpr std::uint64_t name = value;
#include "isa/instruction_set.def"

struct ConstantInfo {
  std::string_view name;
  std::uint64_t value;
  std::string_view doc;
};
constexpr ConstantInfo kConstants[] = {
#define NPU_CONSTANT(name, value, doc) {#name, value, doc},
#include "isa/instruction_set.def"
};

enum class Field : std::uint8_t {
#define NPU_FIELD(name, kind, default_value, doc) name,
#include "isa/instruction_set.def"
  kCount
};

enum class Opcode : std::uint8_t {
#define NPU_INSTRUCTION(name, mnemonic, unit, fields, semantics, timing) name,
#include "isa/instruction_set.def"
  kCount
};

// The value sets of enum fields (NPU_ENUM in the table): one C++ enum per set, e.g.
// ActFunction::Gelu, DType::Fp16. No kCount enumerator (switches over them stay complete):
// enum_count<ActFunction>() is the number of values.
#define NPU_ENUM_BEGIN(type, doc) enum class type : std::uint8_t {
#define NPU_ENUM(type, name, spelling, value, passes, doc) name = value,
#define NPU_ENUM_END(type) };
#include "isa/instruction_set.def"

#define NPU_ENUM_BEGIN(type, doc) constexpr int enum_count_of(type) { return 0
#define NPU_ENUM(type, name, spelling, value, passes, doc) +1
#define NPU_ENUM_END(type) ; }
#include "isa/instruction_set.def"
template <typename E>
constexpr int enum_count() {
  return enum_count_of(E{});
}

// Names the enums above at run time (FieldSlot::enum_type); None: a plain number.
enum class EnumType : std::uint8_t {
  None,
#define NPU_ENUM_BEGIN(type, doc) type,
#include "isa/instruction_set.def"
  kCount
};

std::size_t dtype_bytes(DType t);
std::string_view dtype_name(DType t);  // the table spelling: "int8", "fp16", ...

struct EnumValueInfo {
  std::string_view name;  // assembler spelling
  int value;
  int passes;  // vector-unit passes of a function (timing); 0 if not a function
  std::string_view doc;
};
struct EnumInfo {
  EnumType type;
  std::string_view name;  // C++ type name, e.g. "ActFunction"
  std::string_view doc;
  const EnumValueInfo* values;  // values[v] for v < count
  int count;
};
const EnumInfo& enum_info(EnumType t);  // throws std::out_of_range for kCount
// The spelling of `value`, or "" when it is not a value of `t`.
std::string_view enum_value_name(EnumType t, std::int64_t value);
// The value spelled `name`, or -1.
int find_enum_value(EnumType t, std::string_view name);
int enum_passes(EnumType t, std::int64_t value);  // 0 when not a value

// Typed access: enum_type_of(ActFunction{}) == EnumType::ActFunction, enum_name(DType::Fp16) == "fp16".
#define NPU_ENUM_BEGIN(type, doc) \
  constexpr EnumType enum_type_of(type) { return EnumType::type; }
#include "isa/instruction_set.def"
template <typename E>
std::string_view enum_name(E v) {
  return enum_value_name(enum_type_of(v), static_cast<std::int64_t>(v));
}

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
  EnumType enum_type = EnumType::None;  // values are this enum's (E(...) in the table)
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
// The enum a field of `op` takes its values from (None for plain numbers or no such field).
EnumType field_enum(Opcode op, Field f);
// Compile-time field widths and value ranges: isa/field_limits.h (field_max(op, f), ...).

}  // namespace npu::isa
