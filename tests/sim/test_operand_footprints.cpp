// The operands of the ISA table (NPU_OPERAND in isa/instruction_set.def) are what the
// simulator's kernels touch. Every instruction runs functionally on a scratchpad (and a DDR
// window) of random bytes, twice: once as filled, once with every byte outside its read
// footprint inverted. Then
//   - no byte outside the written footprint changes (written ⊆ footprint);
//   - every byte of the written footprint that is not also read comes out the same in both
//     runs: it was written (an unwritten byte would keep its two different backgrounds), from
//     read-footprint bytes only (footprint ⊆ written, and nothing outside the read footprint
//     is read); for strided spans with gaps, only the bytes written are compared;
//   - replacing the first or the last element of each read operand changes the result: the
//     read footprint is not longer than what the kernel reads.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "costmodel/footprint.h"
#include "isa/fp16.h"
#include "isa/operands.h"
#include "tests/sim/sim_test_util.h"

namespace {

using namespace simtest;
using npu::cost::ByteRange;
using npu::isa::DType;

constexpr std::uint64_t kSram = 64 << 10;       // the scratchpad of these tests
constexpr std::uint64_t kImage = 0x100000;      // DDR: the scratchpad before the run
constexpr std::uint64_t kResult = 0x200000;     // DDR: the scratchpad after the run
constexpr std::uint64_t kWindow = 0x300000;     // DDR: the bytes load and store move
constexpr std::uint64_t kWindowBytes = 64 << 10;

// What a read operand holds: values its kernel accepts that keep every element of it visible
// in the result (no saturation or clamping hides a changed element).
enum class Kind {
  Bytes,          // random bytes
  Int8Small,      // int8 in [-8, 8]
  Int32Small,     // int32 in [-1000, 1000]
  Fp16,           // fp16 in [-4, 4]
  Fp32,           // fp32 in [-4, 4]
  RequantParams,  // {int32 multiplier in [2^30, 2^31), int32 shift in [34, 36]}: y ~ x / 32
  RowIndex16,     // int32 in [-16, 16): a row of a 16-row table (gather)
};

std::uint64_t element_bytes(Kind k) {
  switch (k) {
    case Kind::Int32Small:
    case Kind::RowIndex16:
    case Kind::Fp32: return 4;
    case Kind::Fp16: return 2;
    case Kind::RequantParams: return 8;
    default: return 1;
  }
}

void fill(Kind k, Rng& rng, std::uint8_t* p, std::uint64_t bytes) {
  for (std::uint64_t at = 0; at + element_bytes(k) <= bytes; at += element_bytes(k)) {
    switch (k) {
      case Kind::Bytes: p[at] = static_cast<std::uint8_t>(rng.next()); break;
      case Kind::Int8Small: p[at] = static_cast<std::uint8_t>(rng.i32(-8, 8)); break;
      case Kind::Int32Small: {
        const std::int32_t v = rng.i32(-1000, 1000);
        std::memcpy(p + at, &v, 4);
        break;
      }
      case Kind::RowIndex16: {
        const std::int32_t v = rng.i32(-16, 15);
        std::memcpy(p + at, &v, 4);
        break;
      }
      case Kind::Fp16: {
        const std::uint16_t h = npu::isa::float_to_half(rng.f(-4, 4));
        std::memcpy(p + at, &h, 2);
        break;
      }
      case Kind::Fp32: {
        const float f = rng.f(-4, 4);
        std::memcpy(p + at, &f, 4);
        break;
      }
      case Kind::RequantParams: {
        const std::int32_t param[2] = {rng.i32(1 << 30, INT32_MAX), rng.i32(34, 36)};
        std::memcpy(p + at, param, 8);
        break;
      }
    }
  }
}

struct Memory {
  std::vector<std::uint8_t> sram = std::vector<std::uint8_t>(kSram), ddr = std::vector<std::uint8_t>(kWindowBytes);
  std::vector<std::uint8_t>& of(npu::isa::Memory m) { return m == npu::isa::Memory::Sram ? sram : ddr; }
  const std::vector<std::uint8_t>& of(npu::isa::Memory m) const { return m == npu::isa::Memory::Sram ? sram : ddr; }
};

// DDR operands are addressed in the window; their offsets into Memory::ddr.
std::uint64_t offset(const npu::isa::Operand& o) {
  return o.memory() == npu::isa::Memory::Sram ? o.addr : o.addr - kWindow;
}

struct Case {
  std::string name;
  std::vector<Instruction> code;  // the instruction under test last; earlier ones make its inputs
  std::map<std::pair<int, Field>, Kind> inputs;  // (instruction, read operand) -> values; default Bytes
  bool dense = true;  // the written spans have no gaps (false: strided DMA runs)
};

npu::HardwareConfig small_config() {
  npu::HardwareConfig c = config();
  c.sram.capacity_bytes = kSram;
  return c;
}

Instruction whole_scratchpad(Opcode op, std::uint64_t ddr) {
  Instruction i = dma(op, ddr, 0, 4096);
  i.set(Field::count1, kSram / 4096);
  i.set(Field::ddr_stride1, 4096);
  i.set(Field::sram_stride1, 4096);
  return i;
}

Memory run(const Case& c, const Memory& before) {
  npu::sim::DdrImage ddr;
  ddr.write(kImage, before.sram.data(), kSram);
  ddr.write(kWindow, before.ddr.data(), kWindowBytes);
  std::vector<Instruction> code = {whole_scratchpad(Opcode::Load, kImage)};
  for (const Instruction& i : c.code) {
    code.push_back(make(Opcode::Barrier));
    code.push_back(i);
  }
  code.push_back(make(Opcode::Barrier));
  code.push_back(whole_scratchpad(Opcode::Store, kResult));
  code.push_back(halt());
  npu::sim::simulate(program(code), small_config(), ddr, {});
  Memory after;
  ddr.read(kResult, after.sram.data(), kSram);
  ddr.read(kWindow, after.ddr.data(), kWindowBytes);
  return after;
}

// Per byte of each memory: in a read (or written) footprint of the case's instructions.
struct Marks {
  std::vector<bool> sram = std::vector<bool>(kSram), ddr = std::vector<bool>(kWindowBytes);
  void add(const std::vector<ByteRange>& ranges, bool in_ddr) {
    for (const ByteRange& r : ranges) {
      const std::uint64_t base = in_ddr ? kWindow : 0, size = in_ddr ? kWindowBytes : kSram;
      REQUIRE(r.begin >= base);
      REQUIRE(r.end <= base + size);
      for (std::uint64_t i = r.begin; i < r.end; ++i) (in_ddr ? ddr : sram)[i - base] = true;
    }
  }
};

// The memories as filled for a case: random background, the inputs' values from `seed`.
Memory filled(const Case& c, std::uint64_t seed) {
  Memory m;
  Rng background;
  for (auto& b : m.sram) b = static_cast<std::uint8_t>(background.next());
  for (auto& b : m.ddr) b = static_cast<std::uint8_t>(background.next());
  Rng values{0x9e3779b97f4a7c15ull * (2 * seed + 1)};
  for (std::size_t i = 0; i < c.code.size(); ++i)
    for (const npu::isa::Operand& o : npu::isa::operands(c.code[i])) {
      if (o.access() != npu::isa::Access::Read) continue;
      auto it = c.inputs.find({static_cast<int>(i), o.address()});
      fill(it == c.inputs.end() ? Kind::Bytes : it->second, values, m.of(o.memory()).data() + offset(o), o.bytes);
    }
  return m;
}

bool same_in(const Memory& a, const Memory& b, const Marks& where) {
  for (std::uint64_t i = 0; i < kSram; ++i)
    if (where.sram[i] && a.sram[i] != b.sram[i]) return false;
  for (std::uint64_t i = 0; i < kWindowBytes; ++i)
    if (where.ddr[i] && a.ddr[i] != b.ddr[i]) return false;
  return true;
}

void check_footprints(const Case& c) {
  INFO(c.name);
  Marks read, written;
  for (const Instruction& i : c.code) {
    const npu::cost::Footprint f = npu::cost::footprint(i);
    read.add(f.sram_read, false);
    read.add(f.ddr_read, true);
    written.add(f.sram_write, false);
    written.add(f.ddr_write, true);
  }
  const Memory a = filled(c, 1);
  Memory b = a;
  for (std::uint64_t i = 0; i < kSram; ++i)
    if (!read.sram[i]) b.sram[i] ^= 0xFF;
  for (std::uint64_t i = 0; i < kWindowBytes; ++i)
    if (!read.ddr[i]) b.ddr[i] ^= 0xFF;
  const Memory fa = run(c, a), fb = run(c, b);

  auto check_memory = [&](const char* memory, std::uint64_t size, auto byte_of, const std::vector<bool>& r,
                          const std::vector<bool>& w) {
    std::uint64_t outside = 0, differ = 0, first_outside = 0, first_differ = 0;
    for (std::uint64_t i = 0; i < size; ++i) {
      const auto [before_a, before_b, after_a, after_b] = byte_of(i);
      const bool kept = after_a == before_a && after_b == before_b;
      if (!w[i]) {
        if (!kept && outside++ == 0) first_outside = i;
      } else if ((c.dense || r[i] || !kept) && after_a != after_b && differ++ == 0) {
        first_differ = i;
      }
    }
    INFO(memory << ": " << outside << " bytes changed outside the written footprint (first at offset " << first_outside
                << "); " << differ << " written bytes not determined by the read footprint (first at " << first_differ
                << ")");
    CHECK(outside == 0);
    CHECK(differ == 0);
  };
  check_memory("scratchpad", kSram,
               [&](std::uint64_t i) { return std::array<std::uint8_t, 4>{a.sram[i], b.sram[i], fa.sram[i], fb.sram[i]}; },
               read.sram, written.sram);
  check_memory("ddr", kWindowBytes,
               [&](std::uint64_t i) { return std::array<std::uint8_t, 4>{a.ddr[i], b.ddr[i], fa.ddr[i], fb.ddr[i]}; },
               read.ddr, written.ddr);

  // The first and last element of each read operand of the instruction under test matter
  // (operands its predecessors wrote are their outputs, not inputs).
  const int last = static_cast<int>(c.code.size()) - 1;
  Marks made;
  for (int i = 0; i < last; ++i) {
    const npu::cost::Footprint f = npu::cost::footprint(c.code[static_cast<std::size_t>(i)]);
    made.add(f.sram_write, false);
  }
  const Memory other = filled(c, 2);
  for (const npu::isa::Operand& o : npu::isa::operands(c.code.back())) {
    if (o.access() != npu::isa::Access::Read || (o.memory() == npu::isa::Memory::Sram && made.sram[o.addr])) continue;
    auto it = c.inputs.find({last, o.address()});
    const std::uint64_t e = element_bytes(it == c.inputs.end() ? Kind::Bytes : it->second);
    for (const std::uint64_t at : {offset(o), offset(o) + o.bytes - e}) {
      Memory changed = a;
      std::copy_n(other.of(o.memory()).begin() + static_cast<std::ptrdiff_t>(at), e,
                  changed.of(o.memory()).begin() + static_cast<std::ptrdiff_t>(at));
      INFO(npu::isa::field_info(o.address()).name << ": element at offset " << at - offset(o) << " of " << o.bytes);
      REQUIRE((changed.sram != a.sram || changed.ddr != a.ddr));
      CHECK(!same_in(run(c, changed), fa, written));
    }
  }
}

Instruction with(Opcode op, std::initializer_list<std::pair<Field, std::int64_t>> fields) {
  Instruction i = make(op);
  for (const auto& [f, v] : fields) i.set(f, v);
  return i;
}

constexpr std::int64_t kInt8 = 0, kInt32 = 1, kFp16 = 2, kFp32 = 3;

std::vector<Case> cases() {
  std::vector<Case> out;
  auto add = [&](std::string name, std::vector<Instruction> code, std::map<std::pair<int, Field>, Kind> inputs = {},
                 bool dense = true) { out.push_back(Case{std::move(name), std::move(code), std::move(inputs), dense}); };
  const std::int64_t win = static_cast<std::int64_t>(kWindow);

  add("load", {with(Opcode::Load, {{Field::ddr_addr, win + 100}, {Field::sram_addr, 0x400}, {Field::len0, 1000}})});
  add("load 3-D strided",
      {with(Opcode::Load, {{Field::ddr_addr, win + 8}, {Field::sram_addr, 0x1000}, {Field::len0, 24}, {Field::count1, 3},
                           {Field::count2, 4}, {Field::count3, 2}, {Field::ddr_stride1, 40}, {Field::ddr_stride2, 200},
                           {Field::ddr_stride3, 1000}, {Field::sram_stride1, 32}, {Field::sram_stride2, 128},
                           {Field::sram_stride3, 1024}})},
      {}, false);
  // One engine: an mload is a load (its group is every engine of the program).
  add("mload 2-D strided",
      {with(Opcode::MulticastLoad, {{Field::ddr_addr, win + 8}, {Field::sram_addr, 0x1000}, {Field::len0, 24},
                                    {Field::count1, 3}, {Field::count2, 4}, {Field::ddr_stride1, 40},
                                    {Field::ddr_stride2, 200}, {Field::sram_stride1, 32}, {Field::sram_stride2, 128}})},
      {}, false);
  add("store", {with(Opcode::Store, {{Field::ddr_addr, win + 3}, {Field::sram_addr, 0x2000}, {Field::len0, 777}})});
  add("store 2-D strided",
      {with(Opcode::Store, {{Field::ddr_addr, win + 64}, {Field::sram_addr, 0x800}, {Field::len0, 10}, {Field::count1, 5},
                            {Field::ddr_stride1, 16}, {Field::sram_stride1, 48}})},
      {}, false);
  // 100 of the 16 rows (24 B, 40 B apart in DDR) into runs 32 B apart: rows 0 and 15 among them.
  add("gather",
      {with(Opcode::Gather, {{Field::ddr_addr, win + 64}, {Field::sram_addr, 0x1000}, {Field::index_addr, 0}, {Field::len0, 24},
                             {Field::count, 100}, {Field::rows, 16}, {Field::ddr_stride1, 40}, {Field::sram_stride1, 32}})},
      {{{0, Field::index_addr}, Kind::RowIndex16}}, false);

  // gemm: A at 0x0, B at 0x2000, C at 0x4000, scales at 0x6000
  add("gemm int8", {gemm(0, 0x2000, 0x4000, 5, 7, 9)});
  Instruction g = gemm(0, 0x2000, 0x4000, 6, 5, 11);
  g.set(Field::b_transposed, 1);
  g.set(Field::a_zero_point, 3);
  g.set(Field::b_zero_point, -2);
  add("gemm int8 B transposed, zero points", {g});
  add("gemm fp16 accumulating", {gemm(0, 0x2000, 0x4000, 4, 9, 6, /*fp16=*/true, /*accumulate=*/true)},
      {{{0, Field::a_addr}, Kind::Fp16}, {{0, Field::b_addr}, Kind::Fp16}, {{0, Field::c_addr}, Kind::Fp32}});
  for (const auto& [format, name] : {std::pair{2, "int4"}, std::pair{1, "int8"}}) {
    g = gemm(0, 0x2000, 0x4000, 3, 7, 11, /*fp16=*/true);
    g.set(Field::b_format, format);
    g.set(Field::b_group, 4);
    g.set(Field::b_scale_addr, 0x6000);
    add(std::string("gemm fp16, ") + name + " weights in groups of 4 rows", {g},
        {{{0, Field::a_addr}, Kind::Fp16}, {{0, Field::b_scale_addr}, Kind::Fp16}});
  }

  g = gemm(0, 0x2000, 0x4000, 3, 7, 11);
  g.set(Field::b_format, 2);
  add("gemm int8, int4 weights", {g});

  // conv: input 0x0, weights 0x4000, output 0x8000
  Instruction cv = conv3x3_same(0, 0x4000, 0x8000, 5, 6, 8, 6);
  cv.set(Field::groups, 2);
  cv.set(Field::in_stride, 11);
  add("conv int8 grouped, strided pixels", {cv});
  cv = conv3x3_same(0, 0x4000, 0x8000, 7, 7, 3, 4);
  cv.set(Field::mac_dtype, 1);
  cv.set(Field::pad_value, 0);
  cv.set(Field::accumulate, 1);
  cv.set(Field::dilation_h, 2);
  cv.set(Field::stride_w, 2);
  add("conv fp16 accumulating, dilated and strided", {cv},
      {{{0, Field::in_addr}, Kind::Fp16}, {{0, Field::w_addr}, Kind::Fp16}, {{0, Field::out_addr}, Kind::Fp32}});
  cv = conv3x3_same(0, 0x4000, 0x8000, 4, 4, 6, 6);
  cv.set(Field::groups, 6);
  add("conv int8 depthwise", {cv});

  // Vector instructions: src/a at 0x0, b/param/table at 0x4000, dst at 0x8000.
  for (const std::int64_t dtype : {kInt32, kFp32})
    add(dtype == kInt32 ? "bias int32" : "bias fp32",
        {with(Opcode::BiasAdd, {{Field::dtype, dtype}, {Field::src_addr, 0}, {Field::param_addr, 0x4000},
                                {Field::dst_addr, 0x8000}, {Field::count, 37}, {Field::channels, 8}})},
        {{{0, Field::src_addr}, dtype == kInt32 ? Kind::Int32Small : Kind::Fp32},
         {{0, Field::param_addr}, dtype == kInt32 ? Kind::Int32Small : Kind::Fp32}});
  add("requant",
      {with(Opcode::Requantize, {{Field::src_addr, 0}, {Field::param_addr, 0x4000}, {Field::dst_addr, 0x8000},
                                 {Field::count, 45}, {Field::channels, 6}, {Field::clamp_min, -128}, {Field::clamp_max, 127}})},
      {{{0, Field::src_addr}, Kind::Int32Small}, {{0, Field::param_addr}, Kind::RequantParams}});
  add("requant in place (narrowing: each int8 lands on bytes already read)",
      {with(Opcode::Requantize, {{Field::src_addr, 0x40}, {Field::param_addr, 0x4000}, {Field::dst_addr, 0x40},
                                 {Field::count, 45}, {Field::channels, 6}, {Field::clamp_min, -128}, {Field::clamp_max, 127}})},
      {{{0, Field::src_addr}, Kind::Int32Small}, {{0, Field::param_addr}, Kind::RequantParams}});
  add("bias int32 in place",
      {with(Opcode::BiasAdd, {{Field::dtype, kInt32}, {Field::src_addr, 0x80}, {Field::param_addr, 0x4000},
                              {Field::dst_addr, 0x80}, {Field::count, 24}, {Field::channels, 8}})},
      {{{0, Field::src_addr}, Kind::Int32Small}, {{0, Field::param_addr}, Kind::Int32Small}});
  add("cast int8 -> fp16", {with(Opcode::Cast, {{Field::src_dtype, kInt8}, {Field::dst_dtype, kFp16}, {Field::src_addr, 0},
                                                {Field::dst_addr, 0x8000}, {Field::count, 33}})});
  add("cast fp32 -> int32", {with(Opcode::Cast, {{Field::src_dtype, kFp32}, {Field::dst_dtype, kInt32}, {Field::src_addr, 0},
                                                 {Field::dst_addr, 0x8000}, {Field::count, 21}})},
      {{{0, Field::src_addr}, Kind::Fp32}});
  Instruction clip = with(Opcode::Clip, {{Field::dtype, kFp16}, {Field::src_addr, 0}, {Field::dst_addr, 0x8000}, {Field::count, 29}});
  clip.set_float(Field::lo, -3.5f);
  clip.set_float(Field::hi, 3.5f);
  add("clip fp16", {clip}, {{{0, Field::src_addr}, Kind::Fp16}});
  add("add int8", {with(Opcode::Add, {{Field::dtype, kInt8}, {Field::a_addr, 0}, {Field::b_addr, 0x4000},
                                      {Field::dst_addr, 0x8000}, {Field::count, 50}})},
      {{{0, Field::a_addr}, Kind::Int8Small}, {{0, Field::b_addr}, Kind::Int8Small}});
  add("mul fp32", {with(Opcode::Mul, {{Field::dtype, kFp32}, {Field::a_addr, 0}, {Field::b_addr, 0x4000},
                                      {Field::dst_addr, 0x8000}, {Field::count, 19}})},
      {{{0, Field::a_addr}, Kind::Fp32}, {{0, Field::b_addr}, Kind::Fp32}});
  add("qadd", {with(Opcode::QuantizedAdd, {{Field::a_addr, 0}, {Field::b_addr, 0x4000}, {Field::dst_addr, 0x8000},
                                           {Field::count, 41}, {Field::a_multiplier, 1 << 14}, {Field::b_multiplier, 1 << 14},
                                           {Field::shift, 14}, {Field::clamp_min, -128}, {Field::clamp_max, 127}})},
      {{{0, Field::a_addr}, Kind::Int8Small}, {{0, Field::b_addr}, Kind::Int8Small}});
  add("pool average int8, padded",
      {with(Opcode::Pool, {{Field::dtype, kInt8}, {Field::mode, 1}, {Field::src_addr, 0}, {Field::dst_addr, 0x8000},
                           {Field::in_h, 6}, {Field::in_w, 5}, {Field::channels, 3}, {Field::kernel_h, 2},
                           {Field::kernel_w, 2}, {Field::stride_h, 2}, {Field::stride_w, 2}, {Field::pad_right, 1}})});
  add("pool average fp16 overlapping windows",
      {with(Opcode::Pool, {{Field::dtype, kFp16}, {Field::mode, 1}, {Field::src_addr, 0}, {Field::dst_addr, 0x8000},
                           {Field::in_h, 5}, {Field::in_w, 7}, {Field::channels, 4}, {Field::kernel_h, 3},
                           {Field::kernel_w, 3}, {Field::stride_h, 1}, {Field::stride_w, 2}, {Field::pad_top, 1},
                           {Field::pad_bottom, 1}, {Field::count_include_pad, 1}})},
      {{{0, Field::src_addr}, Kind::Fp16}});
  add("lut", {with(Opcode::Lut, {{Field::src_addr, 0}, {Field::table_addr, 0x4000}, {Field::dst_addr, 0x8000},
                                 {Field::count, 4096}})});
  Instruction act = with(Opcode::Activation, {{Field::dtype, kFp16}, {Field::function, 5}, {Field::src_addr, 0},
                                              {Field::dst_addr, 0x8000}, {Field::count, 31}});
  add("act fp16 gelu", {act}, {{{0, Field::src_addr}, Kind::Fp16}});
  act = with(Opcode::Activation, {{Field::dtype, kFp32}, {Field::function, 6}, {Field::src_addr, 0x40},
                                  {Field::dst_addr, 0x40}, {Field::count, 17}});
  add("act fp32 exp in place", {act}, {{{0, Field::src_addr}, Kind::Fp32}});
  add("softmax fp32 over the middle axis",
      {with(Opcode::Softmax, {{Field::dtype, kFp32}, {Field::src_addr, 0}, {Field::dst_addr, 0x8000}, {Field::rows, 2},
                              {Field::cols, 5}, {Field::inner, 3}})},
      {{{0, Field::src_addr}, Kind::Fp32}});
  // binary fp16: a one row broadcast down the rows, b full; int32 with a scalar b.
  add("binary fp16, broadcast row",
      {with(Opcode::Binary, {{Field::dtype, kFp16}, {Field::function, 2}, {Field::a_addr, 0}, {Field::b_addr, 0x4000},
                             {Field::dst_addr, 0x8000}, {Field::rows, 4}, {Field::cols, 9}, {Field::a_row_stride, 0},
                             {Field::a_col_stride, 1}, {Field::b_row_stride, 9}, {Field::b_col_stride, 1}})},
      {{{0, Field::a_addr}, Kind::Fp16}, {{0, Field::b_addr}, Kind::Fp16}});
  add("binary int32, strided a and scalar b",
      {with(Opcode::Binary, {{Field::dtype, kInt32}, {Field::function, 1}, {Field::a_addr, 0}, {Field::b_addr, 0x4000},
                             {Field::dst_addr, 0x8000}, {Field::rows, 3}, {Field::cols, 4}, {Field::a_row_stride, 10},
                             {Field::a_col_stride, 2}, {Field::b_row_stride, 0}, {Field::b_col_stride, 0}})},
      {{{0, Field::a_addr}, Kind::Int32Small}, {{0, Field::b_addr}, Kind::Int32Small}});
  add("qbinary, one value per row of b",
      {with(Opcode::QuantizedBinary, {{Field::function, 0}, {Field::a_addr, 0}, {Field::b_addr, 0x4000},
                                      {Field::dst_addr, 0x8000}, {Field::rows, 5}, {Field::cols, 6}, {Field::a_row_stride, 6},
                                      {Field::a_col_stride, 1}, {Field::b_row_stride, 1}, {Field::b_col_stride, 0},
                                      {Field::a_multiplier, 1 << 10}, {Field::b_multiplier, 1 << 10}, {Field::shift, 10},
                                      {Field::clamp_min, -128}, {Field::clamp_max, 127}})},
      {{{0, Field::a_addr}, Kind::Int8Small}, {{0, Field::b_addr}, Kind::Int8Small}});
  add("reduce int8 sum (int32 results)",
      {with(Opcode::Reduce, {{Field::dtype, kInt8}, {Field::function, 0}, {Field::src_addr, 0}, {Field::dst_addr, 0x8000},
                             {Field::outer, 3}, {Field::length, 7}, {Field::inner, 2}})});
  add("reduce fp16 mean",
      {with(Opcode::Reduce, {{Field::dtype, kFp16}, {Field::function, 1}, {Field::src_addr, 0}, {Field::dst_addr, 0x8000},
                             {Field::outer, 2}, {Field::length, 5}, {Field::inner, 3}})},
      {{{0, Field::src_addr}, Kind::Fp16}});
  Instruction ln = with(Opcode::LayerNorm, {{Field::dtype, kFp32}, {Field::src_addr, 0}, {Field::param_addr, 0x4000},
                                            {Field::dst_addr, 0x8000}, {Field::rows, 3}, {Field::cols, 10}});
  ln.set_float(Field::epsilon, 1e-5f);
  add("layernorm fp32", {ln}, {{{0, Field::src_addr}, Kind::Fp32}, {{0, Field::param_addr}, Kind::Fp32}});
  add("transpose fp16",
      {with(Opcode::Transpose, {{Field::dtype, kFp16}, {Field::src_addr, 0}, {Field::dst_addr, 0x8000}, {Field::batch, 2},
                                {Field::rows, 3}, {Field::cols, 5}})});
  // Dense rows: a strided copy's footprint spans the gaps it leaves as they were (as a strided
  // binary operand's does), so only the dense case is exact; tests/sim/test_copy.cpp has the rest.
  add("copy of dense rows",
      {with(Opcode::Copy, {{Field::src_addr, 0}, {Field::dst_addr, 0x8000}, {Field::rows, 4}, {Field::row_bytes, 6},
                           {Field::src_stride, 6}, {Field::dst_stride, 6}})});
  Instruction fill_op = with(Opcode::Fill, {{Field::dtype, kFp32}, {Field::dst_addr, 0x8000}, {Field::count, 13}});
  fill_op.set_float(Field::value, 1.25f);
  add("fill fp32", {fill_op});
  Instruction q = with(Opcode::Quantize, {{Field::dtype, kFp32}, {Field::src_addr, 0}, {Field::dst_addr, 0x8000},
                                          {Field::count, 27}, {Field::zero_point, 3}});
  q.set_float(Field::scale, 0.05f);
  add("quantize fp32", {q}, {{{0, Field::src_addr}, Kind::Fp32}});
  q = with(Opcode::Dequantize, {{Field::dtype, kFp16}, {Field::src_addr, 0}, {Field::dst_addr, 0x8000}, {Field::count, 27},
                                {Field::zero_point, -5}});
  q.set_float(Field::scale, 0.25f);
  add("dequantize to fp16", {q});

  // drain: the accumulators of the int8 conv just before it, bias and requant parameters apart.
  cv = conv3x3_same(0, 0x1000, 0x2000, 4, 5, 4, 6);
  const std::int64_t acc_count = 4 * 5 * 6;
  add("drain after an int8 conv",
      {cv, with(Opcode::Drain, {{Field::src_addr, 0x2000}, {Field::param_addr, 0x4000}, {Field::requant_addr, 0x5000},
                                {Field::dst_addr, 0x8000}, {Field::count, acc_count}, {Field::channels, 6},
                                {Field::clamp_min, -128}, {Field::clamp_max, 127}})},
      {{{0, Field::in_addr}, Kind::Int8Small}, {{0, Field::w_addr}, Kind::Int8Small},
       {{1, Field::param_addr}, Kind::Int32Small}, {{1, Field::requant_addr}, Kind::RequantParams}});
  return out;
}

}  // namespace

