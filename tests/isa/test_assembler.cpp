#include <catch2/catch.hpp>
#include <cmath>

#include "isa/assembler.h"
#include "isa/fp16.h"
#include "tests/isa/test_helpers.h"

using namespace npu::isa;
using npu::isa::test::error_of;

namespace {

Program rich_program() {
  std::mt19937_64 rng(7);
  Program p;
  for (int i = 0; i < 200; ++i)
    p.code.push_back(test::random_instruction(static_cast<Opcode>(rng() % static_cast<int>(Opcode::kCount)), rng));
  p.code.push_back(make_instruction(Opcode::Halt));
  TensorEntry in{"input", TensorRole::Input, DType::Int8, {1, 224, 224, 3}, "NHWC", 0x10000, 224 * 224 * 3, 0.0078125f, -128, "NCHW"};
  TensorEntry odd{"/conv1/Conv_output_0 \"odd\" name;#=,", TensorRole::Intermediate, DType::Fp16, {}, "", 0x1, 12345, -0.0f, 7, ""};
  TensorEntry neg{"dyn", TensorRole::Output, DType::Fp32, {-1, 10}, "NC", 0xFFFFFFFFFFull, 40, 1.0f / 3.0f, 0, "NC"};
  p.tensors = {in, odd, neg};
  DataSegment empty{0x20000, {}};
  DataSegment big{0x30000, {}};
  for (int i = 0; i < 300; ++i) big.bytes.push_back(static_cast<std::uint8_t>(rng()));
  p.data = {empty, big, DataSegment{0x30000 + 300, {1, 2, 3}}};
  p.extra = {OpaqueSection{100, {9, 8, 7}}, OpaqueSection{4000000000u, {}}};
  p.labels = {{"start", 0}, {"loop.body", 5}, {"also_five", 5}, {"weird name:", 17}, {"end", 201}};
  return p;
}

}  // namespace

TEST_CASE("assembler: syntax features", "[isa][asm]") {
  Program p = assemble(R"(
# comment line
; another comment
.equ BASE 0x1_0000
.equ TILE 64
.equ OUT BASE+TILE*TILE-1
.tensor name=x role=input dtype=fp16 shape=2x3 layout=NC addr=BASE scale=0.5 zero_point=3
.data addr=0x20000 i8=1,2,-3 i32=-1 f32=1.5 f16=1.0,-inf hex=00_ff
.hex abcd
start:
  load ddr_addr=BASE sram_addr=0 len0=TILE count1=TILE push=compute   ; trailing comment
loop: gemm m=TILE n=TILE k=TILE c_addr=OUT pop=load,vector push=none
  clip lo=-inf hi=inf dtype=3 # relu6 would be hi=6
  clip lo=-0 hi=1e-3
  qadd clamp_min=-128 clamp_max=127 a_multiplier=-0x8000_0000 shift=0b11
end: halt
)", "t");
  REQUIRE(p.code.size() == 6);
  CHECK(p.code[0].get(Field::ddr_addr) == 0x10000);
  CHECK(p.code[0].get(Field::count1) == 64);
  CHECK(p.code[0].get(Field::count2) == 1);  // default
  CHECK(p.code[0].push == 1u << static_cast<int>(Unit::Compute));
  CHECK(p.code[1].get(Field::c_addr) == 0x10000 + 64 * 64 - 1);
  CHECK(p.code[1].pop == ((1u << 0) | (1u << 2)));
  CHECK(p.code[1].push == 0);
  CHECK(p.code[2].get_float(Field::lo) == -INFINITY);
  CHECK(p.code[2].get_float(Field::hi) == INFINITY);
  CHECK(std::signbit(p.code[3].get_float(Field::lo)));
  CHECK(p.code[3].get_float(Field::hi) == 1e-3f);
  CHECK(p.code[4].get(Field::a_multiplier) == INT32_MIN);
  CHECK(p.code[4].get(Field::shift) == 3);
  REQUIRE(p.labels.size() == 3);
  CHECK(p.labels[0].name == "start");
  CHECK(p.labels[0].instruction_index == 0);
  CHECK(p.labels[1].instruction_index == 1);
  CHECK(p.labels[2].instruction_index == 5);
  REQUIRE(p.tensors.size() == 1);
  CHECK(p.tensors[0].size_bytes == 12);
  CHECK(p.tensors[0].dtype == DType::Fp16);
  CHECK(p.tensors[0].scale == 0.5f);
  CHECK(p.tensors[0].zero_point == 3);
  REQUIRE(p.data.size() == 1);
  std::vector<std::uint8_t> expected = {1, 2, 0xFD, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0xC0, 0x3F,
                                        0x00, 0x3C, 0x00, 0xFC, 0x00, 0xFF, 0xAB, 0xCD};
  CHECK(p.data[0].bytes == expected);
}

