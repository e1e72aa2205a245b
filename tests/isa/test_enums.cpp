// The enum facility and the field limits derived from instruction_set.def.
#include <catch2/catch.hpp>

#include "isa/assembler.h"
#include "isa/field_limits.h"
#include "tests/isa/test_helpers.h"

using namespace npu::isa;
using npu::isa::test::error_of;

namespace {

// Usable in constant expressions (the compiler's tilers size arrays and asserts with them).
static_assert(field_max(Opcode::Conv, Field::in_h) == 4095);
static_assert(field_max(Opcode::Load, Field::len0) == 65535);
static_assert(field_min(Opcode::QuantizedBinary, Field::a_multiplier) == -32768);
static_assert(enum_count<ActFunction>() == 31);

}  // namespace

TEST_CASE("field limits follow the widths in the table", "[isa][limits]") {
  CHECK(field_width(Opcode::Gemm, Field::m) == 16);
  CHECK(field_max(Opcode::Gemm, Field::m) == 65535);
  CHECK(field_width(Opcode::Gemm, Field::b_transposed) == 1);
  CHECK(field_max(Opcode::Gemm, Field::a_zero_point) == 127);
  CHECK(field_min(Opcode::Gemm, Field::a_zero_point) == -128);
  CHECK(field_max(Opcode::QuantizedAdd, Field::a_multiplier) == INT32_MAX);
  CHECK(field_min(Opcode::QuantizedAdd, Field::a_multiplier) == INT32_MIN);
  CHECK(field_max(Opcode::QuantizedBinary, Field::a_multiplier) == 32767);
  CHECK(field_max(Opcode::QuantizedBinary, Field::a_col_stride) == 255);
  CHECK(field_max(Opcode::Binary, Field::a_col_stride) == (1 << 24) - 1);
  CHECK(field_max(Opcode::Load, Field::ddr_addr) == 0xFFFFFFFFll);
  CHECK(field_max(Opcode::Softmax, Field::inner) == 65535);
  // An enum field's maximum is its last value, not the bit pattern's.
  CHECK(field_width(Opcode::Activation, Field::function) == 5);
  CHECK(field_max(Opcode::Activation, Field::function) == 30);
  CHECK(field_max(Opcode::Binary, Field::function) == 7);
  CHECK(field_max(Opcode::QuantizedBinary, Field::function) == 4);
  CHECK(field_max(Opcode::Reduce, Field::dtype) == 3);
  // No such field.
  CHECK(field_width(Opcode::Halt, Field::m) == 0);
  CHECK(field_max(Opcode::Halt, Field::m) == 0);
  // Every field of every opcode agrees with Instruction::set's range check.
  for (int o = 0; o < static_cast<int>(Opcode::kCount); ++o) {
    const OpcodeInfo& info = opcode_info(static_cast<Opcode>(o));
    for (int i = 0; i < info.field_count; ++i) {
      const FieldSlot& s = info.fields[i];
      if (field_info(s.field).kind == FieldKind::F || s.enum_type != EnumType::None) continue;
      Instruction inst = make_instruction(info.opcode);
      CAPTURE(info.mnemonic, field_info(s.field).name);
      CHECK_NOTHROW(inst.set(s.field, field_max(info.opcode, s.field)));
      CHECK_NOTHROW(inst.set(s.field, field_min(info.opcode, s.field)));
      if (s.width_bits < 63) CHECK_THROWS_AS(inst.set(s.field, field_max(info.opcode, s.field) + 1), IsaError);
    }
  }
}

