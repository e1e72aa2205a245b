#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>

#include "isa/assembler.h"
#include "isa/fp16.h"
#include "tests/isa/test_helpers.h"

using namespace npu::isa;

namespace {
constexpr int kOpcodes = static_cast<int>(Opcode::kCount);
bool bit(const EncodedInstruction& e, int i) { return (e[i / 8] >> (i % 8)) & 1; }
}  // namespace

TEST_CASE("tables: every opcode fits, is findable and has unique fields", "[isa][table]") {
  for (int o = 0; o < kOpcodes; ++o) {
    const OpcodeInfo& info = opcode_info(static_cast<Opcode>(o));
    CAPTURE(info.mnemonic);
    CHECK(static_cast<int>(info.opcode) == o);
    CHECK(info.used_bits <= 256);
    REQUIRE(find_opcode(info.mnemonic) == &info);
    int next = kHeaderBits;
    for (int i = 0; i < info.field_count; ++i) {
      CHECK(info.fields[i].offset_bits == next);
      next += info.fields[i].width_bits;
      CHECK(field_slot(info.opcode, info.fields[i].field) == i);
      CHECK(find_field(field_info(info.fields[i].field).name) == &field_info(info.fields[i].field));
    }
    CHECK(next == info.used_bits);
  }
  CHECK(find_opcode("nope") == nullptr);
  CHECK(find_field("nope") == nullptr);
  CHECK(field_slot(Opcode::Halt, Field::m) == -1);
  CHECK(unit_name(Unit::Compute) == "compute");
  CHECK(dtype_bytes(DType::Fp16) == 2);
  CHECK(dtype_name(DType::Int32) == "int32");
}

TEST_CASE("every opcode round-trips encode -> decode -> disassemble -> assemble", "[isa][roundtrip]") {
  std::mt19937_64 rng(12345);
  for (int o = 0; o < kOpcodes; ++o) {
    for (int iter = 0; iter < 300; ++iter) {
      Instruction inst = test::random_instruction(static_cast<Opcode>(o), rng);
      EncodedInstruction bytes = encode(inst);
      Instruction back = decode(bytes.data());
      REQUIRE(back == inst);
      std::string text = disassemble(back);
      CAPTURE(text);
      Program p = assemble(text, "roundtrip");
      REQUIRE(p.code.size() == 1);
      REQUIRE(p.code[0] == inst);
      REQUIRE(encode(p.code[0]) == bytes);
    }
  }
}

TEST_CASE("encoding puts header and fields at their documented bits", "[isa][encoding]") {
  Instruction load = make_instruction(Opcode::Load);
  load.set(Field::channel, 5);
  load.pop = 0b0010;
  load.push = 0b1000;
  EncodedInstruction e = encode(load);
  CHECK(e[0] == static_cast<int>(Opcode::Load));
  CHECK((e[1] & 0x0F) == 0b0010);
  CHECK((e[1] >> 4) == 0b1000);
  CHECK((e[2] & 0x07) == 5);  // channel: bits 16..18

  // The last field of every opcode at its maximum: exactly its bits set, nothing above.
  for (int o = 0; o < kOpcodes; ++o) {
    const OpcodeInfo& info = opcode_info(static_cast<Opcode>(o));
    if (info.field_count == 0) continue;
    Instruction inst;
    inst.opcode = info.opcode;
    const FieldSlot& last = info.fields[info.field_count - 1];
    inst.set(last.field, field_info(last.field).kind == FieldKind::S ? -1 : (std::int64_t(1) << last.width_bits) - 1);
    EncodedInstruction enc = encode(inst);
    for (int b = 8; b < 256; ++b) {
      bool expected = b >= last.offset_bits && b < last.offset_bits + last.width_bits;
      CAPTURE(info.mnemonic, b);
      REQUIRE(bit(enc, b) == expected);
    }
  }
}

TEST_CASE("set checks range by width and kind", "[isa][range]") {
  Instruction g = make_instruction(Opcode::Gemm);
  g.set(Field::m, 65535);
  CHECK(g.get(Field::m) == 65535);
  try {
    g.set(Field::m, 65536);
    FAIL("no error");
  } catch (const IsaError& e) {
    std::string msg = e.what();
    CHECK(msg.find("gemm") != std::string::npos);
    CHECK(msg.find("m = 65536") != std::string::npos);
    CHECK(msg.find("[0, 65535]") != std::string::npos);
  }
  CHECK_THROWS_AS(g.set(Field::m, -1), IsaError);
  Instruction q = make_instruction(Opcode::QuantizedAdd);
  q.set(Field::clamp_min, -128);
  q.set(Field::clamp_max, 127);
  CHECK(q.get(Field::clamp_min) == -128);
  CHECK_THROWS_WITH(q.set(Field::clamp_min, -129), Catch::Contains("[-128, 127]"));
  CHECK_THROWS_AS(q.set(Field::clamp_max, 128), IsaError);
  q.set(Field::a_multiplier, INT32_MIN);
  CHECK(decode(encode(q).data()).get(Field::a_multiplier) == INT32_MIN);
  // A field the opcode does not have.
  CHECK_FALSE(g.has(Field::lo));
  CHECK(g.has(Field::k));
  CHECK_THROWS_WITH(g.get(Field::lo), Catch::Contains("gemm has no field 'lo'"));
  CHECK_THROWS_AS(g.set(Field::lo, 0), IsaError);
  CHECK_THROWS_AS(g.get_float(Field::m), IsaError);  // not a float field
  // Values written directly into the array are checked by encode.
  Instruction bad = make_instruction(Opcode::Gemm);
  bad.values[0] = 2;  // mac_dtype is 1 bit
  CHECK_THROWS_WITH(encode(bad), Catch::Contains("mac_dtype"));
  bad = make_instruction(Opcode::Halt);
  bad.pop = 16;
  CHECK_THROWS_AS(encode(bad), IsaError);
}