TEST_CASE("assembler: a tensor's host layout defaults to its layout for inputs and outputs only", "[isa][asm]") {
  Program p = assemble(R"(
.tensor name=a role=input dtype=int8 shape=1x2x2x4 layout=NHWC host_layout=NCHW addr=0
.tensor name=b role=input dtype=int8 shape=1x2x2x4 layout=NHWC addr=16
.tensor name=c role=output dtype=int8 shape=1x4 layout=NC addr=32
.tensor name=d role=intermediate dtype=int8 shape=1x4 layout=NC addr=48
halt
)", "t");
  REQUIRE(p.tensors.size() == 4);
  CHECK(p.tensors[0].host_layout == "NCHW");   // the runtime transposes
  CHECK(p.tensors[1].host_layout == "NHWC");   // the host's bytes are the program's
  CHECK(p.tensors[2].host_layout == "NC");
  CHECK(p.tensors[3].host_layout.empty());     // never crosses to the host
  CHECK_THAT(disassemble(p), Catch::Contains("name=a role=input dtype=int8 shape=1x2x2x4 layout=NHWC host_layout=NCHW"));
  CHECK(assemble(disassemble(p), "t").tensors[3].host_layout.empty());
  CHECK_THAT(error_of(".tensor name=a role=input dtype=int8 shape=1 host_layout=\"NC"),
             Catch::StartsWith("t.npuasm:1:"));
  CHECK_THAT(error_of(".tensor name=a role=input dtype=int8 shape=1 hostlayout=NC"),
             Catch::Contains("unknown field 'hostlayout' (expected name, role, dtype, shape, layout, host_layout,"));
}