TEST_CASE("every opcode's footprint is what its kernel touches", "[footprint][functional]") {
  const std::vector<Case> all = cases();
  std::vector<bool> covered(static_cast<std::size_t>(Opcode::kCount));
  for (const Case& c : all) {
    for (const Instruction& i : c.code) covered[static_cast<std::size_t>(i.opcode)] = true;
    check_footprints(c);
  }
  for (int o = 0; o < static_cast<int>(Opcode::kCount); ++o) {
    const auto op = static_cast<Opcode>(o);
    INFO(npu::isa::opcode_info(op).mnemonic);
    CHECK((covered[static_cast<std::size_t>(o)] || op == Opcode::Barrier || op == Opcode::Halt || op == Opcode::Sync));
  }
}

TEST_CASE("bias reads and writes count x 4 bytes, as its kernel, for int32 and fp32", "[footprint][functional]") {
  // The footprint once had count x element_size(dtype): the same for the two dtypes bias
  // accepts, and now from one rule with the simulator's checks and traffic.
  for (const std::int64_t dtype : {kInt32, kFp32}) {
    const Instruction bias = with(Opcode::BiasAdd, {{Field::dtype, dtype}, {Field::src_addr, 0}, {Field::param_addr, 0x4000},
                                                    {Field::dst_addr, 0x8000}, {Field::count, 37}, {Field::channels, 8}});
    const npu::cost::Footprint f = npu::cost::footprint(bias);
    REQUIRE(f.sram_read.size() == 2);
    CHECK(f.sram_read[0].end - f.sram_read[0].begin == 37 * 4);
    CHECK(f.sram_read[1].end - f.sram_read[1].begin == 8 * 4);
    REQUIRE(f.sram_write.size() == 1);
    CHECK(f.sram_write[0].begin == 0x8000);
    CHECK(f.sram_write[0].end == 0x8000 + 37 * 4);
    const npu::sim::SimResult r = run(program({bias, halt()}), small_config());
    CHECK(r.vector.sram_bytes_read == 37 * 4 + 8 * 4);
    CHECK(r.vector.sram_bytes_written == 37 * 4);
  }
}
