// The FP32 GEMM behind calibration (compiler/reference/float_gemm.h): exact on integer data over shapes
// that cross every blocking edge, and blocking never changes a result's bits.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "compiler/reference/float_gemm.h"

using npu::compiler::gemm_accumulate;
using npu::compiler::gemm_accumulate_narrow;

namespace {

struct Case {
  std::int64_t M, N, K;
};

// Row-major with padded leading dimensions (the conv calls it on sub-blocks).
struct Operands {
  std::int64_t lda, ldb, ldc;
  std::vector<float> A, B, C;
};

Operands operands(const Case& c, bool integers, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> small(-8, 8);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  auto value = [&] { return integers ? static_cast<float>(small(rng)) : real(rng); };
  Operands o{c.K + 3, c.N + 5, c.N + 2, {}, {}, {}};
  o.A.resize(static_cast<std::size_t>(c.M * o.lda));
  o.B.resize(static_cast<std::size_t>(c.K * o.ldb));
  o.C.resize(static_cast<std::size_t>(c.M * o.ldc));
  for (auto& v : o.A) v = value();
  for (auto& v : o.B) v = value();
  for (auto& v : o.C) v = value();
  return o;
}

}  // namespace

TEST_CASE("float GEMM equals the triple loop exactly on integer data", "[float_gemm]") {
  // Rows around the 6- and 8-row blocks, columns around the 16- and 32-column strips, K around
  // the 128 and 256 slices.
  for (std::int64_t M : {1, 5, 6, 7, 8, 9, 13, 17})
    for (std::int64_t N : {1, 15, 16, 17, 31, 32, 33, 49})
      for (std::int64_t K : {1, 127, 128, 129, 255, 256, 257, 600}) {
        const Case c{M, N, K};
        Operands o = operands(c, true, static_cast<unsigned>(M * 1000 + N * 10 + K));
        std::vector<float> want = o.C;
        for (std::int64_t m = 0; m < M; ++m)
          for (std::int64_t n = 0; n < N; ++n)
            for (std::int64_t k = 0; k < K; ++k)
              want[static_cast<std::size_t>(m * o.ldc + n)] +=
                  o.A[static_cast<std::size_t>(m * o.lda + k)] * o.B[static_cast<std::size_t>(k * o.ldb + n)];
        gemm_accumulate(M, N, K, o.A.data(), o.lda, o.B.data(), o.ldb, o.C.data(), o.ldc);
        INFO("M=" << M << " N=" << N << " K=" << K);
        // Padding columns of C (n >= N) are never written.
        CHECK(o.C == want);
      }
}

TEST_CASE("float GEMM results do not depend on the blocking", "[float_gemm]") {
  // Each output sums over k in order whatever block or strip it falls in: one row or one column
  // computed alone gives the same bits as inside the whole product.
  const Case c{13, 37, 600};
  const Operands whole = operands(c, false, 7);
  Operands all = whole;
  gemm_accumulate(c.M, c.N, c.K, all.A.data(), all.lda, all.B.data(), all.ldb, all.C.data(), all.ldc);
  for (std::int64_t m = 0; m < c.M; ++m) {
    Operands row = whole;
    gemm_accumulate(1, c.N, c.K, row.A.data() + m * row.lda, row.lda, row.B.data(), row.ldb,
                    row.C.data() + m * row.ldc, row.ldc);
    for (std::int64_t n = 0; n < c.N; ++n)
      CHECK(std::memcmp(&row.C[static_cast<std::size_t>(m * row.ldc + n)],
                        &all.C[static_cast<std::size_t>(m * all.ldc + n)], sizeof(float)) == 0);
  }
  for (std::int64_t n = 0; n < c.N; ++n) {
    Operands col = whole;
    gemm_accumulate(c.M, 1, c.K, col.A.data(), col.lda, col.B.data() + n, col.ldb, col.C.data() + n, col.ldc);
    for (std::int64_t m = 0; m < c.M; ++m)
      CHECK(std::memcmp(&col.C[static_cast<std::size_t>(m * col.ldc + n)],
                        &all.C[static_cast<std::size_t>(m * all.ldc + n)], sizeof(float)) == 0);
  }
}

TEST_CASE("float GEMM: the AVX-512 kernel gives the narrow kernel's bits", "[float_gemm]") {
  // Both chain single-precision fused multiply-adds over k in order (where the CPU has no
  // AVX-512 both calls run the narrow kernel).
  for (std::int64_t M : {1, 6, 7, 8, 9, 16, 23, 64})
    for (std::int64_t N : {1, 16, 17, 32, 33, 49, 196})
      for (std::int64_t K : {1, 128, 129, 256, 300, 1152}) {
        const Case c{M, N, K};
        Operands wide = operands(c, false, static_cast<unsigned>(M * 7919 + N * 31 + K));
        Operands narrow = wide;
        gemm_accumulate(M, N, K, wide.A.data(), wide.lda, wide.B.data(), wide.ldb, wide.C.data(), wide.ldc);
        gemm_accumulate_narrow(M, N, K, narrow.A.data(), narrow.lda, narrow.B.data(), narrow.ldb, narrow.C.data(),
                               narrow.ldc);
        INFO("M=" << M << " N=" << N << " K=" << K);
        CHECK(std::memcmp(wide.C.data(), narrow.C.data(), wide.C.size() * sizeof(float)) == 0);
      }
}
