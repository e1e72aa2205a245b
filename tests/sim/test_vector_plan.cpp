// The vector instructions added for real exported models: cycles hand-computed from the
// formulas in isa/ISA.md, SRAM traffic per sim/README.md, and plan_program's one-line errors.
// Config (sim_test_util.h): 16 lanes, latency 4, 1 MiB scratchpad, 64 B alignment.
#include <catch2/catch.hpp>

#include "tests/sim/sim_test_util.h"

using namespace simtest;
using npu::isa::ActFunction;
using npu::isa::BinaryFunction;
using npu::isa::DType;
using npu::isa::ReduceFunction;
using npu::sim::SimError;

namespace {

std::string error_of(const Instruction& i) {
  try {
    run(program({i}), config());
  } catch (const SimError& e) {
    return e.what();
  }
  return "no error";
}

npu::sim::SimResult run_one(const Instruction& i) { return run(program({i, halt()}), config()); }
std::uint64_t cycles_of(const Instruction& i) {
  const auto r = run_one(i);
  return r.instructions.at(0).end_cycle - r.instructions.at(0).start_cycle;
}

Instruction with(Opcode op, std::initializer_list<std::pair<Field, std::int64_t>> fields) {
  Instruction i = make(op);
  for (const auto& [f, v] : fields) i.set(f, v);
  return i;
}

Instruction binary(BinaryFunction fn, DType t, int rows, int cols) {
  return with(Opcode::Binary, {{Field::dtype, static_cast<int>(t)}, {Field::function, static_cast<int>(fn)},
                               {Field::rows, rows}, {Field::cols, cols}, {Field::a_row_stride, cols},
                               {Field::b_row_stride, cols}, {Field::a_addr, 0}, {Field::b_addr, 0x10000},
                               {Field::dst_addr, 0x20000}});
}

}  // namespace

TEST_CASE("vector cycles of the new instructions follow the ISA.md formulas", "[timing][vector]") {
  // act: latency + passes * ceil(count / lanes); relu 1 pass, gelu 4.
  auto act = with(Opcode::Activation, {{Field::dtype, 3}, {Field::count, 100}, {Field::dst_addr, 0x1000}});
  act.set(Field::function, static_cast<int>(ActFunction::Relu));
  CHECK(cycles_of(act) == 4 + 1 * 7);
  act.set(Field::function, static_cast<int>(ActFunction::Gelu));
  CHECK(cycles_of(act) == 4 + 4 * 7);
  // binary: latency + passes * rows * ceil(cols / lanes): 3 rows of 20 -> 3 * 2 groups.
  CHECK(cycles_of(binary(BinaryFunction::Add, DType::Fp16, 3, 20)) == 4 + 1 * 6);
  CHECK(cycles_of(binary(BinaryFunction::Div, DType::Fp16, 3, 20)) == 4 + 4 * 6);
  CHECK(cycles_of(binary(BinaryFunction::Pow, DType::Fp32, 3, 20)) == 4 + 8 * 6);
  // qbinary: 5 rows of 33 -> 5 * 3 groups.
  auto q = with(Opcode::QuantizedBinary, {{Field::function, 2}, {Field::rows, 5}, {Field::cols, 33},
                                          {Field::a_row_stride, 33}, {Field::b_row_stride, 33},
                                          {Field::b_addr, 0x1000}, {Field::dst_addr, 0x2000}, {Field::clamp_max, 127}});
  CHECK(cycles_of(q) == 4 + 15);
  // reduce: contiguous (inner 1) 2 x ceil(100/16); strided: outer * length * ceil(inner/16).
  auto red = with(Opcode::Reduce, {{Field::dtype, 2}, {Field::outer, 2}, {Field::length, 100},
                                   {Field::inner, 1}, {Field::dst_addr, 0x1000}});
  CHECK(cycles_of(red) == 4 + 2 * 7);
  red.set(Field::length, 10);
  red.set(Field::inner, 3);
  CHECK(cycles_of(red) == 4 + 2 * 10 * 1);
  red.set(Field::inner, 17);
  CHECK(cycles_of(red) == 4 + 2 * 10 * 2);
  // layernorm: latency + 3 * rows * ceil(cols / lanes).
  CHECK(cycles_of(with(Opcode::LayerNorm, {{Field::dtype, 3}, {Field::rows, 4}, {Field::cols, 40},
                                            {Field::param_addr, 0x8000}, {Field::dst_addr, 0x1000}})) == 4 + 3 * 4 * 3);
  // softmax: inner 1 as before (3 * rows * ceil(cols/16)), else 3 * rows * cols * ceil(inner/16).
  auto sm = with(Opcode::Softmax, {{Field::dtype, 3}, {Field::rows, 2}, {Field::cols, 4}, {Field::dst_addr, 0x1000}});
  CHECK(cycles_of(sm) == 4 + 3 * 2 * 1);
  sm.set(Field::cols, 5);
  sm.set(Field::inner, 20);
  CHECK(cycles_of(sm) == 4 + 3 * 2 * 5 * 2);
  // transpose: batch * ceil(rows/16) * ceil(cols/16) blocks of 16 cycles.
  CHECK(cycles_of(with(Opcode::Transpose, {{Field::dtype, 0}, {Field::batch, 2}, {Field::rows, 20},
                                            {Field::cols, 3}, {Field::dst_addr, 0x1000}})) == 4 + 2 * 2 * 1 * 16);
  // fill, quantize, dequantize: latency + ceil(count / lanes).
  CHECK(cycles_of(with(Opcode::Fill, {{Field::dtype, 2}, {Field::count, 33}})) == 4 + 3);
  const std::uint32_t one = 0x3f800000;  // 1.0f
  CHECK(cycles_of(with(Opcode::Quantize, {{Field::dtype, 3}, {Field::count, 16}, {Field::scale, one},
                                           {Field::dst_addr, 0x1000}})) == 4 + 1);
  CHECK(cycles_of(with(Opcode::Dequantize, {{Field::dtype, 2}, {Field::count, 17}, {Field::scale, one},
                                             {Field::dst_addr, 0x1000}})) == 4 + 2);
}