TEST_CASE("float fields hold float32 bits", "[isa][float]") {
  Instruction c = make_instruction(Opcode::Clip);
  c.set_float(Field::lo, 0.0f);
  c.set_float(Field::hi, std::numeric_limits<float>::infinity());
  Instruction d = decode(encode(c).data());
  CHECK(d.get_float(Field::lo) == 0.0f);
  CHECK(std::isinf(d.get_float(Field::hi)));
  c.set(Field::lo, 0x7fc00001);  // a NaN with a payload survives everything
  d = assemble(disassemble(c), "nan").code.at(0);
  CHECK(d.get(Field::lo) == 0x7fc00001);
  CHECK_THROWS_AS(c.set(Field::lo, std::int64_t(1) << 32), IsaError);
}

TEST_CASE("defaults come from the table", "[isa][defaults]") {
  Instruction l = make_instruction(Opcode::Load);
  CHECK(l.get(Field::count1) == 1);
  CHECK(l.get(Field::len0) == 0);
  Instruction c = make_instruction(Opcode::Conv);
  CHECK(c.get(Field::groups) == 1);
  CHECK(c.get(Field::stride_h) == 1);
  CHECK(assemble("conv", "t").code.at(0) == c);
}

TEST_CASE("decode rejects unknown opcodes and stray bits", "[isa][decode]") {
  EncodedInstruction e{};
  e[0] = static_cast<std::uint8_t>(Opcode::kCount);
  CHECK_THROWS_WITH(decode(e.data()), Catch::Contains("unknown opcode"));
  e = encode(make_instruction(Opcode::Halt));
  e[2] = 1;
  CHECK_THROWS_WITH(decode(e.data()), Catch::Contains("bit 16"));
  for (int o = 0; o < kOpcodes; ++o) {
    const OpcodeInfo& info = opcode_info(static_cast<Opcode>(o));
    if (info.used_bits >= 256) continue;
    EncodedInstruction x = encode(make_instruction(info.opcode));
    x[31] |= 0x80;
    CAPTURE(info.mnemonic);
    CHECK_THROWS_AS(decode(x.data()), IsaError);
  }
}

TEST_CASE("fp16 conversion rounds to nearest even", "[isa][fp16]") {
  CHECK(float_to_half(1.0f) == 0x3C00);
  CHECK(float_to_half(-2.0f) == 0xC000);
  CHECK(float_to_half(65504.0f) == 0x7BFF);
  CHECK(float_to_half(65519.0f) == 0x7BFF);
  CHECK(float_to_half(65520.0f) == 0x7C00);  // tie -> even -> inf
  CHECK(float_to_half(1.0f + std::ldexp(1.0f, -11)) == 0x3C00);  // tie, even stays
  CHECK(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3C02);  // tie, odd rounds up
  CHECK(float_to_half(std::ldexp(1.0f, -24)) == 0x0001);
  CHECK(float_to_half(std::ldexp(1.0f, -25)) == 0x0000);
  CHECK(float_to_half(3 * std::ldexp(1.0f, -26)) == 0x0001);
  CHECK(float_to_half(-0.0f) == 0x8000);
  CHECK(std::isnan(half_to_float(float_to_half(std::nanf("")))));
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    float f = half_to_float(static_cast<std::uint16_t>(h));
    if (std::isnan(f)) continue;
    REQUIRE(float_to_half(f) == h);
  }
}

TEST_CASE("constants saturate to fp16's largest finite value; infinities and NaN stay", "[isa][fp16]") {
  CHECK(float_to_half_saturating(-3.4028235e38f) == 0xFBFF);  // float32's lowest, a mask fill
  CHECK(float_to_half_saturating(3.4028235e38f) == 0x7BFF);
  CHECK(float_to_half_saturating(65520.0f) == 0x7BFF);
  CHECK(float_to_half_saturating(65504.0f) == 0x7BFF);
  CHECK(float_to_half_saturating(-1.5f) == float_to_half(-1.5f));
  CHECK(float_to_half_saturating(-INFINITY) == 0xFC00);
  CHECK(float_to_half_saturating(INFINITY) == 0x7C00);
  CHECK(std::isnan(half_to_float(float_to_half_saturating(std::nanf("")))));
}

TEST_CASE("round_to_half's fast path equals the full conversion", "[isa][fp16]") {
  // Every float whose low 13 bits are 0x0FFF, 0x1000 (the tie), 0x1001 or 0: each side of each
  // rounding boundary, every exponent and sign, plus a stride through everything else.
  auto same = [](std::uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, 4);
    const float fast = round_to_half(f), full = half_to_float(float_to_half(f));
    std::uint32_t a, b;
    std::memcpy(&a, &fast, 4);
    std::memcpy(&b, &full, 4);
    return a == b || (std::isnan(fast) && std::isnan(full));
  };
  for (std::uint32_t high = 0; high < (1u << 19); ++high)
    for (std::uint32_t low : {0x0000u, 0x0FFFu, 0x1000u, 0x1001u}) REQUIRE(same(high << 13 | low));
  for (std::uint64_t bits = 0; bits < (1ull << 32); bits += 4099) REQUIRE(same(static_cast<std::uint32_t>(bits)));
}
