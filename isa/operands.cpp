// The NPU_OPERAND and NPU_SIZE_FUNCTION lines of instruction_set.def, compiled: each size rule
// is evaluated as written in the table, with the instruction's fields as variables.
#include "isa/operands.h"

#include <cctype>
#include <type_traits>

#include <fmt/format.h>

#include "isa/isa_tables.h"

namespace npu::isa {
// The rules' own namespace: the size functions are named as in the table (weight_bytes, ...),
// apart from the public functions of the same name below.
namespace rules {
namespace {

// A quantity of a size rule: unsigned 64-bit arithmetic that never wraps. A product or sum
// past 2^64 saturates and stays marked as overflowed through every later operation (three
// 24-bit fields multiply past 64 bits); a difference below 0 is 0 and a quotient by 0 is 0, so
// a rule evaluated on an unchecked instruction gives a size, never undefined behaviour.
class Value {
 public:
  constexpr Value(std::uint64_t v = 0) : v_(v) {}  // NOLINT: literals in the rules convert
  template <typename E, typename = std::enable_if_t<std::is_enum_v<E>>>
  constexpr Value(E e) : v_(static_cast<std::uint64_t>(e)) {}  // NOLINT: `dtype == DType::Int8`
  constexpr std::uint64_t get() const { return v_; }
  constexpr bool overflow() const { return overflow_; }
  constexpr explicit operator bool() const { return v_ != 0; }

  friend constexpr Value operator+(Value a, Value b) {
    std::uint64_t r = 0;
    const bool overflowed = __builtin_add_overflow(a.v_, b.v_, &r);
    return saturated(overflowed, r, a, b);
  }
  friend constexpr Value operator*(Value a, Value b) {
    std::uint64_t r = 0;
    const bool overflowed = __builtin_mul_overflow(a.v_, b.v_, &r);
    return saturated(overflowed, r, a, b);
  }
  friend constexpr Value operator-(Value a, Value b) { return with(a.v_ > b.v_ ? a.v_ - b.v_ : 0, a, b); }
  friend constexpr Value operator/(Value a, Value b) { return with(b.v_ == 0 ? 0 : a.v_ / b.v_, a, b); }
  friend constexpr bool operator==(Value a, Value b) { return a.v_ == b.v_; }
  friend constexpr bool operator!=(Value a, Value b) { return a.v_ != b.v_; }
  friend constexpr bool operator<(Value a, Value b) { return a.v_ < b.v_; }
  friend constexpr bool operator>(Value a, Value b) { return a.v_ > b.v_; }

