// The operands of each instruction (the NPU_OPERAND lines of instruction_set.def): which
// address field names them, the memory they lie in, whether they are read or written, how many
// bytes they span and move, and how far the instruction's output may overlap them. The
// simulator's checks and traffic counts (costmodel/program_plan.cpp), the footprints the compiler
// derives its dependency tokens from (costmodel/footprint.h) and the Operands sections of
// ISA.md all come from here.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "isa/instruction.h"

namespace npu::isa {

enum class Memory : std::uint8_t { Sram, Ddr };
enum class Access : std::uint8_t { Read, Write };
// How far what an instruction writes may overlap one of its read operands (same memory).
enum class Overlap : std::uint8_t {
  Unchecked,  // not checked
  InPlace,    // only starting at the same address (element for element in place)
  Disjoint,   // not at all
};

// One NPU_OPERAND line, its rules as the table spells them (ISA.md and error messages print them).
struct OperandRule {
  Opcode opcode;
  Field address;
  Memory memory;
  Access access;
  std::string_view when;     // "always", or the condition under which the operand is there
  std::string_view bytes;    // the size rule
  std::string_view moved;    // "bytes", or the bytes actually moved when fewer than spanned
  std::string_view overlap;  // "unchecked", "in_place", "disjoint" or an expression choosing one
};

// The lines of one instruction, in table order.
struct OperandRules {
  const OperandRule* first = nullptr;
  const OperandRule* last = nullptr;
  const OperandRule* begin() const { return first; }
  const OperandRule* end() const { return last; }
  int size() const { return static_cast<int>(last - first); }
};
OperandRules operand_rules(Opcode op);

// One operand of a decoded instruction.
struct Operand {
  const OperandRule* rule = nullptr;
  std::uint64_t addr = 0;
  std::uint64_t bytes = 0;  // spans [addr, addr + bytes)
  std::uint64_t moved = 0;  // bytes actually read or written (<= bytes)
  bool overflow = false;    // the size rule's value does not fit 64 bits (bytes is then UINT64_MAX)
  Overlap overlap = Overlap::Unchecked;
  Field address() const { return rule->address; }
  Memory memory() const { return rule->memory; }
  Access access() const { return rule->access; }
  std::uint64_t end() const { return bytes > UINT64_MAX - addr ? UINT64_MAX : addr + bytes; }
};

constexpr int kMaxOperands = 6;
// The operands of an instruction whose condition holds, in table order. Evaluated on any
// instruction (nothing is checked here: a size never wraps, it saturates and sets overflow).
struct Operands {
  std::array<Operand, kMaxOperands> items{};
  int count = 0;
  const Operand* begin() const { return items.data(); }
  const Operand* end() const { return items.data() + count; }
};
Operands operands(const Instruction& inst);

// "outer = 16777215, length = 16777215, dtype = fp32": the instruction's fields a rule's text
// names, with their values (enum values by name), in the order the rule names them.
std::string rule_field_values(const Instruction& inst, std::string_view rule);

// A NPU_SIZE_FUNCTION line, for ISA.md.
struct SizeFunctionInfo {
  std::string_view name, parameters, expression, doc;
};
struct SizeFunctions {
  const SizeFunctionInfo* first = nullptr;
  const SizeFunctionInfo* last = nullptr;
  const SizeFunctionInfo* begin() const { return first; }
  const SizeFunctionInfo* end() const { return last; }
};
SizeFunctions size_functions();

// The packed-weight rules of gemm's B (weight_bytes, weight_scale_bytes, group_rows in the
// table), for the cost model and compiler, which size weight blocks without an instruction.
std::uint64_t weight_bytes(WeightFormat format, std::uint64_t k, std::uint64_t n, MacDType mac_dtype);
std::uint64_t weight_scale_bytes(std::uint64_t b_group, std::uint64_t k, std::uint64_t n);
std::uint64_t weight_group_rows(std::uint64_t b_group, std::uint64_t k);
// window_out of the table: outputs of a window sweep along one axis.
std::uint64_t window_out(std::uint64_t in, std::uint64_t pads, std::uint64_t kernel, std::uint64_t dilation,
                         std::uint64_t stride);

}  // namespace npu::isa
