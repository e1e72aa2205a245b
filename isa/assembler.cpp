// .npuasm -> Program. Syntax in ISA.md ("Assembly syntax"); every field, mnemonic and default
// comes from instruction_set.def through opcode_info()/field_info().
#include <cctype>
#include <cstdlib>
#include <limits>
#include <map>
#include <sstream>

#include "isa/asm_common.h"
#include "isa/asm_lexer.h"
#include "isa/assembler.h"
#include "isa/fp16.h"

namespace npu::isa {
namespace {

using lex::Ctx;
using lex::KeyValue;
using lex::Token;
using lex::is_ident_char;
using lex::is_ident_start;
using lex::split_kv;
using lex::tokenize;
using lex::unquote;

class Assembler {
 public:
  Assembler(const std::string& origin) { ctx_.origin = origin; }
  Program run(const std::string& text);

 private:
  std::int64_t expr(const std::string& v, int col) const { return lex::eval_expr(v, col, ctx_, syms_); }
  std::int64_t ranged(const std::string& v, int col, std::int64_t lo, std::int64_t hi, const char* what) const {
    std::int64_t x = expr(v, col);
    if (x < lo || x > hi) ctx_.fail(col, fmt::format("{} {} is out of range [{}, {}]", what, x, lo, hi));
    return x;
  }
  std::uint32_t float_bits(const std::string& v, int col) const;
  std::int64_t enum_value(const FieldSlot& slot, const std::string& v, int col) const;
  void instruction(const std::vector<Token>& toks, std::size_t first);
  void directive(const std::vector<Token>& toks);
  void tensor(const std::vector<Token>& toks);
  void data(const std::vector<Token>& toks, std::vector<std::uint8_t>& out, bool values_only);
  void append_hex(const std::string& v, int col, std::vector<std::uint8_t>& out) const;

