// Field access with range checks, and the 256-bit encoding (layout from isa_tables.h).
#include "isa/instruction.h"

#include <cstring>
#include <fmt/format.h>

#include "isa/isa_tables.h"

namespace npu::isa {
namespace {

using Words = std::array<std::uint64_t, 4>;

std::uint64_t mask_of(int width) { return width >= 64 ? ~0ull : (1ull << width) - 1; }

std::string_view mnemonic_of(Opcode op) {
  return static_cast<int>(op) < detail::kOpcodeCount ? opcode_info(op).mnemonic : "?";
}

[[noreturn]] void throw_no_field(Opcode op, Field f) {
  if (static_cast<int>(op) >= detail::kOpcodeCount)
    throw IsaError(fmt::format("unknown opcode {}", static_cast<int>(op)));
  throw IsaError(fmt::format("{} has no field '{}'", mnemonic_of(op),
                             static_cast<int>(f) < detail::kFieldCount ? field_info(f).name : "?"));
}

int slot_or_throw(Opcode op, Field f) {
  auto o = static_cast<unsigned>(op), i = static_cast<unsigned>(f);
  if (o >= static_cast<unsigned>(detail::kOpcodeCount) ||
      i >= static_cast<unsigned>(detail::kFieldCount))
    throw_no_field(op, f);
  int s = detail::kSlotTable[o][i];
  if (s < 0) throw_no_field(op, f);
  return s;
}

struct Range {
  std::int64_t lo, hi;
};
Range range_of(FieldKind kind, int width) {
  if (kind == FieldKind::S) {
    if (width >= 64) return {INT64_MIN, INT64_MAX};
    return {-(std::int64_t(1) << (width - 1)), (std::int64_t(1) << (width - 1)) - 1};
  }
  return {0, static_cast<std::int64_t>(mask_of(width))};
}

void check_range(Opcode op, const FieldSlot& slot, std::int64_t value) {
  const FieldInfo& fi = field_info(slot.field);
  Range r = range_of(fi.kind, slot.width_bits);
  if (value >= r.lo && value <= r.hi) return;
  const char* kind = fi.kind == FieldKind::U ? "unsigned" : fi.kind == FieldKind::S ? "signed"
                                                                                     : "float-bits";
  throw IsaError(fmt::format("{}: {} = {} is out of range [{}, {}] ({}-bit {} field)",
                             mnemonic_of(op), fi.name, value, r.lo, r.hi, slot.width_bits, kind));
}

void put_bits(Words& w, int offset, int width, std::uint64_t v) {
  v &= mask_of(width);
  int i = offset / 64, b = offset % 64;
  w[i] |= v << b;
  if (b + width > 64) w[i + 1] |= v >> (64 - b);
}

std::uint64_t get_bits(const Words& w, int offset, int width) {
  int i = offset / 64, b = offset % 64;
  std::uint64_t v = w[i] >> b;
  if (b + width > 64) v |= w[i + 1] << (64 - b);
  return v & mask_of(width);
}

}  // namespace

bool Instruction::has(Field f) const { return field_slot(opcode, f) >= 0; }

std::int64_t Instruction::get(Field f) const { return values[slot_or_throw(opcode, f)]; }

float Instruction::get_float(Field f) const {
  int s = slot_or_throw(opcode, f);
  if (field_info(f).kind != FieldKind::F)
    throw IsaError(fmt::format("{}: {} is not a float field", mnemonic_of(opcode), field_info(f).name));
  auto bits = static_cast<std::uint32_t>(values[s]);
  float out;
  std::memcpy(&out, &bits, 4);
  return out;
}

void Instruction::set(Field f, std::int64_t value) {
  int s = slot_or_throw(opcode, f);
  check_range(opcode, opcode_info(opcode).fields[s], value);
  values[s] = value;
}

void Instruction::set_float(Field f, float value) {
  int s = slot_or_throw(opcode, f);
  if (field_info(f).kind != FieldKind::F)
    throw IsaError(fmt::format("{}: {} is not a float field", mnemonic_of(opcode), field_info(f).name));
  std::uint32_t bits;
  std::memcpy(&bits, &value, 4);
  values[s] = bits;
}

Instruction make_instruction(Opcode op) {
  Instruction inst;
  inst.opcode = op;
  const OpcodeInfo& info = opcode_info(op);
  for (int i = 0; i < info.field_count; ++i) inst.values[i] = field_info(info.fields[i].field).default_bits;
  return inst;
}

EncodedInstruction encode(const Instruction& inst) {
  if (static_cast<int>(inst.opcode) >= detail::kOpcodeCount)
    throw IsaError(fmt::format("encode: unknown opcode {}", static_cast<int>(inst.opcode)));
  const OpcodeInfo& info = opcode_info(inst.opcode);
  if (inst.pop > 0xF || inst.push > 0xF)
    throw IsaError(fmt::format("{}: pop/push masks must be 4 bits (pop=0x{:x} push=0x{:x})",
                               info.mnemonic, inst.pop, inst.push));
  Words w{};
  put_bits(w, 0, 8, static_cast<std::uint64_t>(inst.opcode));
  put_bits(w, 8, 4, inst.pop);
  put_bits(w, 12, 4, inst.push);
  for (int i = 0; i < kMaxFields; ++i) {
    if (i >= info.field_count) {
      if (inst.values[i] != 0)
        throw IsaError(fmt::format("{}: value slot {} is beyond its {} fields but not zero",
                                   info.mnemonic, i, info.field_count));
      continue;
    }
    const FieldSlot& s = info.fields[i];
    check_range(inst.opcode, s, inst.values[i]);
    put_bits(w, s.offset_bits, s.width_bits, static_cast<std::uint64_t>(inst.values[i]));
  }
  EncodedInstruction out{};
  for (std::size_t b = 0; b < kInstructionBytes; ++b)
    out[b] = static_cast<std::uint8_t>(w[b / 8] >> (8 * (b % 8)));
  return out;
}

Instruction decode(const std::uint8_t* bytes) {
  Words w{};
  for (std::size_t b = 0; b < kInstructionBytes; ++b)
    w[b / 8] |= static_cast<std::uint64_t>(bytes[b]) << (8 * (b % 8));
  unsigned op = bytes[0];
  if (op >= static_cast<unsigned>(detail::kOpcodeCount))
    throw IsaError(fmt::format("unknown opcode {} (valid: 0..{})", op, detail::kOpcodeCount - 1));
  Instruction inst;
  inst.opcode = static_cast<Opcode>(op);
  inst.pop = static_cast<std::uint8_t>(get_bits(w, 8, 4));
  inst.push = static_cast<std::uint8_t>(get_bits(w, 12, 4));
  const OpcodeInfo& info = opcode_info(inst.opcode);
  for (int i = 0; i < info.field_count; ++i) {
    const FieldSlot& s = info.fields[i];
    std::uint64_t v = get_bits(w, s.offset_bits, s.width_bits);
    if (field_info(s.field).kind == FieldKind::S && s.width_bits < 64 &&
        (v >> (s.width_bits - 1)) & 1)
      v |= ~mask_of(s.width_bits);  // sign-extend
    inst.values[i] = static_cast<std::int64_t>(v);
  }
  for (int bit = info.used_bits; bit < detail::kInstructionBits; ++bit)
    if (get_bits(w, bit, 1))
      throw IsaError(fmt::format("{}: bit {} is set but the instruction's fields end at bit {}",
                                 info.mnemonic, bit, info.used_bits - 1));
  return inst;
}

}  // namespace npu::isa
