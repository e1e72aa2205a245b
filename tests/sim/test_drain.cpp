// drain: the MAC array's output stage (bias + requantisation of a conv/gemm's accumulators as
// they leave the array) gives the bytes of the vector unit's bias then requant, costs only its
// pipeline latency on the compute unit, and is refused anywhere but right behind its conv/gemm.
#include <catch2/catch.hpp>

#include "tests/sim/functional_harness.h"

using namespace simtest;

namespace {

constexpr int kH = 6, kW = 5, kC = 8, kO = 24, kCount = kH * kW * kO;
constexpr std::uint64_t kIn = 0, kWeights = 4096, kAcc = 8192, kBias = 16384, kRequant = 16384 + 128, kOut = 32768;

struct Operands {
  std::vector<std::int8_t> x, w;
  std::vector<std::int32_t> bias, requant;  // requant: {multiplier, shift} per channel
};

Operands operands() {
  Rng rng;
  Operands o;
  o.x = random_vector<std::int8_t>(rng, kH * kW * kC, -128, 127);
  o.w = random_vector<std::int8_t>(rng, 9 * kC * kO, -128, 127);
  o.bias = random_vector<std::int32_t>(rng, kO, -20000, 20000);
  for (int c = 0; c < kO; ++c) {
    o.requant.push_back(rng.i32(1 << 29, (1 << 30) - 1));
    o.requant.push_back(rng.i32(36, 44));
  }
  return o;
}

void put(Harness& h, const Operands& o) {
  h.put(kIn, o.x);
  h.put(kWeights, o.w);
  h.put(kBias, o.bias);
  h.put(kRequant, o.requant);
}

Instruction conv() {
  Instruction c = conv3x3_same(kIn, kWeights, kAcc, kH, kW, kC, kO);
  c.set(Field::pad_value, -3);
  return c;
}

Instruction requant_fields(Instruction i) {
  i.set(Field::count, kCount);
  i.set(Field::channels, kO);
  i.set(Field::zero_point, -7);
  i.set(Field::clamp_min, -128);
  i.set(Field::clamp_max, 100);
  return i;
}

Instruction drain(std::uint64_t src = kAcc) {
  Instruction d = requant_fields(make(Opcode::Drain));
  d.set(Field::src_addr, static_cast<std::int64_t>(src));
  d.set(Field::param_addr, kBias);
  d.set(Field::requant_addr, kRequant);
  d.set(Field::dst_addr, kOut);
  return d;
}

}  // namespace

TEST_CASE("drain gives the bytes of bias then requant and costs the output stage's latency", "[functional][mac]") {
  const Operands o = operands();
  Harness fused;
  put(fused, o);
  fused.op(conv());
  fused.op(drain());
  fused.get(kOut, kCount);
  fused.get(kAcc, kCount * 4);
  const auto rf = fused.run();

  Harness vector;
  put(vector, o);
  vector.op(conv());
  Instruction bias = make(Opcode::BiasAdd);
  bias.set(Field::dtype, static_cast<std::int64_t>(npu::isa::DType::Int32));
  bias.set(Field::src_addr, kAcc);
  bias.set(Field::dst_addr, kAcc + kCount * 4);  // keeps the accumulators, to compare them too
  bias.set(Field::param_addr, kBias);
  bias.set(Field::count, kCount);
  bias.set(Field::channels, kO);
  vector.op(bias);
  Instruction rq = requant_fields(make(Opcode::Requantize));
  rq.set(Field::src_addr, static_cast<std::int64_t>(kAcc + kCount * 4));
  rq.set(Field::param_addr, kRequant);
  rq.set(Field::dst_addr, kOut);
  vector.op(rq);
  vector.get(kOut, kCount);
  vector.get(kAcc, kCount * 4);
  const auto rv = vector.run();

  const auto y = fused.read<std::int8_t>(kOut, kCount);
  REQUIRE(y == vector.read<std::int8_t>(kOut, kCount));
  REQUIRE(fused.read<std::int32_t>(kAcc, kCount) == vector.read<std::int32_t>(kAcc, kCount));  // src left as it was
  int clamped = 0;
  for (auto v : y) clamped += v == 100 || v == -128;
  CHECK(clamped < kCount / 2);  // the parameters exercise the arithmetic, not just the clamps
  // The output stage: vector.latency_cycles (4) on the compute unit, nothing on the vector unit;
  // bias and requant on the vector unit: 2 x (4 + ceil(720 / 16)).
  const std::uint64_t conv_cycles = rv.compute.busy_cycles;
  CHECK(rf.compute.busy_cycles == conv_cycles + 4);
  CHECK(rf.vector.busy_cycles == 0);
  CHECK(rv.vector.busy_cycles == 2 * (4 + 45));
}

TEST_CASE("a drain must take the accumulators of the compute instruction just before it", "[errors][mac]") {
  auto fails = [](std::vector<Instruction> code, const std::string& what) {
    code.push_back(halt());
    REQUIRE_THROWS_WITH(run(program(code), config()), Catch::Contains(what));
  };
  fails({drain()}, "no int8 conv or gemm before it");
  fails({conv(), drain(kAcc + 64)}, "is not the accumulator block of instruction #0");
  Instruction short_count = drain();
  short_count.set(Field::count, kCount - kO);
  fails({conv(), short_count}, "is not the accumulator block");
  fails({conv(), drain(), drain()}, "no int8 conv or gemm before it");  // one drain per conv
  Instruction fp16 = conv();
  fp16.set(Field::mac_dtype, 1);
  fp16.set(Field::pad_value, 0);
  fails({fp16, drain()}, "no int8 conv or gemm before it");
  Instruction overlap = drain();
  overlap.set(Field::dst_addr, kAcc);
  fails({conv(), overlap}, "overlaps src_addr");
}
