// The FP32 matrix multiply behind the FP32 evaluator's Conv (after im2col): calibration
// runs every conv of the model on each calibration input, so this loop decides INT8 compile time.
#pragma once
#include <cstdint>

namespace npu::compiler {

// C[M x N] += A[M x K] * B[K x N]; row-major, leading dimensions lda, ldb, ldc (in elements).
// Deterministic for a given machine; sums run over k in order for each output.
void gemm_accumulate(std::int64_t M, std::int64_t N, std::int64_t K, const float* A, std::int64_t lda, const float* B,
                     std::int64_t ldb, float* C, std::int64_t ldc);
// The same without the AVX-512 kernel, which gemm_accumulate takes where the CPU has it: for
// tests that check the two agree bit for bit.
void gemm_accumulate_narrow(std::int64_t M, std::int64_t N, std::int64_t K, const float* A, std::int64_t lda,
                            const float* B, std::int64_t ldb, float* C, std::int64_t ldc);

}  // namespace npu::compiler