TEST_CASE("enums: names, values and the fields that take them", "[isa][enum]") {
  CHECK(enum_name(ActFunction::GeluTanh) == "gelu_tanh");
  CHECK(enum_name(DType::Fp16) == "fp16");
  CHECK(dtype_name(DType::Int32) == "int32");
  CHECK(static_cast<int>(ActFunction::Gelu) == 5);  // the first act's codes are kept
  CHECK(static_cast<int>(ActFunction::Exp) == 6);
  CHECK(find_enum_value(EnumType::BinaryFunction, "prelu") == 7);
  CHECK(find_enum_value(EnumType::BinaryFunction, "nope") == -1);
  CHECK(find_enum_value(EnumType::None, "add") == -1);
  CHECK(enum_value_name(EnumType::ReduceFunction, 5).empty());
  CHECK(enum_value_name(EnumType::ReduceFunction, -1).empty());
  CHECK(enum_passes(EnumType::ActFunction, static_cast<int>(ActFunction::Relu)) == 1);
  CHECK(enum_passes(EnumType::ActFunction, static_cast<int>(ActFunction::Sigmoid)) == 4);
  CHECK(enum_passes(EnumType::BinaryFunction, static_cast<int>(BinaryFunction::Pow)) == 8);
  CHECK(enum_info(EnumType::ActFunction).name == "ActFunction");
  CHECK(enum_info(EnumType::ActFunction).count == enum_count<ActFunction>());
  // qbinary's codes are binary's for the functions they share.
  for (int v = 0; v < enum_count<QuantizedBinaryFunction>(); ++v)
    CHECK(enum_value_name(EnumType::QuantizedBinaryFunction, v) == enum_value_name(EnumType::BinaryFunction, v));
  CHECK(field_enum(Opcode::Activation, Field::function) == EnumType::ActFunction);
  CHECK(field_enum(Opcode::Binary, Field::function) == EnumType::BinaryFunction);
  CHECK(field_enum(Opcode::Reduce, Field::function) == EnumType::ReduceFunction);
  CHECK(field_enum(Opcode::Pool, Field::mode) == EnumType::PoolMode);
  CHECK(field_enum(Opcode::Gemm, Field::mac_dtype) == EnumType::MacDType);
  CHECK(field_enum(Opcode::Cast, Field::dst_dtype) == EnumType::DType);
  CHECK(field_enum(Opcode::Gemm, Field::m) == EnumType::None);
  CHECK(field_enum(Opcode::Halt, Field::function) == EnumType::None);
}

TEST_CASE("assembler: enum fields by name or number", "[isa][asm][enum]") {
  Program p = assemble(
      ".equ FN 5\n"
      "act dtype=fp16 function=gelu_tanh count=8\n"
      "act dtype=3 function=FN\n"
      "binary dtype=fp32 function=prelu rows=2 cols=3 a_row_stride=3 b_row_stride=0 b_col_stride=1\n"
      "reduce dtype=int8 function=sum_square\n"
      "pool mode=average\n"
      "gemm mac_dtype=fp16 b_transposed=1 a_zero_point=-3\n",
      "t");
  REQUIRE(p.code.size() == 6);
  CHECK(p.code[0].get(Field::dtype) == static_cast<int>(DType::Fp16));
  CHECK(p.code[0].get(Field::function) == static_cast<int>(ActFunction::GeluTanh));
  CHECK(p.code[1].get(Field::function) == static_cast<int>(ActFunction::Gelu));
  CHECK(p.code[2].get(Field::function) == static_cast<int>(BinaryFunction::Prelu));
  CHECK(p.code[2].get(Field::a_col_stride) == 1);  // the table default
  CHECK(p.code[3].get(Field::function) == static_cast<int>(ReduceFunction::SumSquare));
  CHECK(p.code[4].get(Field::mode) == 1);
  CHECK(p.code[5].get(Field::a_zero_point) == -3);
  // The disassembler writes names, and they read back.
  CHECK(disassemble(p.code[0]) == "act dtype=fp16 function=gelu_tanh dst_addr=0x0 src_addr=0x0 count=8 alpha=0 beta=0");
  for (const Instruction& i : p.code) CHECK(assemble(disassemble(i), "rt").code.at(0) == i);
  // A number outside the enum still encodes (the field is wide enough) and prints as a number;
  // the simulator rejects it before running.
  Instruction odd = make_instruction(Opcode::Activation);
  odd.set(Field::function, 31);
  CHECK(disassemble(odd).find(" function=31 ") != std::string::npos);
}

TEST_CASE("assembler: a wrong enum name is a one-line error listing the names", "[isa][asm][enum]") {
  const std::string e = error_of("act function=gelux");
  CHECK(e.rfind("t.npuasm:1:14: function 'gelux' is not a value of ActFunction (sigmoid, tanh, ", 0) == 0);
  CHECK(e.find('\n') == std::string::npos);
  CHECK(error_of("reduce function=prelu").find("is not a value of ReduceFunction (sum, mean, max, min, sum_square)") !=
        std::string::npos);
  CHECK(error_of("act dtype=fp64").find("dtype 'fp64' is not a value of DType (int8, int32, fp16, fp32)") !=
        std::string::npos);
  CHECK(error_of("act function=32").find("function = 32 is out of range [0, 31]") != std::string::npos);
  // Names of one enum are not valid for another field's.
  CHECK(error_of("qbinary function=div").find("is not a value of QuantizedBinaryFunction") != std::string::npos);
}

