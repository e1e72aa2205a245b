// Footprints (costmodel/footprint.h) are what the dependency tokens and the interleaving pass
// trust: an opcode without one serialises the step, a wrong one reorders dependent work.
#include <catch2/catch.hpp>

#include "compiler/backend/instruction_stream.h"
#include "costmodel/footprint.h"

using namespace npu;
using isa::Field;
using isa::Opcode;
using npu::compiler::make;

TEST_CASE("every opcode but barrier and halt has a known footprint", "[costmodel][footprint]") {
  for (int op = 0; op < static_cast<int>(Opcode::kCount); ++op) {
    const auto opcode = static_cast<Opcode>(op);
    if (opcode == Opcode::Barrier || opcode == Opcode::Halt) continue;
    INFO(isa::opcode_info(opcode).mnemonic);
    CHECK(cost::footprint(isa::make_instruction(opcode)).known);
  }
}

TEST_CASE("vector footprints are the operand extents of isa/ISA.md", "[costmodel][footprint]") {
  using cost::ByteRange;
  auto same = [](const std::vector<ByteRange>& r, std::vector<std::pair<std::uint64_t, std::uint64_t>> want) {
    REQUIRE(r.size() == want.size());
    for (std::size_t i = 0; i < r.size(); ++i) {
      CHECK(r[i].begin == want[i].first);
      CHECK(r[i].end == want[i].second);
    }
  };
  constexpr auto kInt8 = static_cast<std::int64_t>(isa::DType::Int8);
  constexpr auto kFp16 = static_cast<std::int64_t>(isa::DType::Fp16);
  // int8 sum widens to int32: 4 x 3 outputs of 4 bytes from 4 x 5 x 3 inputs
  auto f = cost::footprint(make(Opcode::Reduce, {{Field::dtype, kInt8}, {Field::dst_addr, 1000}, {Field::src_addr, 0},
                                                 {Field::outer, 4}, {Field::length, 5}, {Field::inner, 3}}));
  same(f.sram_read, {{0, 60}});
  same(f.sram_write, {{1000, 1048}});
  // quantize reads fp16 and writes int8; dequantize the other way
  f = cost::footprint(make(Opcode::Quantize, {{Field::dtype, kFp16}, {Field::dst_addr, 512}, {Field::src_addr, 0}, {Field::count, 100}}));
  same(f.sram_read, {{0, 200}});
  same(f.sram_write, {{512, 612}});
  f = cost::footprint(make(Opcode::Dequantize, {{Field::dtype, kFp16}, {Field::dst_addr, 512}, {Field::src_addr, 0}, {Field::count, 100}}));
  same(f.sram_read, {{0, 100}});
  same(f.sram_write, {{512, 712}});
  // a broadcast operand (one value per column) spans one row; a dense one all of it
  f = cost::footprint(make(Opcode::Binary, {{Field::dtype, kFp16}, {Field::dst_addr, 4096}, {Field::a_addr, 0}, {Field::b_addr, 2048},
                                            {Field::rows, 3}, {Field::cols, 8}, {Field::a_row_stride, 8}, {Field::a_col_stride, 1},
                                            {Field::b_row_stride, 0}, {Field::b_col_stride, 1}}));
  same(f.sram_read, {{0, 48}, {2048, 2064}});
  same(f.sram_write, {{4096, 4144}});
  f = cost::footprint(make(Opcode::LayerNorm, {{Field::dtype, kFp16}, {Field::dst_addr, 4096}, {Field::src_addr, 0},
                                               {Field::param_addr, 8192}, {Field::rows, 2}, {Field::cols, 16}}));
  same(f.sram_read, {{0, 64}, {8192, 8320}});
  same(f.sram_write, {{4096, 4160}});
  f = cost::footprint(make(Opcode::Transpose, {{Field::dtype, kInt8}, {Field::dst_addr, 4096}, {Field::src_addr, 0},
                                               {Field::batch, 2}, {Field::rows, 3}, {Field::cols, 5}}));
  same(f.sram_read, {{0, 30}});
  same(f.sram_write, {{4096, 4126}});
  f = cost::footprint(make(Opcode::Fill, {{Field::dtype, kFp16}, {Field::dst_addr, 64}, {Field::count, 10}}));
  CHECK(f.sram_read.empty());
  same(f.sram_write, {{64, 84}});
}
