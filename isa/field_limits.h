// Compile-time field widths and value ranges, straight from instruction_set.def: what one
// instruction can express. Use these instead of typing a limit (constexpr, so they work in
// static_asserts and constant initialisers):
//   constexpr auto kTileDimMax = isa::field_max(isa::Opcode::Conv, isa::Field::in_h);  // 4095
#pragma once
#include <cstdint>

#include "isa/isa_tables.h"

namespace npu::isa {

// Width in bits of `f` in `op`, or 0 when `op` has no such field.
constexpr int field_width(Opcode op, Field f) {
  const int slot = detail::kSlotTable[static_cast<int>(op)][static_cast<int>(f)];
  return slot < 0 ? 0 : detail::kLayouts[static_cast<int>(op)].slots[slot].width_bits;
}

// Largest value the field holds: 2^w - 1 (U), 2^(w-1) - 1 (S), for an enum field the last
// enumerator (its count - 1), and 0 when `op` has no such field. F fields hold float bits: use
// the float itself.
constexpr std::int64_t field_max(Opcode op, Field f) {
  const int slot = detail::kSlotTable[static_cast<int>(op)][static_cast<int>(f)];
  if (slot < 0) return 0;
  const FieldSlot& s = detail::kLayouts[static_cast<int>(op)].slots[slot];
  if (s.enum_type != EnumType::None) return detail::kEnumCounts[static_cast<int>(s.enum_type)] - 1;
  const int w = s.width_bits;
  if (detail::kFieldKinds[static_cast<int>(f)] == FieldKind::S)
    return w >= 64 ? INT64_MAX : (std::int64_t{1} << (w - 1)) - 1;
  return w >= 63 ? INT64_MAX : (std::int64_t{1} << w) - 1;
}

// Smallest value: -2^(w-1) for S fields, else 0.
constexpr std::int64_t field_min(Opcode op, Field f) {
  const int w = field_width(op, f);
  if (w == 0 || detail::kFieldKinds[static_cast<int>(f)] != FieldKind::S) return 0;
  return w >= 64 ? INT64_MIN : -(std::int64_t{1} << (w - 1));
}

// Number of values of an enum (0 for None).
constexpr int enum_count(EnumType t) { return detail::kEnumCounts[static_cast<int>(t)]; }

}  // namespace npu::isa
