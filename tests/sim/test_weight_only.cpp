// Weight-only gemm (b_format int8 / int4 with fp16 scales): the array's arithmetic against a
// reference that dequantises by the ISA's rule, its timing by hand, its operand checks.
#include <cmath>

#include "isa/fp16.h"
#include "tests/sim/functional_harness.h"

using namespace simtest;
namespace isa = npu::isa;

namespace {

struct WeightOnlyCase {
  isa::WeightFormat format;
  int m, n, k, group;  // group: b_group (0: one scale per column)
  bool transposed;
};

// B's integers in storage order (k x n, or n x k transposed), packed as the ISA says.
std::vector<std::uint8_t> pack(const std::vector<int>& q, isa::WeightFormat format) {
  if (format == isa::WeightFormat::Int8) return {q.begin(), q.end()};
  std::vector<std::uint8_t> out((q.size() + 1) / 2, 0);
  for (std::size_t e = 0; e < q.size(); ++e) out[e / 2] |= static_cast<std::uint8_t>((q[e] & 0xF) << (e % 2 ? 4 : 0));
  return out;
}

void check(const WeightOnlyCase& c) {
  Rng rng;
  const bool int4 = c.format == isa::WeightFormat::Int4;
  const int group = c.group == 0 || c.group > c.k ? c.k : c.group, groups = (c.k + group - 1) / group;
  std::vector<std::uint16_t> a(c.m * c.k), scales(groups * c.n);
  std::vector<int> q(c.k * c.n);
  for (auto& x : a) x = isa::float_to_half(rng.f(-2, 2));
  for (auto& x : q) x = int4 ? rng.i32(-8, 7) : rng.i32(-128, 127);
  for (auto& s : scales) s = isa::float_to_half(rng.f(0.001f, 0.05f));
  // The reference: B'[p][j] = fp16(q * scale[p / group][j]), then a plain double sum.
  auto b_at = [&](int p, int j) {
    const int e = c.transposed ? j * c.k + p : p * c.n + j;
    return isa::round_to_half(static_cast<float>(q[e]) * isa::half_to_float(scales[(p / group) * c.n + j]));
  };
  const std::uint64_t B = 0x8000, S = 0xC000, C = 0x10000;
  Harness h;
  h.put(0, a);
  h.put(B, pack(q, c.format));
  h.put(S, scales);
  auto g = gemm(0, B, C, c.m, c.n, c.k, true);
  g.set(Field::b_format, static_cast<std::int64_t>(c.format));
  g.set(Field::b_scale_addr, static_cast<std::int64_t>(S));
  g.set(Field::b_group, c.group);
  g.set(Field::b_transposed, c.transposed ? 1 : 0);
  h.op(g);
  h.get(C, c.m * c.n * 4);
  const auto r = h.run();
  const auto out = h.read<float>(C, c.m * c.n);
  for (int i = 0; i < c.m; ++i)
    for (int j = 0; j < c.n; ++j) {
      double s = 0;
      for (int p = 0; p < c.k; ++p) s += static_cast<double>(isa::half_to_float(a[i * c.k + p])) * b_at(p, j);
      CHECK(out[i * c.n + j] == Approx(s).margin(1e-5).epsilon(1e-5));
    }
  CHECK(r.fp16_macs == static_cast<std::uint64_t>(c.m) * c.n * c.k);
}

}  // namespace

TEST_CASE("weight-only gemm dequantises int8 and packed int4 B by column and group", "[functional][mac][weight-only]") {
  check({isa::WeightFormat::Int8, 5, 33, 70, 0, false});      // one scale per column
  check({isa::WeightFormat::Int4, 3, 17, 70, 32, false});     // groups of 32 rows, the last of 6; k*n odd
  check({isa::WeightFormat::Int4, 4, 16, 64, 16, true});      // B stored n x k
  check({isa::WeightFormat::Int4, 1, 40, 100, 0, false});     // GEMV, one group
}