 private:
  static constexpr Value with(std::uint64_t v, Value a, Value b) {
    Value r(v);
    r.overflow_ = a.overflow_ || b.overflow_;
    return r;
  }
  static constexpr Value saturated(bool overflowed, std::uint64_t v, Value a, Value b) {
    Value r = with(overflowed ? UINT64_MAX : v, a, b);
    r.overflow_ = r.overflow_ || overflowed;
    return r;
  }
  std::uint64_t v_ = 0;
  bool overflow_ = false;
};

Value element_size(Value dtype) {
  return dtype.get() < static_cast<std::uint64_t>(enum_count<DType>()) ? dtype_bytes(static_cast<DType>(dtype.get()))
                                                                        : 0;
}

#define NPU_SIZE_FUNCTION(name, parameters, expression, doc) \
  constexpr auto name = [] parameters { return Value(expression); };
#include "isa/instruction_set.def"

constexpr OperandRule kRules[] = {
#define NPU_OPERAND(instruction, address, memory, access, when, bytes, moved, overlap) \
  {Opcode::instruction, Field::address, Memory::memory, Access::access, #when, #bytes, #moved, #overlap},
#include "isa/instruction_set.def"
};
constexpr int kRuleCount = static_cast<int>(std::size(kRules));

// Where each instruction's lines start and end in kRules. Every instruction's lines are
// together (they follow its NPU_INSTRUCTION line), at most kMaxOperands of them.
struct RuleRange {
  int first = 0, last = 0;
};
constexpr std::array<RuleRange, detail::kOpcodeCount> make_rule_ranges() {
  std::array<RuleRange, detail::kOpcodeCount> r{};
  std::array<bool, detail::kOpcodeCount> seen{};
  for (int i = 0; i < kRuleCount; ++i) {
    const int op = static_cast<int>(kRules[i].opcode);
    if (i == 0 || kRules[i - 1].opcode != kRules[i].opcode) {
      if (seen[op]) throw "instruction_set.def: an instruction's NPU_OPERAND lines are not together";
      seen[op] = true;
      r[op].first = i;
    }
    r[op].last = i + 1;
    if (r[op].last - r[op].first > kMaxOperands) throw "instruction_set.def: more than kMaxOperands operands";
  }
  return r;
}
constexpr auto kRuleRanges = make_rule_ranges();

// Every address field of a line is a field of its instruction.
constexpr bool addresses_are_fields() {
  for (const OperandRule& r : kRules)
    if (detail::kSlotTable[static_cast<int>(r.opcode)][static_cast<int>(r.address)] < 0) return false;
  return true;
}
static_assert(addresses_are_fields(), "instruction_set.def: an NPU_OPERAND address is not a field of its instruction");

// The rules' variables: every field of the table by its name, holding the instruction's raw
// bits (fields the instruction lacks stay 0; a test checks no rule names one).
struct RuleScope {
#define NPU_FIELD(name, kind, default_value, doc) Value name;
#include "isa/instruction_set.def"

  static constexpr bool always = true;
  static constexpr Overlap unchecked = Overlap::Unchecked;
  static constexpr Overlap in_place = Overlap::InPlace;
  static constexpr Overlap disjoint = Overlap::Disjoint;

  explicit RuleScope(const Instruction& in) {
    static constexpr Value RuleScope::*kMembers[] = {
#define NPU_FIELD(name, kind, default_value, doc) &RuleScope::name,
#include "isa/instruction_set.def"
    };
    const OpcodeInfo& info = opcode_info(in.opcode);
    for (int i = 0; i < info.field_count; ++i)
      this->*kMembers[static_cast<int>(info.fields[i].field)] = Value(static_cast<std::uint64_t>(in.values[i]));
  }

  void evaluate(Opcode op, Operands& out) const {
    int row = 0;
    // `bytes` inside a line's moved column is the line's own size.
#define NPU_OPERAND(instruction, address_field, memory, access, when, bytes_rule, moved_rule, overlap_rule) \
  if (op == Opcode::instruction && static_cast<bool>(when)) {                                               \
    const Value bytes = (bytes_rule);                                                                       \
    add(out, row, address_field, bytes, (moved_rule), (overlap_rule));                                      \
  }                                                                                                         \
  ++row;
#include "isa/instruction_set.def"
  }

 private:
  static void add(Operands& out, int row, Value addr, Value bytes, Value moved, Overlap overlap) {
    Operand& o = out.items[static_cast<std::size_t>(out.count++)];
    o.rule = &kRules[row];
    o.addr = addr.get();
    o.bytes = bytes.get();
    o.overflow = bytes.overflow();
    o.moved = bytes.overflow() || moved.get() > bytes.get() ? bytes.get() : moved.get();
    o.overlap = overlap;
  }
};

#define NPU_SIZE_FUNCTION(name, parameters, expression, doc) {#name, #parameters, #expression, doc},
constexpr SizeFunctionInfo kSizeFunctions[] = {
#include "isa/instruction_set.def"
};

}  // namespace
}  // namespace rules

namespace {

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

OperandRules operand_rules(Opcode op) {
  const auto o = static_cast<std::size_t>(op);
  if (o >= rules::kRuleRanges.size()) return {};
  return {rules::kRules + rules::kRuleRanges[o].first, rules::kRules + rules::kRuleRanges[o].last};
}

Operands operands(const Instruction& inst) {
  Operands out;
  if (static_cast<int>(inst.opcode) >= detail::kOpcodeCount || operand_rules(inst.opcode).size() == 0) return out;
  rules::RuleScope(inst).evaluate(inst.opcode, out);
  return out;
}

std::string rule_field_values(const Instruction& inst, std::string_view rule) {
  std::string out;
  std::string_view seen[kMaxFields];
  int seen_count = 0;
  for (std::size_t i = 0; i < rule.size();) {
    if (!identifier_char(rule[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < rule.size() && identifier_char(rule[j])) ++j;
    const std::string_view word = rule.substr(i, j - i);
    const bool qualified = j < rule.size() && rule[j] == ':';  // WeightFormat::Int4
    i = j;
    const FieldInfo* f = find_field(word);
    if (qualified || f == nullptr) continue;
    const Field field = static_cast<Field>(f - &field_info(static_cast<Field>(0)));
    if (!inst.has(field)) continue;
    bool repeated = false;
    for (int s = 0; s < seen_count; ++s) repeated = repeated || seen[s] == word;
    if (repeated || seen_count == kMaxFields) continue;
    seen[seen_count++] = word;
    const std::string_view spelled = enum_value_name(field_enum(inst.opcode, field), inst.get(field));
    out += fmt::format("{}{} = {}", out.empty() ? "" : ", ", word,
                       spelled.empty() ? std::to_string(inst.get(field)) : std::string(spelled));
  }
  return out;
}

SizeFunctions size_functions() { return {std::begin(rules::kSizeFunctions), std::end(rules::kSizeFunctions)}; }

std::uint64_t weight_bytes(WeightFormat format, std::uint64_t k, std::uint64_t n, MacDType mac_dtype) {
  return rules::weight_bytes(rules::Value(format), k, n, rules::Value(mac_dtype)).get();
}
std::uint64_t weight_scale_bytes(std::uint64_t b_group, std::uint64_t k, std::uint64_t n) {
  return rules::weight_scale_bytes(rules::Value(b_group), k, n).get();
}
std::uint64_t weight_group_rows(std::uint64_t b_group, std::uint64_t k) {
  return rules::group_rows(rules::Value(b_group), k).get();
}
std::uint64_t window_out(std::uint64_t in, std::uint64_t pads, std::uint64_t kernel, std::uint64_t dilation,
                         std::uint64_t stride) {
  return rules::window_out(rules::Value(in), pads, kernel, dilation, stride).get();
}

}  // namespace npu::isa