  Ctx ctx_;
  Program prog_;
  std::map<std::string, std::int64_t> syms_;
  std::map<std::string, int> label_lines_;
  std::vector<std::uint8_t>* hex_target_ = nullptr;  // what .hex continues
};

std::uint32_t Assembler::float_bits(const std::string& v, int col) const {
  if (v.rfind(text::kRawFloatPrefix, 0) == 0)
    return static_cast<std::uint32_t>(
        ranged(v.substr(text::kRawFloatPrefix.size()), col + 4, 0, 0xFFFFFFFFll, "float bits"));
  if (!v.empty()) {
    char* end = nullptr;
    float f = std::strtof(v.c_str(), &end);
    if (end == v.c_str() + v.size()) {
      std::string lower;
      for (char c : v) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (std::isinf(f) && lower.find("inf") == std::string::npos)
        ctx_.fail(col, fmt::format("{} is out of range for float32", v));
      std::uint32_t bits;
      std::memcpy(&bits, &f, 4);
      return bits;
    }
  }
  float f = static_cast<float>(expr(v, col));
  std::uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

// An enum field takes a value's name (`function=gelu`) or any integer expression.
std::int64_t Assembler::enum_value(const FieldSlot& slot, const std::string& v, int col) const {
  const int named = find_enum_value(slot.enum_type, v);
  if (named >= 0) return named;
  bool identifier = !v.empty() && is_ident_start(v[0]);
  for (char c : v) identifier = identifier && is_ident_char(c);
  if (identifier && !syms_.count(v)) {
    const EnumInfo& e = enum_info(slot.enum_type);
    std::string names;
    for (int i = 0; i < e.count; ++i) names += fmt::format("{}{}", i ? ", " : "", e.values[i].name);
    ctx_.fail(col, fmt::format("{} '{}' is not a value of {} ({})", field_info(slot.field).name, v, e.name, names));
  }
  return expr(v, col);
}

void Assembler::append_hex(const std::string& v, int col, std::vector<std::uint8_t>& out) const {
  int nibbles = 0, acc = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    char c = v[i];
    if (c == '_') continue;
    if (!std::isxdigit(static_cast<unsigned char>(c)))
      ctx_.fail(col + static_cast<int>(i), fmt::format("'{}' is not a hex digit", c));
    acc = acc * 16 + (std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : std::tolower(c) - 'a' + 10);
    if (++nibbles % 2 == 0) out.push_back(static_cast<std::uint8_t>(acc)), acc = 0;
  }
  if (nibbles % 2) ctx_.fail(col, "hex data needs an even number of digits");
}

Program Assembler::run(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    ++ctx_.line;
    std::vector<Token> toks = tokenize(line, ctx_);
    std::size_t i = 0;
    for (; i < toks.size(); ++i) {  // leading labels
      const std::string& t = toks[i].text;
      if (t.size() < 2 || t.back() != ':' || split_kv(toks[i]).has_eq) break;
      std::string name = unquote(t.substr(0, t.size() - 1), toks[i].col, ctx_);
      auto [it, fresh] = label_lines_.emplace(name, ctx_.line);
      if (!fresh) ctx_.fail(toks[i].col, fmt::format("label '{}' already defined on line {}", name, it->second));
      prog_.labels.push_back({name, static_cast<std::uint32_t>(prog_.code.size())});
    }
    if (i == toks.size()) continue;
    if (toks[i].text[0] == '.') {
      if (i != 0) ctx_.fail(toks[i].col, "a label cannot precede a directive");
      directive(toks);
    } else {
      instruction(toks, i);
    }
  }
  if (prog_.engine_starts.size() > 1 && prog_.code.size() == prog_.engine_starts.back())
    ctx_.fail(0, fmt::format("engine {} has no instructions", prog_.engine_starts.size() - 1));
  return std::move(prog_);
}

void Assembler::instruction(const std::vector<Token>& toks, std::size_t first) {
  const OpcodeInfo* info = find_opcode(toks[first].text);
  if (!info) ctx_.fail(toks[first].col, fmt::format("unknown mnemonic '{}'", toks[first].text));
  Instruction inst = make_instruction(info->opcode);
  std::array<bool, kMaxFields> seen{};
  bool seen_pop = false, seen_push = false;
  for (std::size_t t = first + 1; t < toks.size(); ++t) {
    KeyValue kv = split_kv(toks[t]);
    if (!kv.has_eq) ctx_.fail(kv.key_col, fmt::format("expected field=value, got '{}'", kv.key));
    if (kv.key == "pop" || kv.key == "push") {
      bool& s = kv.key == "pop" ? seen_pop : seen_push;
      if (s) ctx_.fail(kv.key_col, fmt::format("duplicate field '{}'", kv.key));
      s = true;
      std::uint8_t mask = 0;
      if (kv.value != "none") {
        std::size_t pos = 0;
        while (true) {
          std::size_t comma = kv.value.find(',', pos);
          std::string unit = kv.value.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
          auto u = text::parse_queue_unit(unit);
          if (!u) ctx_.fail(kv.value_col + static_cast<int>(pos),
                            fmt::format("unknown unit '{}' (expected load, compute, vector, store or none)", unit));
          mask = static_cast<std::uint8_t>(mask | (1u << *u));
          if (comma == std::string::npos) break;
          pos = comma + 1;
        }
      }
      (kv.key == "pop" ? inst.pop : inst.push) = mask;
      continue;
    }
    int slot = -1;
    for (int i = 0; i < info->field_count; ++i)
      if (field_info(info->fields[i].field).name == kv.key) slot = i;
    if (slot < 0) {
      std::string names;
      for (int i = 0; i < info->field_count; ++i)
        names += fmt::format("{}{}", i ? ", " : "", field_info(info->fields[i].field).name);
      ctx_.fail(kv.key_col, fmt::format("{} field '{}' for {} (its fields: {}{}pop, push)",
                                        find_field(kv.key) ? "no" : "unknown", kv.key, info->mnemonic,
                                        names, names.empty() ? "" : ", "));
    }
    if (seen[slot]) ctx_.fail(kv.key_col, fmt::format("duplicate field '{}'", kv.key));
    seen[slot] = true;
    Field f = info->fields[slot].field;
    std::int64_t v = field_info(f).kind == FieldKind::F           ? float_bits(kv.value, kv.value_col)
                     : info->fields[slot].enum_type != EnumType::None ? enum_value(info->fields[slot], kv.value, kv.value_col)
                                                                      : expr(kv.value, kv.value_col);
    try {
      inst.set(f, v);
    } catch (const IsaError& e) {
      ctx_.fail(kv.key_col, e.what());
    }
  }
  prog_.code.push_back(inst);
}

void Assembler::directive(const std::vector<Token>& toks) {
  const std::string& d = toks[0].text;
  if (d == ".equ") {
    if (toks.size() != 3) ctx_.fail(toks[0].col, ".equ takes a name and a value: .equ NAME value");
    const std::string& name = toks[1].text;
    bool ok = is_ident_start(name[0]);
    for (char c : name) ok = ok && is_ident_char(c);
    if (!ok) ctx_.fail(toks[1].col, fmt::format("'{}' is not a symbol name", name));
    if (syms_.count(name)) ctx_.fail(toks[1].col, fmt::format("symbol '{}' already defined", name));
    syms_[name] = expr(toks[2].text, toks[2].col);
  } else if (d == ".engine") {
    // .engine N: engine N's stream starts here (N = 0, 1, 2, ... in order; 0 at the top).
    if (toks.size() != 2) ctx_.fail(toks[0].col, ".engine takes the engine's number: .engine N");
    const std::int64_t n = expr(toks[1].text, toks[1].col);
    const auto expected = static_cast<std::int64_t>(prog_.engine_starts.size());
    if (n != expected) ctx_.fail(toks[1].col, fmt::format(".engine {}: engines are numbered in order, {} comes next", n, expected));
    if (n == 0 && !prog_.code.empty()) ctx_.fail(toks[0].col, ".engine 0 must come before the first instruction");
    if (n > 0 && prog_.code.size() == prog_.engine_starts.back())
      ctx_.fail(toks[0].col, fmt::format("engine {} has no instructions", n - 1));
    if (n >= static_cast<std::int64_t>(kMaxEngines)) ctx_.fail(toks[1].col, fmt::format("at most {} engines", kMaxEngines));
    prog_.engine_starts.push_back(static_cast<std::uint32_t>(prog_.code.size()));
  } else if (d == ".tensor") {
    tensor(toks);
  } else if (d == ".data" || d == ".section") {
    bool is_data = d == ".data";
    std::int64_t addr_or_kind = -1;
    std::vector<Token> rest;
    for (std::size_t i = 1; i < toks.size(); ++i) {
      KeyValue kv = split_kv(toks[i]);
      if (kv.key == (is_data ? "addr" : "kind")) {
        if (addr_or_kind >= 0) ctx_.fail(kv.key_col, fmt::format("duplicate field '{}'", kv.key));
        addr_or_kind = is_data ? ranged(kv.value, kv.value_col, 0, INT64_MAX, "address")
                               : ranged(kv.value, kv.value_col, kFirstOpaqueSectionKind, 0xFFFFFFFFll,
                                        "section kind");
      } else {
        rest.push_back(toks[i]);
      }
    }
    if (addr_or_kind < 0) ctx_.fail(toks[0].col, fmt::format("{} needs {}=", d, is_data ? "addr" : "kind"));
    if (is_data) {
      prog_.data.push_back({static_cast<std::uint64_t>(addr_or_kind), {}});
      hex_target_ = &prog_.data.back().bytes;
    } else {
      prog_.extra.push_back({static_cast<std::uint32_t>(addr_or_kind), {}});
      hex_target_ = &prog_.extra.back().bytes;
    }
    data(rest, *hex_target_, !is_data);
  } else if (d == ".hex") {
    if (!hex_target_) ctx_.fail(toks[0].col, ".hex continues a .data or .section; there is none before it");
    for (std::size_t i = 1; i < toks.size(); ++i) append_hex(toks[i].text, toks[i].col, *hex_target_);
  } else {
    ctx_.fail(toks[0].col, fmt::format("unknown directive '{}' (.equ, .engine, .tensor, .data, .section, .hex)", d));
  }
}

void Assembler::data(const std::vector<Token>& toks, std::vector<std::uint8_t>& out, bool hex_only) {
  for (const Token& t : toks) {
    KeyValue kv = split_kv(t);
    if (kv.key == "hex") {
      append_hex(kv.value, kv.value_col, out);
      continue;
    }
    if (hex_only || (kv.key != "i8" && kv.key != "i32" && kv.key != "f32" && kv.key != "f16"))
      ctx_.fail(kv.key_col, fmt::format("unknown field '{}' (expected {})", kv.key,
                                        hex_only ? "kind, hex" : "addr, i8, i32, f16, f32, hex"));
    std::size_t pos = 0;
    while (pos <= kv.value.size()) {
      std::size_t comma = kv.value.find(',', pos);
      if (comma == std::string::npos) comma = kv.value.size();
      std::string item = kv.value.substr(pos, comma - pos);
      int col = kv.value_col + static_cast<int>(pos);
      std::uint64_t v;
      int bytes;
      if (kv.key == "i8") v = static_cast<std::uint64_t>(ranged(item, col, -128, 127, "i8 value")), bytes = 1;
      else if (kv.key == "i32") v = static_cast<std::uint64_t>(ranged(item, col, INT32_MIN, INT32_MAX, "i32 value")), bytes = 4;
      else if (kv.key == "f32") v = float_bits(item, col), bytes = 4;
      else {
        std::uint32_t fb = float_bits(item, col);
        float f;
        std::memcpy(&f, &fb, 4);
        v = float_to_half(f), bytes = 2;
      }
      for (int b = 0; b < bytes; ++b) out.push_back(static_cast<std::uint8_t>(v >> (8 * b)));
      pos = comma + 1;
    }
  }
}

void Assembler::tensor(const std::vector<Token>& toks) {
  TensorEntry t;
  std::map<std::string, KeyValue> kvs;
  static const char* const kKeys[] = {"name", "role", "dtype", "shape", "layout", "host_layout", "addr", "size",
                                      "scale", "zero_point"};
  for (std::size_t i = 1; i < toks.size(); ++i) {
    KeyValue kv = split_kv(toks[i]);
    bool known = false;
    for (const char* k : kKeys) known = known || kv.key == k;
    if (!known || !kv.has_eq)
      ctx_.fail(kv.key_col, fmt::format("unknown field '{}' (expected name, role, dtype, shape, layout, "
                                        "host_layout, addr, size, scale, zero_point)", kv.key));
    if (!kvs.emplace(kv.key, kv).second) ctx_.fail(kv.key_col, fmt::format("duplicate field '{}'", kv.key));
  }
  for (const char* k : {"name", "role", "dtype", "shape"})
    if (!kvs.count(k)) ctx_.fail(toks[0].col, fmt::format(".tensor needs {}=", k));
  const KeyValue& name = kvs["name"];
  t.name = unquote(name.value, name.value_col, ctx_);
  auto role = text::parse_role(kvs["role"].value);
  if (!role) ctx_.fail(kvs["role"].value_col, "role must be input, output, constant or intermediate");
  t.role = *role;
  auto dtype = text::parse_dtype(kvs["dtype"].value);
  if (!dtype) ctx_.fail(kvs["dtype"].value_col, "dtype must be int8, int32, fp16 or fp32");
  t.dtype = *dtype;
  const KeyValue& shape = kvs["shape"];
  bool derivable = true;
  std::uint64_t size = dtype_bytes(t.dtype);
  if (shape.value != "scalar") {
    std::size_t pos = 0;
    while (pos <= shape.value.size()) {
      std::size_t x = shape.value.find('x', pos);
      if (x == std::string::npos) x = shape.value.size();
      std::int64_t dim = expr(shape.value.substr(pos, x - pos), shape.value_col + static_cast<int>(pos));
      t.shape.push_back(dim);
      if (dim < 0 || __builtin_mul_overflow(size, static_cast<std::uint64_t>(dim), &size)) derivable = false;
      pos = x + 1;
    }
  }
  if (kvs.count("layout")) t.layout = unquote(kvs["layout"].value, kvs["layout"].value_col, ctx_);
  // Inputs and outputs cross to the host; unless told otherwise, as the bytes the program stores.
  if (kvs.count("host_layout"))
    t.host_layout = unquote(kvs["host_layout"].value, kvs["host_layout"].value_col, ctx_);
  else if (t.role == TensorRole::Input || t.role == TensorRole::Output)
    t.host_layout = t.layout;
  if (kvs.count("addr")) t.ddr_addr = static_cast<std::uint64_t>(ranged(kvs["addr"].value, kvs["addr"].value_col, 0, INT64_MAX, "address"));
  if (kvs.count("size")) {
    t.size_bytes = static_cast<std::uint64_t>(ranged(kvs["size"].value, kvs["size"].value_col, 0, INT64_MAX, "size"));
  } else {
    if (!derivable) ctx_.fail(shape.value_col, "cannot derive the size from this shape; give size=");
    t.size_bytes = size;
  }
  if (kvs.count("scale")) {
    std::uint32_t bits = float_bits(kvs["scale"].value, kvs["scale"].value_col);
    std::memcpy(&t.scale, &bits, 4);
  }
  if (kvs.count("zero_point"))
    t.zero_point = static_cast<std::int32_t>(
        ranged(kvs["zero_point"].value, kvs["zero_point"].value_col, INT32_MIN, INT32_MAX, "zero_point"));
  prog_.tensors.push_back(std::move(t));
}

}  // namespace

Program assemble(const std::string& text, const std::string& origin) { return Assembler(origin).run(text); }

}  // namespace npu::isa