TEST_CASE("gemm's zero points and transposed B cost no cycles", "[timing][gemm]") {
  auto g = gemm(0, 8192, 16384, 64, 32, 48);
  const std::uint64_t plain = cycles_of(g);
  g.set(Field::b_transposed, 1);
  g.set(Field::a_zero_point, -128);
  g.set(Field::b_zero_point, 127);
  CHECK(cycles_of(g) == plain);
  CHECK(plain == 660);  // WS: ceil(48/16) * ceil(32/16) folds of 2*16 + 16 + 64 - 2 = 110
}

TEST_CASE("SRAM traffic: broadcast operands are read once per distinct element", "[energy][vector]") {
  // fp16 4 x 8: a full (64 B), b one value per column (0,1: 8 values, 16 B), dst 64 B.
  auto b = binary(BinaryFunction::Mul, DType::Fp16, 4, 8);
  b.set(Field::b_row_stride, 0);
  auto r = run_one(b);
  CHECK(r.vector.sram_bytes_read == 64 + 16);
  CHECK(r.vector.sram_bytes_written == 64);
  b.set(Field::b_row_stride, 1);  // one value per row
  b.set(Field::b_col_stride, 0);
  CHECK(run_one(b).vector.sram_bytes_read == 64 + 8);
  b.set(Field::b_row_stride, 0);  // scalar
  CHECK(run_one(b).vector.sram_bytes_read == 64 + 2);
  // reduce int8 sum: 2 x 8 x 4 int8 read, 2 x 4 int32 written.
  auto red = with(Opcode::Reduce, {{Field::dtype, 0}, {Field::function, 0}, {Field::outer, 2}, {Field::length, 8},
                                   {Field::inner, 4}, {Field::dst_addr, 0x1000}});
  r = run_one(red);
  CHECK(r.vector.sram_bytes_read == 64);
  CHECK(r.vector.sram_bytes_written == 32);
  // layernorm fp32 2 x 16: the rows (128 B) and gamma, beta (2 x 64 B) read, 128 B written.
  r = run_one(with(Opcode::LayerNorm, {{Field::dtype, 3}, {Field::rows, 2}, {Field::cols, 16},
                                        {Field::param_addr, 0x8000}, {Field::dst_addr, 0x1000}}));
  CHECK(r.vector.sram_bytes_read == 128 + 128);
  CHECK(r.vector.sram_bytes_written == 128);
  // transpose: read and write every element once; fill only writes.
  r = run_one(with(Opcode::Transpose, {{Field::dtype, 1}, {Field::rows, 3}, {Field::cols, 5}, {Field::dst_addr, 0x1000}}));
  CHECK(r.vector.sram_bytes_read == 60);
  CHECK(r.vector.sram_bytes_written == 60);
  r = run_one(with(Opcode::Fill, {{Field::dtype, 1}, {Field::count, 10}}));
  CHECK(r.vector.sram_bytes_read == 0);
  CHECK(r.vector.sram_bytes_written == 40);
}

