// Run-time views of the tables in instruction_set.def (see isa_tables.h for the layout).
#include "isa/instruction_set.h"

#include <cstring>
#include <string>
#include <unordered_map>

#include "isa/isa_tables.h"

namespace npu::isa {
namespace {

struct FieldRow {
  std::string_view name;
  FieldKind kind;
  double default_value;
  std::string_view doc;
};
constexpr FieldRow kFieldRows[] = {
#define NPU_FIELD(name, kind, default_value, doc) \
  {#name, FieldKind::kind, static_cast<double>(default_value), doc},
#define NPU_INSTRUCTION(...)
#include "isa/instruction_set.def"
#undef NPU_FIELD
#undef NPU_INSTRUCTION
};

struct OpRow {
  Opcode opcode;
  std::string_view mnemonic;
  Unit unit;
  std::string_view semantics;
  std::string_view timing;
};
constexpr OpRow kOpRows[] = {
#define NPU_FIELD(...)
#define NPU_INSTRUCTION(name, mnemonic, unit, fields, semantics, timing) \
  {Opcode::name, mnemonic, Unit::unit, semantics, timing},
#include "isa/instruction_set.def"
#undef NPU_FIELD
#undef NPU_INSTRUCTION
};

struct Tables {
  std::array<FieldInfo, detail::kFieldCount> fields;
  std::array<OpcodeInfo, detail::kOpcodeCount> ops;
  std::unordered_map<std::string_view, const OpcodeInfo*> by_mnemonic;
  std::unordered_map<std::string_view, const FieldInfo*> by_name;
};

const Tables& tables() {
  static const Tables t = [] {
    Tables r;
    for (int i = 0; i < detail::kFieldCount; ++i) {
      const FieldRow& row = kFieldRows[i];
      std::int64_t bits = static_cast<std::int64_t>(row.default_value);
      if (row.kind == FieldKind::F) {
        float f = static_cast<float>(row.default_value);
        std::uint32_t u;
        std::memcpy(&u, &f, 4);
        bits = u;
      }
      r.fields[i] = FieldInfo{row.name, row.kind, row.doc, bits};
      r.by_name.emplace(row.name, &r.fields[i]);
    }
    for (int i = 0; i < detail::kOpcodeCount; ++i) {
      const OpRow& row = kOpRows[i];
      const detail::OpLayout& l = detail::kLayouts[i];
      r.ops[i] = OpcodeInfo{row.opcode, row.mnemonic, row.unit, row.semantics, row.timing,
                            l.count,    l.slots,      l.used_bits};
      r.by_mnemonic.emplace(row.mnemonic, &r.ops[i]);
    }
    return r;
  }();
  return t;
}

}  // namespace

std::string_view unit_name(Unit u) {
  switch (u) {
    case Unit::Load: return "load";
    case Unit::Compute: return "compute";
    case Unit::Vector: return "vector";
    case Unit::Store: return "store";
    case Unit::Control: return "control";
  }
  return "?";
}

std::size_t dtype_bytes(DType t) {
  switch (t) {
    case DType::Int8: return 1;
    case DType::Int32: return 4;
    case DType::Fp16: return 2;
    case DType::Fp32: return 4;
  }
  return 0;
}

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::Int8: return "int8";
    case DType::Int32: return "int32";
    case DType::Fp16: return "fp16";
    case DType::Fp32: return "fp32";
  }
  return "?";
}

const FieldInfo& field_info(Field f) { return tables().fields.at(static_cast<std::size_t>(f)); }

const FieldInfo* find_field(std::string_view name) {
  const auto& m = tables().by_name;
  auto it = m.find(name);
  return it == m.end() ? nullptr : it->second;
}

const OpcodeInfo& opcode_info(Opcode op) { return tables().ops.at(static_cast<std::size_t>(op)); }

const OpcodeInfo* find_opcode(std::string_view mnemonic) {
  const auto& m = tables().by_mnemonic;
  auto it = m.find(mnemonic);
  return it == m.end() ? nullptr : it->second;
}

int field_slot(Opcode op, Field f) {
  auto o = static_cast<unsigned>(op), i = static_cast<unsigned>(f);
  if (o >= static_cast<unsigned>(detail::kOpcodeCount) ||
      i >= static_cast<unsigned>(detail::kFieldCount))
    return -1;
  return detail::kSlotTable[o][i];
}

}  // namespace npu::isa
