// The operand lines of the ISA table (isa/operands.h): well-formed, and evaluated as written.
// That the sizes are what the simulator's kernels touch: tests/sim/test_operand_footprints.cpp.
#include <catch2/catch.hpp>

#include <cctype>
#include <set>
#include <string>

#include "isa/operands.h"

using namespace npu::isa;

namespace {

Instruction make(Opcode op, std::initializer_list<std::pair<Field, std::int64_t>> fields) {
  Instruction in = make_instruction(op);
  for (const auto& [f, v] : fields) in.set(f, v);
  return in;
}

// The identifiers of a rule's text, without those qualified by an enum (WeightFormat::Int4).
std::vector<std::string> identifiers(std::string_view text) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < text.size();) {
    auto word_char = [&](std::size_t j) { return std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_'; };
    if (!word_char(i) || std::isdigit(static_cast<unsigned char>(text[i]))) {
      while (i < text.size() && word_char(i)) ++i;  // a number
      if (i < text.size() && !word_char(i)) ++i;
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && word_char(j)) ++j;
    const bool qualifier = j + 1 < text.size() && text[j] == ':' && text[j + 1] == ':';
    const bool qualified = i >= 2 && text[i - 1] == ':' && text[i - 2] == ':';
    if (!qualifier && !qualified) out.emplace_back(text.substr(i, j - i));
    i = j;
  }
  return out;
}

}  // namespace

TEST_CASE("every operand rule names only its instruction's fields and the table's functions", "[isa][operands]") {
  std::set<std::string> functions = {"element_size", "always", "bytes", "unchecked", "in_place", "disjoint"};
  for (const SizeFunctionInfo& f : size_functions()) functions.insert(std::string(f.name));
  int rules = 0;
  for (int o = 0; o < static_cast<int>(Opcode::kCount); ++o) {
    const auto op = static_cast<Opcode>(o);
    for (const OperandRule& r : operand_rules(op)) {
      ++rules;
      CHECK(r.opcode == op);
      CHECK(field_slot(op, r.address) >= 0);
      for (std::string_view text : {r.when, r.bytes, r.moved, r.overlap})
        for (const std::string& word : identifiers(text)) {
          CAPTURE(opcode_info(op).mnemonic, field_info(r.address).name, text, word);
          const FieldInfo* f = find_field(word);
          if (f != nullptr)
            CHECK(field_slot(op, static_cast<Field>(f - &field_info(Field{}))) >= 0);
          else
            CHECK(functions.count(word) == 1);
        }
    }
  }
  CHECK(rules == 70);
}

TEST_CASE("every instruction but barrier, halt and sync has operands, one of them written", "[isa][operands]") {
  for (int o = 0; o < static_cast<int>(Opcode::kCount); ++o) {
    const auto op = static_cast<Opcode>(o);
    CAPTURE(opcode_info(op).mnemonic);
    int written = 0;
    for (const OperandRule& r : operand_rules(op)) written += r.access == Access::Write;
    if (op == Opcode::Barrier || op == Opcode::Halt || op == Opcode::Sync) {
      CHECK(operand_rules(op).size() == 0);
      CHECK(operands(make_instruction(op)).count == 0);
    } else {
      CHECK(written == 1);
    }
  }
}

