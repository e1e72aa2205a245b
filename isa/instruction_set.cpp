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
#include "isa/instruction_set.def"
};

struct OpRow {
  Opcode opcode;
  std::string_view mnemonic;
  Unit unit;
  std::string_view semantics;
  std::string_view timing;
};
constexpr OpRow kOpRows[] = {
#define NPU_INSTRUCTION(name, mnemonic, unit, fields, semantics, timing) \
  {Opcode::name, mnemonic, Unit::unit, semantics, timing},
#include "isa/instruction_set.def"
};

struct EnumRow {
  EnumType type;
  EnumValueInfo info;
};
constexpr EnumRow kEnumRows[] = {
#define NPU_ENUM(type, name, spelling, value, passes, doc) {EnumType::type, {spelling, value, passes, doc}},
#include "isa/instruction_set.def"
};

struct EnumTypeRow {
  std::string_view name, doc;
};
constexpr EnumTypeRow kEnumTypeRows[] = {
    {"None", "a plain number"},
#define NPU_ENUM_BEGIN(type, doc) {#type, doc},
#include "isa/instruction_set.def"
};

std::array<EnumValueInfo, std::size(kEnumRows)> enum_values_in_order() {
  std::array<EnumValueInfo, std::size(kEnumRows)> out{};
  for (std::size_t i = 0; i < std::size(kEnumRows); ++i) out[i] = kEnumRows[i].info;
  return out;
}

struct Tables {
  std::array<FieldInfo, detail::kFieldCount> fields;
  std::array<OpcodeInfo, detail::kOpcodeCount> ops;
  std::unordered_map<std::string_view, const OpcodeInfo*> by_mnemonic;
  std::unordered_map<std::string_view, const FieldInfo*> by_name;
  std::array<EnumValueInfo, std::size(kEnumRows)> enum_values;  // rows grouped by type
  std::array<EnumInfo, detail::kEnumTypeCount> enums;
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
    r.enum_values = enum_values_in_order();
    std::size_t row = 0;
    for (int t = 0; t < detail::kEnumTypeCount; ++t) {
      const int count = detail::kEnumCounts[t];
      r.enums[t] = EnumInfo{static_cast<EnumType>(t), kEnumTypeRows[t].name, kEnumTypeRows[t].doc,
                            r.enum_values.data() + row, count};
      row += static_cast<std::size_t>(count);
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
  std::string_view name = enum_value_name(EnumType::DType, static_cast<std::int64_t>(t));
  return name.empty() ? "?" : name;
}

const EnumInfo& enum_info(EnumType t) { return tables().enums.at(static_cast<std::size_t>(t)); }

std::string_view enum_value_name(EnumType t, std::int64_t value) {
  if (static_cast<int>(t) >= detail::kEnumTypeCount) return {};
  const EnumInfo& e = tables().enums[static_cast<std::size_t>(t)];
  return value >= 0 && value < e.count ? e.values[value].name : std::string_view{};
}

int find_enum_value(EnumType t, std::string_view name) {
  if (static_cast<int>(t) >= detail::kEnumTypeCount) return -1;
  const EnumInfo& e = tables().enums[static_cast<std::size_t>(t)];
  for (int v = 0; v < e.count; ++v)
    if (e.values[v].name == name) return v;
  return -1;
}

int enum_passes(EnumType t, std::int64_t value) {
  if (static_cast<int>(t) >= detail::kEnumTypeCount) return 0;
  const EnumInfo& e = tables().enums[static_cast<std::size_t>(t)];
  return value >= 0 && value < e.count ? e.values[value].passes : 0;
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

EnumType field_enum(Opcode op, Field f) {
  const int slot = field_slot(op, f);
  return slot < 0 ? EnumType::None : detail::kLayouts[static_cast<int>(op)].slots[slot].enum_type;
}

}  // namespace npu::isa
