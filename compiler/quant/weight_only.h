// Weight-only quantisation of a gemm's constant [K][N] weights (--weights int8|int4): symmetric
// integers per output column, int8 with one fp16 scale per column, int4 with one per column
// and group of `group` rows (the last group shorter when K is not a multiple: as if K were
// zero-padded). The scale is max|w| / 127 (or / 7) rounded to fp16, q = round-half-even(w /
// scale) clamped to the type; the array computes with fp16(q * scale). The layer's blocks are
// laid out for gemm's b_format (isa/instruction_set.def): values, then the scale rows.
#pragma once
#include <cstdint>
#include <vector>

#include "costmodel/mac_shapes.h"

namespace npu::compiler {

struct WeightOnlyWeights {
  std::int64_t k = 0, n = 0, group_rows = 0;  // group_rows: rows per scale row
  std::vector<std::int8_t> values;            // [k][n]
  std::vector<std::uint16_t> scales;          // fp16 bits, [ceil(k / group_rows)][n]
};

WeightOnlyWeights quantize_weight_only(const std::vector<float>& w, std::int64_t k, std::int64_t n,
                                  const cost::WeightStorage& storage);

// Appends the block of rows [row0, row1) and columns [col0, col0 + cols): the values (int8, or
// int4 two per byte, low nibble first, row-major), zeros to a multiple of `alignment`, the
// scale rows of those rows' groups (int8: the one row; none when the storage is not scaled:
// int4 weights of an int8 program, weight_bits.h). row0 must start a group (throws std::logic_error).
void append_weight_block(std::vector<std::uint8_t>& out, const WeightOnlyWeights& q, const cost::WeightStorage& storage,
                         std::int64_t row0, std::int64_t row1, std::int64_t col0, std::int64_t cols,
                         std::uint64_t alignment);

}  // namespace npu::compiler