TEST_CASE("assembler: errors name line and column", "[isa][asm][errors]") {
  CHECK(error_of("halt\n  bogus m=1\n") == "t.npuasm:2:3: unknown mnemonic 'bogus'");
  CHECK_THAT(error_of("gemm m=1 zz=2"), Catch::StartsWith("t.npuasm:1:10: unknown field 'zz' for gemm"));
  CHECK_THAT(error_of("gemm m=1 lo=2"), Catch::StartsWith("t.npuasm:1:10: no field 'lo' for gemm"));
  CHECK_THAT(error_of("\n\ngemm   m=65536"), Catch::StartsWith("t.npuasm:3:8: gemm: m = 65536 is out of range [0, 65535]"));
  CHECK_THAT(error_of("qadd clamp_min=-129"), Catch::StartsWith("t.npuasm:1:6: qadd: clamp_min = -129 is out of range [-128, 127]"));
  CHECK_THAT(error_of("gemm m=1 m=2"), Catch::StartsWith("t.npuasm:1:10: duplicate field 'm'"));
  CHECK_THAT(error_of("gemm m=12abc"), Catch::StartsWith("t.npuasm:1:8: bad number '12abc'"));
  CHECK_THAT(error_of("gemm m=0x"), Catch::StartsWith("t.npuasm:1:8: bad number"));
  CHECK_THAT(error_of("gemm m=A+1"), Catch::StartsWith("t.npuasm:1:8: unknown symbol 'A'"));
  CHECK_THAT(error_of(".equ A 1\ngemm m=A+B"), Catch::StartsWith("t.npuasm:2:10: unknown symbol 'B'"));
  CHECK_THAT(error_of("gemm m"), Catch::StartsWith("t.npuasm:1:6: expected field=value"));
  CHECK_THAT(error_of("gemm m="), Catch::StartsWith("t.npuasm:1:8: missing value"));
  CHECK_THAT(error_of("gemm pop=load,dma"), Catch::StartsWith("t.npuasm:1:15: unknown unit 'dma'"));
  CHECK_THAT(error_of("clip lo=1e39"), Catch::StartsWith("t.npuasm:1:9: 1e39 is out of range for float32"));
  CHECK_THAT(error_of(".tensor name=\"abc"), Catch::StartsWith("t.npuasm:1:9: unterminated string"));
  CHECK_THAT(error_of(".tensor name=a role=input dtype=int4 shape=1"), Catch::StartsWith("t.npuasm:1:33: dtype must be"));
  CHECK_THAT(error_of(".tensor name=a role=input dtype=int8"), Catch::Contains(".tensor needs shape="));
  CHECK_THAT(error_of(".data addr=0 i8=1,300"), Catch::StartsWith("t.npuasm:1:19: i8 value 300 is out of range"));
  CHECK_THAT(error_of(".data addr=0 hex=abc"), Catch::Contains("even number"));
  CHECK_THAT(error_of(".hex 00"), Catch::Contains("no"));
  CHECK_THAT(error_of(".section kind=5"), Catch::Contains("section kind 5 is out of range"));
  CHECK_THAT(error_of(".bogus"), Catch::StartsWith("t.npuasm:1:1: unknown directive"));
  CHECK_THAT(error_of("a:\na: halt"), Catch::StartsWith("t.npuasm:2:1: label 'a' already defined on line 1"));
  CHECK_THAT(error_of(".equ A 1\n.equ A 2"), Catch::Contains("already defined"));
  CHECK_THAT(error_of("gemm m=99999999999999999999"), Catch::Contains("does not fit 64 bits"));
}

TEST_CASE("assembler: whole programs round-trip bit-exactly through text", "[isa][asm][roundtrip]") {
  Program p = rich_program();
  std::string text = disassemble(p);
  Program q = assemble(text, "rt");
  CHECK(serialize(q) == serialize(p));
  CHECK(disassemble(q) == text);
  CHECK(q.tensors[1].name == p.tensors[1].name);
  CHECK(std::signbit(q.tensors[1].scale));
}

TEST_CASE("disassemble(Instruction) writes every field on one line", "[isa][asm]") {
  std::string line = disassemble(make_instruction(Opcode::Softmax));
  CHECK(line == "softmax dtype=int8 dst_addr=0x0 src_addr=0x0 rows=0 cols=0 inner=1");
  CHECK(line.find('\n') == std::string::npos);
  Instruction c = make_instruction(Opcode::Clip);
  c.set_float(Field::hi, 6.0f);
  c.set_float(Field::lo, -INFINITY);
  c.pop = 0b0001;
  c.push = 0b1100;
  CHECK(disassemble(c) == "clip dtype=int8 dst_addr=0x0 src_addr=0x0 count=0 lo=-inf hi=6 pop=load push=vector,store");
}

TEST_CASE("assembler: garbage input gives IsaError, never a crash", "[isa][asm][fuzz]") {
  std::mt19937_64 rng(3);
  const std::string text = disassemble(rich_program());
  const char alphabet[] = "abcdefxyz0123456789 =,:#;.\"\\-+*_\t\n";
  for (int iter = 0; iter < 3000; ++iter) {
    std::string t = text.substr(0, 2000);
    for (int k = 0; k < 4; ++k) t[rng() % t.size()] = alphabet[rng() % (sizeof alphabet - 1)];
    try {
      assemble(t, "fuzz");
    } catch (const IsaError& e) {
      REQUIRE(std::string(e.what()).rfind("fuzz:", 0) == 0);
    }
  }
}
