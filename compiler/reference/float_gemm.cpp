// Register-blocked: a 6 x 16 block of C stays in registers while k runs, so each B load feeds
// six multiply-adds and C is read and written once per block and k slice instead of once per k.
// K is cut into slices of kSliceK, and each slice of a 16-column strip of B is copied into a
// contiguous panel (16 KB, held in L1) that every row block then reuses: walked in place, a strip
// of an im2col matrix with 3136 columns strides 12.5 KB per k and thrashes L1 sets and the TLB.
// Each output still sums over k in order, so results do not depend on the blocking. Built at
// -O3 (see CMakeLists.txt) and, on x86-64 with GCC, cloned for AVX2+FMA with a run-time pick.
// Where the CPU has AVX-512, the same loops run 8 x 32 blocks of 512-bit fused multiply-adds
// instead: twice the multiply-adds per instruction, and the same bits (every output is the same
// chain of single-precision fused multiply-adds over k in order as in the AVX2+FMA clone).
#include "compiler/reference/float_gemm.h"

#include <algorithm>
#include <vector>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#include <immintrin.h>
#endif

namespace npu::compiler {
namespace {

constexpr std::int64_t kBlockCols = 16;
constexpr std::int64_t kBlockRows = 6;  // 12 accumulators + 2 B vectors + 1 broadcast: 15 of AVX2's 16 registers
constexpr std::int64_t kSliceK = 256;   // a 256 x 16 float panel is 16 KB

#if defined(__GNUC__)
// Two 8-float vectors per row of the block: GCC's auto-vectoriser shuffles and spills on this
// loop nest, explicit vectors keep the block in 8 registers (AVX2) or 16 (SSE).
typedef float Vec8 __attribute__((vector_size(32)));

// A: the block's rows interleaved by k (Rows floats per k); B: a panel of 16 floats per k.
template <int Rows>
inline __attribute__((always_inline)) void block(std::int64_t K, const float* A, const float* B, float* C,
                                                 std::int64_t ldc) {
  // Vectors move through memcpy (unaligned, no aliasing questions) and are never passed by
  // value, which would make the ABI depend on the clone's instruction set.
  Vec8 acc[Rows][2];
  for (int i = 0; i < Rows; ++i) __builtin_memcpy(acc[i], C + i * ldc, sizeof acc[i]);
  for (std::int64_t k = 0; k < K; ++k) {
    Vec8 b0, b1;
    __builtin_memcpy(&b0, B + k * kBlockCols, sizeof b0);
    __builtin_memcpy(&b1, B + k * kBlockCols + 8, sizeof b1);
    for (int i = 0; i < Rows; ++i) {
      const float a = A[k * Rows + i];
      acc[i][0] += a * b0;
      acc[i][1] += a * b1;
    }
  }
  for (int i = 0; i < Rows; ++i) __builtin_memcpy(C + i * ldc, acc[i], sizeof acc[i]);
}
#else
template <int Rows>
inline void block(std::int64_t K, const float* A, const float* B, float* C, std::int64_t ldc) {
  for (int i = 0; i < Rows; ++i)
    for (std::int64_t k = 0; k < K; ++k)
      for (int j = 0; j < kBlockCols; ++j) C[i * ldc + j] += A[k * Rows + i] * B[k * kBlockCols + j];
}
#endif

// One 16-column strip of C over a k slice, row block by row block. Inlined (not a lambda, which
// GCC would compile once for the default target) so each target clone gets its own.
#if defined(__GNUC__)
inline __attribute__((always_inline))
#else
inline
#endif
void strip(std::int64_t M, std::int64_t kb, const float* a_panel, const float* b_panel, float* c, std::int64_t ldc) {
  std::int64_t m = 0;
  for (; m + kBlockRows <= M; m += kBlockRows) block<kBlockRows>(kb, a_panel + m * kb, b_panel, c + m * ldc, ldc);
  const float* a = a_panel + m * kb;
  switch (M - m) {
    case 5: block<5>(kb, a, b_panel, c + m * ldc, ldc); break;
    case 4: block<4>(kb, a, b_panel, c + m * ldc, ldc); break;
    case 3: block<3>(kb, a, b_panel, c + m * ldc, ldc); break;
    case 2: block<2>(kb, a, b_panel, c + m * ldc, ldc); break;
    case 1: block<1>(kb, a, b_panel, c + m * ldc, ldc); break;
    default: break;
  }
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define NPUSIM_GEMM_AVX512 1
namespace wide {

constexpr std::int64_t kBlockCols = 32;  // two 16-float vectors
constexpr std::int64_t kBlockRows = 8;   // 16 accumulators + 2 B vectors + 1 broadcast of 32 registers
constexpr std::int64_t kSliceK = 128;    // a 128 x 32 float panel is 16 KB

template <int Rows>
__attribute__((target("avx512f,fma"), always_inline)) inline void block(std::int64_t K, const float* A, const float* B,
                                                                        float* C, std::int64_t ldc) {
  __m512 acc[Rows][2];
  for (int i = 0; i < Rows; ++i) {
    acc[i][0] = _mm512_loadu_ps(C + i * ldc);
    acc[i][1] = _mm512_loadu_ps(C + i * ldc + 16);
  }
  for (std::int64_t k = 0; k < K; ++k) {
    const __m512 b0 = _mm512_load_ps(B + k * kBlockCols), b1 = _mm512_load_ps(B + k * kBlockCols + 16);
    for (int i = 0; i < Rows; ++i) {
      const __m512 a = _mm512_set1_ps(A[k * Rows + i]);
      acc[i][0] = _mm512_fmadd_ps(a, b0, acc[i][0]);
      acc[i][1] = _mm512_fmadd_ps(a, b1, acc[i][1]);
    }
  }
  for (int i = 0; i < Rows; ++i) {
    _mm512_storeu_ps(C + i * ldc, acc[i][0]);
    _mm512_storeu_ps(C + i * ldc + 16, acc[i][1]);
  }
}

__attribute__((target("avx512f,fma"), always_inline)) inline void strip(std::int64_t M, std::int64_t kb,
                                                                       const float* a_panel, const float* b_panel,
                                                                       float* c, std::int64_t ldc) {
  std::int64_t m = 0;
  for (; m + kBlockRows <= M; m += kBlockRows) block<kBlockRows>(kb, a_panel + m * kb, b_panel, c + m * ldc, ldc);
  const float* a = a_panel + m * kb;
  switch (M - m) {
    case 7: block<7>(kb, a, b_panel, c + m * ldc, ldc); break;
    case 6: block<6>(kb, a, b_panel, c + m * ldc, ldc); break;
    case 5: block<5>(kb, a, b_panel, c + m * ldc, ldc); break;
    case 4: block<4>(kb, a, b_panel, c + m * ldc, ldc); break;
    case 3: block<3>(kb, a, b_panel, c + m * ldc, ldc); break;
    case 2: block<2>(kb, a, b_panel, c + m * ldc, ldc); break;
    case 1: block<1>(kb, a, b_panel, c + m * ldc, ldc); break;
    default: break;
  }
}

// gemm_narrow's loops around the wide block.
__attribute__((target("avx512f,fma"))) void gemm(std::int64_t M, std::int64_t N, std::int64_t K, const float* A,
                                                 std::int64_t lda, const float* B, std::int64_t ldb, float* C,
                                                 std::int64_t ldc) {
  alignas(64) float b_panel[kSliceK * kBlockCols];
  std::vector<float> a_panel(static_cast<std::size_t>((M + kBlockRows - 1) / kBlockRows * kBlockRows * kSliceK));
  const std::int64_t full_cols = N / kBlockCols * kBlockCols, tail = N - full_cols;
  std::vector<float> c_tail(tail ? static_cast<std::size_t>(M * kBlockCols) : 0);
  for (std::int64_t m = 0; m < M && tail; ++m)
    for (std::int64_t j = 0; j < tail; ++j) c_tail[static_cast<std::size_t>(m * kBlockCols + j)] = C[m * ldc + full_cols + j];
  for (std::int64_t k0 = 0; k0 < K; k0 += kSliceK) {
    const std::int64_t kb = K - k0 < kSliceK ? K - k0 : kSliceK;
    for (std::int64_t m = 0; m < M; ++m) {
      float* dst = &a_panel[static_cast<std::size_t>(m / kBlockRows * kBlockRows * kb + m % kBlockRows)];
      const float* src = A + m * lda + k0;
      const std::int64_t rows = std::min(kBlockRows, M - m / kBlockRows * kBlockRows);
      for (std::int64_t k = 0; k < kb; ++k) dst[k * rows] = src[k];
    }
    for (std::int64_t n0 = 0; n0 < full_cols; n0 += kBlockCols) {
      for (std::int64_t k = 0; k < kb; ++k)
        for (std::int64_t j = 0; j < kBlockCols; ++j) b_panel[k * kBlockCols + j] = B[(k0 + k) * ldb + n0 + j];
      strip(M, kb, a_panel.data(), b_panel, C + n0, ldc);
    }
    if (!tail) continue;
    for (std::int64_t k = 0; k < kb; ++k)
      for (std::int64_t j = 0; j < kBlockCols; ++j)
        b_panel[k * kBlockCols + j] = j < tail ? B[(k0 + k) * ldb + full_cols + j] : 0.0f;
    strip(M, kb, a_panel.data(), b_panel, c_tail.data(), kBlockCols);
  }
  for (std::int64_t m = 0; m < M && tail; ++m)
    for (std::int64_t j = 0; j < tail; ++j) C[m * ldc + full_cols + j] = c_tail[static_cast<std::size_t>(m * kBlockCols + j)];
}

}  // namespace wide
#endif

}  // namespace

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
void gemm_accumulate_narrow(std::int64_t M, std::int64_t N, std::int64_t K, const float* A, std::int64_t lda,
                            const float* B, std::int64_t ldb, float* C, std::int64_t ldc) {
  if (M <= 0 || N <= 0 || K <= 0) return;
  alignas(64) float b_panel[kSliceK * kBlockCols];
  // A's slice, each block of kBlockRows rows interleaved by k: the block's broadcasts then read
  // one sequential stream instead of kBlockRows strided ones.
  std::vector<float> a_panel(static_cast<std::size_t>((M + kBlockRows - 1) / kBlockRows * kBlockRows * kSliceK));
  // The last N % 16 columns go through a zero-padded panel into a 16-wide copy of C's columns
  // (the padding lanes are computed and dropped), so they run on the same kernel.
  const std::int64_t full_cols = N / kBlockCols * kBlockCols, tail = N - full_cols;
  std::vector<float> c_tail(tail ? static_cast<std::size_t>(M * kBlockCols) : 0);
  for (std::int64_t m = 0; m < M && tail; ++m)
    for (std::int64_t j = 0; j < tail; ++j) c_tail[static_cast<std::size_t>(m * kBlockCols + j)] = C[m * ldc + full_cols + j];
  for (std::int64_t k0 = 0; k0 < K; k0 += kSliceK) {
    const std::int64_t kb = K - k0 < kSliceK ? K - k0 : kSliceK;
    for (std::int64_t m = 0; m < M; ++m) {
      float* dst = &a_panel[static_cast<std::size_t>(m / kBlockRows * kBlockRows * kb + m % kBlockRows)];
      const float* src = A + m * lda + k0;
      const std::int64_t rows = std::min(kBlockRows, M - m / kBlockRows * kBlockRows);
      for (std::int64_t k = 0; k < kb; ++k) dst[k * rows] = src[k];
    }
    for (std::int64_t n0 = 0; n0 < full_cols; n0 += kBlockCols) {
      for (std::int64_t k = 0; k < kb; ++k)
        for (std::int64_t j = 0; j < kBlockCols; ++j) b_panel[k * kBlockCols + j] = B[(k0 + k) * ldb + n0 + j];
      strip(M, kb, a_panel.data(), b_panel, C + n0, ldc);
    }
    if (!tail) continue;
    for (std::int64_t k = 0; k < kb; ++k)
      for (std::int64_t j = 0; j < kBlockCols; ++j)
        b_panel[k * kBlockCols + j] = j < tail ? B[(k0 + k) * ldb + full_cols + j] : 0.0f;
    strip(M, kb, a_panel.data(), b_panel, c_tail.data(), kBlockCols);
  }
  for (std::int64_t m = 0; m < M && tail; ++m)
    for (std::int64_t j = 0; j < tail; ++j) C[m * ldc + full_cols + j] = c_tail[static_cast<std::size_t>(m * kBlockCols + j)];
}

void gemm_accumulate(std::int64_t M, std::int64_t N, std::int64_t K, const float* A, std::int64_t lda, const float* B,
                     std::int64_t ldb, float* C, std::int64_t ldc) {
  if (M <= 0 || N <= 0 || K <= 0) return;
#ifdef NPUSIM_GEMM_AVX512
  // The narrow kernel's x86-64-v3 clone fuses its multiply-adds as well, so the pick changes no
  // bits (tests/compiler/float_gemm_test.cpp compares the two).
  static const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
  if (avx512) return wide::gemm(M, N, K, A, lda, B, ldb, C, ldc);
#endif
  gemm_accumulate_narrow(M, N, K, A, lda, B, ldb, C, ldc);
}

}  // namespace npu::compiler
