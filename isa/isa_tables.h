// Compile-time tables derived from instruction_set.def (included by isa/field_limits.h,
// the public constexpr view; other code should use that or instruction_set.h).
// Layout (offsets), per-opcode field lists and the [opcode][field] -> slot lookup are all
// computed here; static_asserts reject a table whose fields do not fit an instruction.
#pragma once
#include <array>
#include <cstdint>
#include <initializer_list>

#include "isa/instruction_set.h"

namespace npu::isa::detail {

constexpr int kOpcodeCount = static_cast<int>(Opcode::kCount);
constexpr int kFieldCount = static_cast<int>(Field::kCount);
constexpr int kInstructionBits = static_cast<int>(kInstructionBytes) * 8;

constexpr int kEnumTypeCount = static_cast<int>(EnumType::kCount);

constexpr std::array<FieldKind, kFieldCount> kFieldKinds = {
#define NPU_FIELD(name, kind, default_value, doc) FieldKind::kind,
#include "isa/instruction_set.def"
};

// Values per enum type (index EnumType; None has 0).
constexpr std::array<int, kEnumTypeCount> kEnumCounts = {
    0,
#define NPU_ENUM_BEGIN(type, doc) enum_count_of(type{}),
#include "isa/instruction_set.def"
};

struct EnumRowDef {
  EnumType type;
  int value;
};
constexpr EnumRowDef kEnumRowDefs[] = {
#define NPU_ENUM(type, name, spelling, value, passes, doc) {EnumType::type, value},
#include "isa/instruction_set.def"
};

// Each enum's values are 0, 1, 2, ... in table order, its rows are contiguous and the enums
// follow each other in NPU_ENUM_BEGIN order (instruction_set.cpp relies on that grouping).
constexpr bool enums_valid() {
  int next = 0;
  EnumType current = EnumType::None;
  for (const EnumRowDef& r : kEnumRowDefs) {
    if (r.type != current) {
      if (static_cast<int>(r.type) != static_cast<int>(current) + 1) return false;
      if (current != EnumType::None && next != kEnumCounts[static_cast<int>(current)]) return false;
      current = r.type;
      next = 0;
    }
    if (r.value != next++) return false;
  }
  return static_cast<int>(current) == kEnumTypeCount - 1 &&
         (current == EnumType::None || next == kEnumCounts[static_cast<int>(current)]);
}
static_assert(enums_valid(), "instruction_set.def: an enum's values must run 0, 1, 2, ... in order");

struct SlotDef {
  Field field;
  int width;
  EnumType enum_type = EnumType::None;
};

struct OpLayout {
  int count = 0;
  std::array<FieldSlot, kMaxFields> slots{};
  int used_bits = kHeaderBits;
};

// A field list that does not fit is not a constant expression: the throw stops compilation.
constexpr OpLayout make_layout(std::initializer_list<SlotDef> defs) {
  OpLayout l{};
  for (const SlotDef& d : defs) {
    if (l.count >= kMaxFields) throw "instruction_set.def: more than kMaxFields fields";
    l.slots[l.count++] = FieldSlot{d.field, d.width, l.used_bits, d.enum_type};
    l.used_bits += d.width;
  }
  return l;
}

constexpr std::array<OpLayout, kOpcodeCount> kLayouts = {
#define NPU_SLOT(name, width) SlotDef{Field::name, width},
#define NPU_ENUM_SLOT(name, width, type) SlotDef{Field::name, width, EnumType::type},
#define NPU_INSTRUCTION(name, mnemonic, unit, fields, semantics, timing) \
  make_layout({fields(NPU_SLOT, NPU_ENUM_SLOT)}),
#include "isa/instruction_set.def"
#undef NPU_SLOT
#undef NPU_ENUM_SLOT
};

// Every instruction fits 256 bits, widths suit their kinds, no field appears twice, an enum
// field is unsigned and wide enough for all its values.
constexpr bool layouts_valid() {
  for (const OpLayout& l : kLayouts) {
    if (l.used_bits > kInstructionBits) return false;
    for (int i = 0; i < l.count; ++i) {
      const FieldSlot& s = l.slots[i];
      FieldKind k = kFieldKinds[static_cast<int>(s.field)];
      if (s.width_bits < 1) return false;
      if (k == FieldKind::U && s.width_bits > 63) return false;
      if (k == FieldKind::S && s.width_bits > 64) return false;
      if (k == FieldKind::F && s.width_bits != 32) return false;
      if (s.enum_type != EnumType::None &&
          (k != FieldKind::U || s.width_bits > 16 ||
           kEnumCounts[static_cast<int>(s.enum_type)] > (1 << s.width_bits)))
        return false;
      for (int j = 0; j < i; ++j)
        if (l.slots[j].field == s.field) return false;
    }
  }
  return true;
}
static_assert(layouts_valid(),
              "instruction_set.def: an instruction exceeds 240 field bits, repeats a field, a "
              "field width does not suit its kind (U 1..63, S 1..64, F exactly 32), or an enum "
              "field is not U or too narrow for its values");

using SlotTable = std::array<std::array<std::int8_t, kFieldCount>, kOpcodeCount>;
constexpr SlotTable make_slot_table() {
  SlotTable t{};
  for (auto& row : t)
    for (auto& v : row) v = -1;
  for (int op = 0; op < kOpcodeCount; ++op)
    for (int i = 0; i < kLayouts[op].count; ++i)
      t[op][static_cast<int>(kLayouts[op].slots[i].field)] = static_cast<std::int8_t>(i);
  return t;
}
constexpr SlotTable kSlotTable = make_slot_table();

}  // namespace npu::isa::detail
