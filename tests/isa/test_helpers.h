#pragma once
#include <cstring>
#include <random>

#include "isa/assembler.h"
#include "isa/instruction.h"

namespace npu::isa::test {

// What assembling `text` reports, or "(no error)".
inline std::string error_of(const std::string& text) {
  try {
    assemble(text, "t.npuasm");
  } catch (const IsaError& e) {
    return e.what();
  }
  return "(no error)";
}

// A random instruction of `op`: every field uniformly in range, with a bias to the extremes
// (max, min, -1, 0) so the widest and negative values are exercised.
inline Instruction random_instruction(Opcode op, std::mt19937_64& rng) {
  Instruction inst;
  inst.opcode = op;
  const OpcodeInfo& info = opcode_info(op);
  for (int i = 0; i < info.field_count; ++i) {
    const FieldSlot& s = info.fields[i];
    const FieldKind kind = field_info(s.field).kind;
    const int w = s.width_bits;
    std::int64_t lo = kind == FieldKind::S ? -(std::int64_t(1) << (w - 1)) : 0;
    std::int64_t hi = kind == FieldKind::S ? (std::int64_t(1) << (w - 1)) - 1 : (std::int64_t(1) << w) - 1;
    std::int64_t v;
    switch (rng() % 6) {
      case 0: v = hi; break;
      case 1: v = lo; break;
      case 2: v = kind == FieldKind::S ? -1 : 0; break;
      default: v = lo + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(hi - lo + 1));
    }
    if (kind == FieldKind::F) {
      const float specials[] = {0.0f, -0.0f, 1.0f, -2.5f, 1e-45f, 3.4028235e38f, 1.0f / 3.0f,
                                std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()};
      float f = specials[rng() % 9];
      std::uint32_t bits;
      std::memcpy(&bits, &f, 4);
      if (rng() % 3 == 0) bits = static_cast<std::uint32_t>(rng());  // any bits, NaNs included
      v = bits;
    }
    inst.set(s.field, v);
  }
  inst.pop = static_cast<std::uint8_t>(rng() % 16);
  inst.push = static_cast<std::uint8_t>(rng() % 16);
  return inst;
}

}  // namespace npu::isa::test