TEST_CASE("fields added to gemm and softmax come after the old ones", "[isa][encoding]") {
  // Version-1 programs' gemm and softmax fields sit where they did; the new fields (zero =
  // old behaviour for gemm) follow. act's function grew to 5 bits, so its later fields moved:
  // that is why .npuprog is version 2.
  const OpcodeInfo& g = opcode_info(Opcode::Gemm);
  CHECK(g.fields[field_slot(Opcode::Gemm, Field::k)].offset_bits == 122);
  CHECK(g.fields[field_slot(Opcode::Gemm, Field::b_transposed)].offset_bits == 138);
  CHECK(make_instruction(Opcode::Gemm).get(Field::b_zero_point) == 0);
  const OpcodeInfo& s = opcode_info(Opcode::Softmax);
  CHECK(s.fields[field_slot(Opcode::Softmax, Field::cols)].offset_bits == 82);
  CHECK(s.fields[field_slot(Opcode::Softmax, Field::inner)].offset_bits == 98);
  CHECK(make_instruction(Opcode::Softmax).get(Field::inner) == 1);
  // Opcodes of the first instruction set keep their numbers; the new ones follow halt.
  CHECK(static_cast<int>(Opcode::Halt) == 16);
  CHECK(static_cast<int>(Opcode::Binary) == 17);
  CHECK(static_cast<int>(Opcode::Dequantize) == 24);
}

TEST_CASE("each new instruction assembles from named fields and round-trips through its encoding", "[isa][asm]") {
  const char* const lines[] = {
      "act dtype=fp32 function=leaky_relu dst_addr=0x40 src_addr=0x0 count=100 alpha=0.01 beta=0",
      "binary dtype=fp16 function=div dst_addr=0x100 a_addr=0x0 b_addr=0x80 rows=4 cols=16 a_row_stride=16 "
      "a_col_stride=1 b_row_stride=0 b_col_stride=1",
      "qbinary function=mul dst_addr=0x100 a_addr=0x0 b_addr=0x80 rows=4 cols=16 a_row_stride=16 a_col_stride=1 "
      "b_row_stride=1 b_col_stride=0 a_zero_point=-3 b_zero_point=5 zero_point=-128 a_multiplier=-32768 "
      "b_multiplier=32767 shift=62 clamp_min=-128 clamp_max=127",
      "reduce dtype=int8 function=mean dst_addr=0x100 src_addr=0x0 outer=2 length=49 inner=64",
      "layernorm dtype=fp16 dst_addr=0x0 src_addr=0x0 param_addr=0x400 rows=197 cols=192 epsilon=1e-06",
      "softmax dtype=fp16 dst_addr=0x0 src_addr=0x0 rows=3 cols=197 inner=12",
      "transpose dtype=fp32 dst_addr=0x1000 src_addr=0x0 batch=12 rows=197 cols=64",
      "fill dtype=int8 dst_addr=0x0 count=4096 value=-128",
      "quantize dtype=fp16 dst_addr=0x0 src_addr=0x0 count=1000 scale=0.0235 zero_point=-7",
      "dequantize dtype=fp32 dst_addr=0x1000 src_addr=0x0 count=1000 scale=0.0235 zero_point=-7",
      "gemm mac_dtype=int8 accumulate=1 a_addr=0x0 b_addr=0x1000 c_addr=0x2000 m=197 n=197 k=64 b_transposed=1 "
      "a_zero_point=-128 b_zero_point=3 swap=0 b_format=same b_scale_addr=0x0 b_group=0",
      "gemm mac_dtype=fp16 accumulate=0 a_addr=0x0 b_addr=0x1000 c_addr=0x2000 m=1 n=128 k=4096 b_transposed=0 "
      "a_zero_point=0 b_zero_point=0 swap=1 b_format=int4 b_scale_addr=0x41000 b_group=128",
  };
  for (const char* line : lines) {
    CAPTURE(line);
    const Instruction inst = assemble(line, "t").code.at(0);
    CHECK(disassemble(inst) == line);  // every field written, in table order, enums by name
    CHECK(decode(encode(inst).data()) == inst);
  }
}