TEST_CASE("operands are evaluated as the table writes them", "[isa][operands]") {
  // gemm 4 x 8 x 16 fp16, accumulating: A, B, C read, C written; no scales.
  auto ops = operands(make(Opcode::Gemm, {{Field::mac_dtype, 1}, {Field::accumulate, 1}, {Field::a_addr, 0x100},
                                          {Field::b_addr, 0x200}, {Field::c_addr, 0x400}, {Field::m, 4}, {Field::n, 8},
                                          {Field::k, 16}}));
  REQUIRE(ops.count == 4);
  CHECK(ops.items[0].address() == Field::a_addr);
  CHECK(ops.items[0].bytes == 4 * 16 * 2);
  CHECK(ops.items[1].bytes == 16 * 8 * 2);
  CHECK(ops.items[2].address() == Field::c_addr);
  CHECK(ops.items[2].access() == Access::Read);
  CHECK(ops.items[3].access() == Access::Write);
  CHECK(ops.items[3].addr == 0x400);
  CHECK(ops.items[3].bytes == 4 * 8 * 4);
  // int4 weights: k x n values two a byte, the last half used; scales in groups of 5 rows.
  ops = operands(make(Opcode::Gemm, {{Field::mac_dtype, 1}, {Field::b_format, 2}, {Field::b_group, 5},
                                     {Field::m, 1}, {Field::n, 3}, {Field::k, 11}}));
  REQUIRE(ops.count == 4);
  CHECK(ops.items[1].bytes == (11 * 3 + 1) / 2);
  CHECK(ops.items[2].address() == Field::b_scale_addr);
  CHECK(ops.items[2].bytes == 3 * 3 * 2);  // ceil(11 / 5) rows of 3 fp16 scales
  // int4 B beside int8 A: packed the same, no scale operand.
  ops = operands(make(Opcode::Gemm, {{Field::mac_dtype, 0}, {Field::b_format, 2}, {Field::m, 1}, {Field::n, 3},
                                     {Field::k, 11}}));
  REQUIRE(ops.count == 3);
  CHECK(ops.items[1].bytes == (11 * 3 + 1) / 2);
  CHECK(ops.items[2].address() == Field::c_addr);
  // A 4-D load spans from its first byte to the end of its last run and moves len0 x counts.
  ops = operands(make(Opcode::Load, {{Field::ddr_addr, 0x1000}, {Field::sram_addr, 0x40}, {Field::len0, 16},
                                     {Field::count1, 3}, {Field::count2, 2}, {Field::sram_stride1, 64},
                                     {Field::sram_stride2, 1024}, {Field::ddr_stride1, 16}, {Field::ddr_stride2, 48}}));
  REQUIRE(ops.count == 2);
  CHECK(ops.items[0].memory() == Memory::Sram);
  CHECK(ops.items[0].access() == Access::Write);
  CHECK(ops.items[0].bytes == 1024 + 2 * 64 + 16);
  CHECK(ops.items[0].moved == 16 * 3 * 2);
  CHECK(ops.items[1].memory() == Memory::Ddr);
  CHECK(ops.items[1].bytes == 48 + 2 * 16 + 16);
  // conv 3x3 stride 2 over 9x9x8 with pad 1 (out 5x5), 16 output channels in 2 groups, in_stride 12
  ops = operands(make(Opcode::Conv, {{Field::in_h, 9}, {Field::in_w, 9}, {Field::in_c, 8}, {Field::out_c, 16},
                                     {Field::kernel_h, 3}, {Field::kernel_w, 3}, {Field::stride_h, 2}, {Field::stride_w, 2},
                                     {Field::pad_top, 1}, {Field::pad_bottom, 1}, {Field::pad_left, 1},
                                     {Field::pad_right, 1}, {Field::groups, 2}, {Field::in_stride, 12}}));
  REQUIRE(ops.count == 3);
  CHECK(ops.items[0].bytes == 80 * 12 + 8);
  CHECK(ops.items[1].bytes == 3 * 3 * 4 * 16);
  CHECK(ops.items[2].bytes == 5 * 5 * 16 * 4);
  // binary: a broadcast row spans one row and moves it once; a dense b may be dst in place.
  ops = operands(make(Opcode::Binary, {{Field::dtype, 2}, {Field::rows, 3}, {Field::cols, 8}, {Field::a_row_stride, 0},
                                       {Field::a_col_stride, 1}, {Field::b_row_stride, 8}, {Field::b_col_stride, 1}}));
  REQUIRE(ops.count == 3);
  CHECK(ops.items[0].bytes == 16);
  CHECK(ops.items[0].moved == 16);
  CHECK(ops.items[0].overlap == Overlap::Disjoint);
  CHECK(ops.items[1].bytes == 48);
  CHECK(ops.items[1].overlap == Overlap::InPlace);
  // reduce: an int8 sum writes int32, so it may not run in place; an int8 max may.
  ops = operands(make(Opcode::Reduce, {{Field::dtype, 0}, {Field::function, 0}, {Field::outer, 2}, {Field::length, 5},
                                       {Field::inner, 3}}));
  CHECK(ops.items[0].overlap == Overlap::Disjoint);
  CHECK(ops.items[1].bytes == 2 * 3 * 4);
  ops = operands(make(Opcode::Reduce, {{Field::dtype, 0}, {Field::function, 2}, {Field::outer, 2}, {Field::length, 5},
                                       {Field::inner, 3}}));
  CHECK(ops.items[0].overlap == Overlap::InPlace);
  CHECK(ops.items[1].bytes == 2 * 3);
}