TEST_CASE("weight-only gemm times as fp16 plus the dequantiser per fold", "[timing][weight-only]") {
  // m=64, n=32, k=48 WS on 16x16 (simtest::config): 6 folds of 2*16 + 16 + 64 - 2 = 110
  // cycles = 660, x fp16_cycles_per_op 2 = 1320; int4 adds 6 folds x 3 cycles, int8 6 x 2.
  auto c = config();
  c.mac_array.dequant_int8_cycles_per_fold = 2;
  c.mac_array.dequant_int4_cycles_per_fold = 3;
  for (auto [format, cycles] : {std::pair{isa::WeightFormat::Int4, 1320 + 18}, {isa::WeightFormat::Int8, 1320 + 12}}) {
    auto g = gemm(0, 8192, 16384, 64, 32, 48, true);
    g.set(Field::b_format, static_cast<std::int64_t>(format));
    g.set(Field::b_scale_addr, 12288);
    const auto r = run(program({g, halt()}), c);
    CHECK(r.compute.busy_cycles == static_cast<std::uint64_t>(cycles));
    // Scratchpad reads: A once per column fold (2 x 64 x 48 x 2 B), B packed once, scales once.
    const std::uint64_t b_bytes = format == isa::WeightFormat::Int4 ? 48 * 32 / 2 : 48 * 32;
    CHECK(r.compute.sram_bytes_read == 2 * 64 * 48 * 2 + b_bytes + 32 * 2);
  }
}

TEST_CASE("int4 B beside int8 A is sign-extended and multiplied as int8, without scales", "[functional][mac][weight-only]") {
  for (const bool transposed : {false, true}) {
    const int m = 3, n = 17, k = 37;  // k * n odd: the last byte half used
    Rng rng;
    std::vector<std::int8_t> a(m * k);
    std::vector<int> q(k * n);
    for (auto& x : a) x = static_cast<std::int8_t>(rng.i32(-128, 127));
    for (auto& x : q) x = rng.i32(-8, 7);
    const std::int64_t za = 5, zb = -1;
    const std::uint64_t B = 0x8000, C = 0x10000;
    Harness h;
    h.put(0, a);
    h.put(B, pack(q, isa::WeightFormat::Int4));
    auto g = gemm(0, B, C, m, n, k);
    g.set(Field::b_format, static_cast<std::int64_t>(isa::WeightFormat::Int4));
    g.set(Field::b_transposed, transposed ? 1 : 0);
    g.set(Field::a_zero_point, za);
    g.set(Field::b_zero_point, zb);
    h.op(g);
    h.get(C, m * n * 4);
    const auto r = h.run();
    const auto out = h.read<std::int32_t>(C, m * n);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        std::int32_t sum = 0;
        for (int p = 0; p < k; ++p) sum += (a[i * k + p] - za) * (q[transposed ? j * k + p : p * n + j] - zb);
        CHECK(out[i * n + j] == sum);
      }
    CHECK(r.int8_macs == static_cast<std::uint64_t>(m) * n * k);
  }
}

TEST_CASE("int4 B beside int8 A times as int8 plus the unpacking per fold and reads no scales", "[timing][weight-only]") {
  // m=64, n=32, k=48 WS on 16x16: 6 folds of 110 cycles = 660 (int8: no fp16 factor) + 6 x 3.
  auto c = config();
  c.mac_array.dequant_int4_cycles_per_fold = 3;
  auto g = gemm(0, 8192, 16384, 64, 32, 48);
  g.set(Field::b_format, static_cast<std::int64_t>(isa::WeightFormat::Int4));
  const auto r = run(program({g, halt()}), c);
  CHECK(r.compute.busy_cycles == 660 + 18);
  CHECK(r.compute.sram_bytes_read == 2 * 64 * 48 + 48 * 32 / 2);  // A per column fold, B packed, no scales
}

TEST_CASE("weight-only B needs fp16 activations and a known format", "[errors][weight-only]") {
  auto g = gemm(0, 0x1000, 0x2000, 4, 4, 4);
  g.set(Field::b_format, static_cast<std::int64_t>(isa::WeightFormat::Int8));
  CHECK_THROWS_WITH(run(program({g, halt()}), config()),
                    Catch::Contains("instruction #0 (gemm): b_format int8 needs mac_dtype fp16"));
  g.set(Field::b_format, static_cast<std::int64_t>(isa::WeightFormat::Int4));
  g.set(Field::b_group, 2);
  CHECK_THROWS_WITH(run(program({g, halt()}), config()),
                    Catch::Contains("instruction #0 (gemm): b_group = 2 with mac_dtype int8: int4 B has no scales there"));
  g.set(Field::b_group, 0);
  g.set(Field::mac_dtype, 1);
  g.set(Field::b_format, 3);
  CHECK_THROWS_WITH(run(program({g, halt()}), config()), Catch::Contains("b_format = 3 is not a value of WeightFormat (0..2)"));
}