TEST_CASE("bad fields of the new instructions are one-line errors", "[errors][vector]") {
  auto act = with(Opcode::Activation, {{Field::dtype, 3}, {Field::count, 8}, {Field::function, 31}});
  CHECK(error_of(act) == "instruction #0 (act): function = 31 is not a value of ActFunction (0..30)");
  auto b = binary(BinaryFunction::Div, DType::Int8, 2, 8);
  CHECK(error_of(b) == "instruction #0 (binary): function = div needs a float dtype (dtype = int8)");
  b.set(Field::function, 8);
  CHECK(error_of(b) == "instruction #0 (binary): function = 8 is not a value of BinaryFunction (0..7)");
  b = binary(BinaryFunction::Add, DType::Fp16, 2, 8);
  b.set(Field::rows, 0);
  CHECK(error_of(b) == "instruction #0 (binary): rows = 0 must be >= 1");
  // A broadcast operand may not share memory with dst: it would be overwritten before its last use.
  b = binary(BinaryFunction::Add, DType::Fp16, 2, 8);
  b.set(Field::b_addr, 0x20000);
  b.set(Field::b_row_stride, 0);
  CHECK(error_of(b) == "instruction #0 (binary): dst_addr [0x20000, 0x20020) overlaps b_addr [0x20000, 0x20010)");
  b.set(Field::b_row_stride, 8);  // full: element for element in place is fine
  CHECK(error_of(b) == "no error");
  // A strided operand is checked over its whole span.
  b.set(Field::a_row_stride, 0x80000);
  CHECK(error_of(b) == "instruction #0 (binary): a_addr 0x0 + 1048592 bytes exceeds scratchpad capacity 1048576");

  auto q = with(Opcode::QuantizedBinary, {{Field::rows, 1}, {Field::cols, 8}, {Field::b_addr, 0x40},
                                          {Field::dst_addr, 0x80}, {Field::shift, 63}, {Field::clamp_max, 127}});
  CHECK(error_of(q) == "instruction #0 (qbinary): shift = 63 must be 0..62");
  q.set(Field::shift, 1);
  q.set(Field::clamp_min, 5);
  q.set(Field::clamp_max, 4);
  CHECK(error_of(q) == "instruction #0 (qbinary): clamp_min 5 > clamp_max 4");
  q.set(Field::function, 5);
  CHECK(error_of(q) == "instruction #0 (qbinary): function = 5 is not a value of QuantizedBinaryFunction (0..4)");

  auto red = with(Opcode::Reduce, {{Field::dtype, 0}, {Field::function, static_cast<int>(ReduceFunction::SumSquare)},
                                   {Field::length, 8}, {Field::dst_addr, 0x1000}});
  CHECK(error_of(red) == "instruction #0 (reduce): function = sum_square needs a float dtype (dtype = int8)");
  red.set(Field::dtype, 1);
  CHECK(error_of(red) == "instruction #0 (reduce): dtype = int32 is not supported here (int8, fp16, fp32)");
  red.set(Field::dtype, 3);
  red.set(Field::length, 0);
  CHECK(error_of(red) == "instruction #0 (reduce): length = 0 must be >= 1");
  // Three 24-bit dimensions would overflow 64 bits: rejected by the operand's size rule, not wrapped.
  red.set(Field::length, 0xFFFFFF);
  red.set(Field::outer, 0xFFFFFF);
  red.set(Field::inner, 0xFFFFFF);
  CHECK(error_of(red) == "instruction #0 (reduce): src_addr spans outer * length * inner * element_size(dtype) bytes, "
                         "beyond 2^64 (outer = 16777215, length = 16777215, inner = 16777215, dtype = fp32)");
  red.set(Field::length, 0x1000);
  red.set(Field::outer, 0x1000);
  red.set(Field::inner, 1);
  CHECK(error_of(red) == "instruction #0 (reduce): src_addr 0x0 + 67108864 bytes exceeds scratchpad capacity 1048576");
  auto big = with(Opcode::Transpose, {{Field::batch, 0xFFFFFF}, {Field::rows, 0xFFFFFF}, {Field::cols, 0xFFFFFF}});
  CHECK(error_of(big) == "instruction #0 (transpose): src_addr spans batch * rows * cols * element_size(dtype) bytes, "
                         "beyond 2^64 (batch = 16777215, rows = 16777215, cols = 16777215, dtype = int8)");
  // int8 sum writes int32: in place would overwrite inputs not yet read.
  red = with(Opcode::Reduce, {{Field::dtype, 0}, {Field::function, 0}, {Field::length, 8}});
  CHECK(error_of(red) == "instruction #0 (reduce): dst_addr [0x0, 0x4) overlaps src_addr [0x0, 0x8)");
  red.set(Field::function, static_cast<int>(ReduceFunction::Max));  // int8 -> int8: in place is fine
  CHECK(error_of(red) == "no error");

  auto ln = with(Opcode::LayerNorm, {{Field::dtype, 3}, {Field::rows, 1}, {Field::cols, 8}, {Field::param_addr, 0x100}});
  ln.set_float(Field::epsilon, -1e-5f);
  CHECK(error_of(ln) == "instruction #0 (layernorm): epsilon = -1e-05 must be finite and >= 0");
  ln.set_float(Field::epsilon, 1e-5f);
  ln.set(Field::dtype, 0);
  CHECK(error_of(ln) == "instruction #0 (layernorm): dtype = 0 (int8) is not supported here");

  auto t = with(Opcode::Transpose, {{Field::dtype, 3}, {Field::rows, 4}, {Field::cols, 8}, {Field::dst_addr, 0x40}});
  CHECK(error_of(t) == "instruction #0 (transpose): dst_addr [0x40, 0xc0) overlaps src_addr [0x0, 0x80)");

  auto quant = with(Opcode::Quantize, {{Field::dtype, 3}, {Field::count, 8}, {Field::dst_addr, 0x100}});
  CHECK(error_of(quant) == "instruction #0 (quantize): scale = 0 must be positive and finite");
  auto deq = with(Opcode::Dequantize, {{Field::dtype, 3}, {Field::count, 8}, {Field::scale, 0x3f800000}});
  CHECK(error_of(deq) == "instruction #0 (dequantize): dst_addr [0x0, 0x20) overlaps src_addr [0x0, 0x8)");

  auto sm = with(Opcode::Softmax, {{Field::dtype, 3}, {Field::rows, 1}, {Field::cols, 8}, {Field::inner, 0}});
  CHECK(error_of(sm) == "instruction #0 (softmax): inner = 0 must be >= 1");

  auto g = gemm(0, 8192, 16384, 8, 8, 8, /*fp16=*/true);
  g.set(Field::b_zero_point, 3);
  CHECK(error_of(g) == "instruction #0 (gemm): a_zero_point = 0, b_zero_point = 3: zero points need mac_dtype int8");
}