TEST_CASE("bias elements are 4 bytes whatever the dtype field says", "[isa][operands]") {
  // The kernel reads and writes int32 or fp32: both 4 bytes (the simulator rejects other dtypes).
  for (int dtype = 0; dtype < enum_count<DType>(); ++dtype) {
    auto ops = operands(make(Opcode::BiasAdd, {{Field::dtype, dtype}, {Field::count, 10}, {Field::channels, 3}}));
    REQUIRE(ops.count == 3);
    CHECK(ops.items[0].bytes == 40);
    CHECK(ops.items[1].bytes == 12);
    CHECK(ops.items[2].bytes == 40);
  }
}

TEST_CASE("a size rule saturates instead of wrapping and says so", "[isa][operands]") {
  auto ops = operands(make(Opcode::Transpose, {{Field::dtype, 3}, {Field::batch, 0xFFFFFF}, {Field::rows, 0xFFFFFF},
                                               {Field::cols, 0xFFFFFF}, {Field::src_addr, 64}}));
  REQUIRE(ops.count == 2);
  CHECK(ops.items[0].overflow);
  CHECK(ops.items[0].bytes == UINT64_MAX);
  CHECK(ops.items[0].end() == UINT64_MAX);
  // Differences stop at 0 and quotients by 0 are 0: an unchecked instruction still has a size.
  ops = operands(make(Opcode::Binary, {{Field::rows, 0}, {Field::cols, 0}}));
  CHECK(ops.items[0].bytes == 1);
  CHECK(!ops.items[0].overflow);
  ops = operands(make(Opcode::Conv, {{Field::groups, 0}, {Field::in_c, 4}, {Field::out_c, 4}}));
  CHECK(ops.items[1].bytes == 0);
  CHECK(rule_field_values(make(Opcode::Reduce, {{Field::dtype, 2}, {Field::outer, 7}}), operand_rules(Opcode::Reduce).begin()->bytes) ==
        "outer = 7, length = 0, inner = 1, dtype = fp16");
}

TEST_CASE("the public size functions are the table's", "[isa][operands]") {
  CHECK(window_out(56, 2, 3, 1, 2) == 28);
  CHECK(window_out(7, 0, 3, 3, 1) == 1);  // dilated 3x3 spans 7
  CHECK(window_out(6, 0, 3, 3, 1) == 0);
  CHECK(weight_bytes(WeightFormat::Same, 3, 5, MacDType::Fp16) == 30);
  CHECK(weight_bytes(WeightFormat::Int8, 3, 5, MacDType::Fp16) == 15);
  CHECK(weight_bytes(WeightFormat::Int4, 3, 5, MacDType::Fp16) == 8);
  CHECK(weight_group_rows(0, 10) == 10);
  CHECK(weight_group_rows(4, 10) == 4);
  CHECK(weight_scale_bytes(4, 10, 3) == 3 * 3 * 2);
}
