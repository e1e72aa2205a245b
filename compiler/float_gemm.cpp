// Register-blocked: a 4 x 16 block of C stays in registers while k runs, so each B load feeds
// four multiply-adds and C is read and written once per block instead of once per k. Column
// strips of B are walked with the rows of A inside, so a strip (K x 16 floats) is reused from
// cache by every row block. Built at -O3 (see CMakeLists.txt) and, on x86-64 with GCC, cloned
// for AVX2+FMA with a run-time pick, which is what makes calibration of ResNet-50 take well
// under a second instead of seconds.
#include "compiler/float_gemm.h"

namespace npu::compiler {
namespace {

constexpr std::int64_t kBlockCols = 16;

#if defined(__GNUC__)
// Two 8-float vectors per row of the block: GCC's auto-vectoriser shuffles and spills on this
// loop nest, explicit vectors keep the block in 8 registers (AVX2) or 16 (SSE).
typedef float Vec8 __attribute__((vector_size(32)));

template <int Rows>
inline __attribute__((always_inline)) void block(std::int64_t K, const float* A, std::int64_t lda, const float* B,
                                                 std::int64_t ldb, float* C, std::int64_t ldc) {
  // Vectors move through memcpy (unaligned, no aliasing questions) and are never passed by
  // value, which would make the ABI depend on the clone's instruction set.
  Vec8 acc[Rows][2];
  for (int i = 0; i < Rows; ++i) __builtin_memcpy(acc[i], C + i * ldc, sizeof acc[i]);
  for (std::int64_t k = 0; k < K; ++k) {
    Vec8 b0, b1;
    __builtin_memcpy(&b0, B + k * ldb, sizeof b0);
    __builtin_memcpy(&b1, B + k * ldb + 8, sizeof b1);
    for (int i = 0; i < Rows; ++i) {
      const float a = A[i * lda + k];
      acc[i][0] += a * b0;
      acc[i][1] += a * b1;
    }
  }
  for (int i = 0; i < Rows; ++i) __builtin_memcpy(C + i * ldc, acc[i], sizeof acc[i]);
}
#else
template <int Rows>
inline void block(std::int64_t K, const float* A, std::int64_t lda, const float* B, std::int64_t ldb, float* C,
                  std::int64_t ldc) {
  for (int i = 0; i < Rows; ++i)
    for (std::int64_t k = 0; k < K; ++k)
      for (int j = 0; j < kBlockCols; ++j) C[i * ldc + j] += A[i * lda + k] * B[k * ldb + j];
}
#endif

}  // namespace

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
void gemm_accumulate(std::int64_t M, std::int64_t N, std::int64_t K, const float* A, std::int64_t lda, const float* B,
                     std::int64_t ldb, float* C, std::int64_t ldc) {
  std::int64_t n0 = 0;
  for (; n0 + kBlockCols <= N; n0 += kBlockCols) {
    std::int64_t m = 0;
    for (; m + 4 <= M; m += 4) block<4>(K, A + m * lda, lda, B + n0, ldb, C + m * ldc + n0, ldc);
    for (; m < M; ++m) block<1>(K, A + m * lda, lda, B + n0, ldb, C + m * ldc + n0, ldc);
  }
  if (n0 == N) return;
  for (std::int64_t m = 0; m < M; ++m)  // the last < 16 columns
    for (std::int64_t k = 0; k < K; ++k) {
      const float a = A[m * lda + k];
      for (std::int64_t j = n0; j < N; ++j) C[m * ldc + j] += a * B[k * ldb + j];
    }
}

}  // namespace npu::compiler