TEST_CASE("outputs overlap inputs only as the ISA table's operand rules allow", "[errors][operands]") {
  // Element-wise instructions may run in place (same address), not shifted over their input.
  auto bias = with(Opcode::BiasAdd, {{Field::dtype, 1}, {Field::count, 32}, {Field::channels, 8},
                                     {Field::param_addr, 0x1000}});
  CHECK(error_of(bias) == "no error");
  bias.set(Field::dst_addr, 0x40);
  CHECK(error_of(bias) == "instruction #0 (bias): dst_addr [0x40, 0xc0) overlaps src_addr [0x0, 0x80) "
                          "(only the same address is allowed: in place)");
  bias.set(Field::dst_addr, 0x1000);  // over its own parameters
  CHECK(error_of(bias) == "instruction #0 (bias): dst_addr [0x1000, 0x1080) overlaps param_addr [0x1000, 0x1020)");
  // Pooling reads windows of its input while it writes: never over it.
  auto pool = with(Opcode::Pool, {{Field::in_h, 4}, {Field::in_w, 4}, {Field::channels, 8}, {Field::kernel_h, 2},
                                  {Field::kernel_w, 2}, {Field::stride_h, 2}, {Field::stride_w, 2}});
  CHECK(error_of(pool) == "instruction #0 (pool): dst_addr [0x0, 0x20) overlaps src_addr [0x0, 0x80)");
  // The array streams A and B while its accumulators fill.
  auto g = gemm(0, 0x1000, 0x1000, 4, 4, 4);
  CHECK(error_of(g) == "instruction #0 (gemm): c_addr [0x1000, 0x1040) overlaps b_addr [0x1000, 0x1010)");
  g.set(Field::c_addr, 0x2000);
  CHECK(error_of(g) == "no error");
}
