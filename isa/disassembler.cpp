// Program -> .npuasm text that assemble() reads back bit-exactly: every field explicit,
// enum values by name (numbers outside the enum as numbers), floats in shortest round-trip
// form (NaN as raw bits), data as hex.
#include <algorithm>

#include "isa/asm_common.h"
#include "isa/assembler.h"

namespace npu::isa {
namespace {

std::string mask_text(std::uint8_t mask) {
  std::string s;
  for (int i = 0; i < kQueueCount; ++i)
    if (mask & (1u << i)) s += fmt::format("{}{}", s.empty() ? "" : ",", unit_name(static_cast<Unit>(i)));
  return s;
}

void append_hex_lines(std::string& out, const std::vector<std::uint8_t>& bytes) {
  for (std::size_t i = 0; i < bytes.size(); i += text::kHexBytesPerLine) {
    out += ".hex ";
    std::size_t end = std::min(bytes.size(), i + text::kHexBytesPerLine);
    for (std::size_t j = i; j < end; ++j) out += fmt::format("{:02x}", bytes[j]);
    out += '\n';
  }
}

std::string label_text(const std::string& name) { return text::quote_if_needed(name) + ":"; }

}  // namespace

std::string disassemble(const Instruction& inst) {
  if (static_cast<int>(inst.opcode) >= static_cast<int>(Opcode::kCount))
    throw IsaError(fmt::format("disassemble: unknown opcode {}", static_cast<int>(inst.opcode)));
  const OpcodeInfo& info = opcode_info(inst.opcode);
  std::string s(info.mnemonic);
  for (int i = 0; i < info.field_count; ++i) {
    const FieldInfo& fi = field_info(info.fields[i].field);
    std::int64_t v = inst.values[i];
    s += fmt::format(" {}=", fi.name);
    const std::string_view enum_name = enum_value_name(info.fields[i].enum_type, v);
    if (fi.kind == FieldKind::F) s += text::format_float_bits(static_cast<std::uint32_t>(v));
    else if (!enum_name.empty()) s += enum_name;
    else if (fi.kind == FieldKind::U && text::prints_hex(fi.name)) s += fmt::format("0x{:x}", v);
    else s += fmt::format("{}", v);
  }
  if (inst.pop) s += " pop=" + mask_text(inst.pop);
  if (inst.push) s += " push=" + mask_text(inst.push);
  return s;
}

std::string disassemble(const Program& p) {
  std::string out = fmt::format("# npusim program: {} instructions, {} tensors, {} data segments\n",
                                p.code.size(), p.tensors.size(), p.data.size());
  for (const TensorEntry& t : p.tensors) {
    std::string shape;
    std::uint64_t size = dtype_bytes(t.dtype);
    bool derivable = true;
    for (std::size_t i = 0; i < t.shape.size(); ++i) {
      shape += fmt::format("{}{}", i ? "x" : "", t.shape[i]);
      if (t.shape[i] < 0 || __builtin_mul_overflow(size, static_cast<std::uint64_t>(t.shape[i]), &size))
        derivable = false;
    }
    out += fmt::format(".tensor name={} role={} dtype={} shape={} layout={}", text::quote_if_needed(t.name),
                       text::role_name(t.role), dtype_name(t.dtype), t.shape.empty() ? "scalar" : shape,
                       text::quote_if_needed(t.layout));
    // Explicit for inputs and outputs (the assembler would default it to layout) and whenever set.
    if (!t.host_layout.empty() || t.role == TensorRole::Input || t.role == TensorRole::Output)
      out += fmt::format(" host_layout={}", text::quote_if_needed(t.host_layout));
    out += fmt::format(" addr=0x{:x}", t.ddr_addr);
    if (!derivable || size != t.size_bytes) out += fmt::format(" size={}", t.size_bytes);
    out += fmt::format(" scale={} zero_point={}\n", text::format_float(t.scale), t.zero_point);
  }
  for (const DataSegment& d : p.data) {
    out += fmt::format(".data addr=0x{:x}  # {} bytes\n", d.ddr_addr, d.bytes.size());
    append_hex_lines(out, d.bytes);
  }
  for (const OpaqueSection& s : p.extra) {
    out += fmt::format(".section kind={}  # {} bytes\n", s.kind, s.bytes.size());
    append_hex_lines(out, s.bytes);
  }
  std::vector<Label> labels = p.labels;
  std::stable_sort(labels.begin(), labels.end(),
                   [](const Label& a, const Label& b) { return a.instruction_index < b.instruction_index; });
  std::size_t next = 0;
  std::size_t next_engine = 0;
  for (std::size_t i = 0; i <= p.code.size(); ++i) {
    for (; next_engine < p.engine_starts.size() && p.engine_starts[next_engine] <= i; ++next_engine)
      out += fmt::format(".engine {}\n", next_engine);
    for (; next < labels.size() && labels[next].instruction_index <= i; ++next)
      out += label_text(labels[next].name) + "\n";
    if (i < p.code.size()) out += "  " + disassemble(p.code[i]) + "\n";
  }
  for (; next < labels.size(); ++next)  // beyond the end: serialize() will reject these
    out += label_text(labels[next].name) + "\n";
  return out;
}

}  // namespace npu::isa
