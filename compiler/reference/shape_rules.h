// Output-shape rules shared by shape inference and the evaluators, so a Reshape, Squeeze or
// Resize gets one answer everywhere. Each throws std::invalid_argument with a short reason.
#pragma once
#include <cstdint>
#include <vector>

#include "compiler/reference/tensor_kernels.h"

namespace npu::compiler {

// Reshape's target: 0 copies the input dim (unless allowzero), one -1 is inferred.
Shape reshape_shape(const Shape& in, std::vector<std::int64_t> target, bool allowzero);
// Squeeze: empty axes drop every 1.
Shape squeeze_shape(const Shape& in, std::vector<std::int64_t> axes);
Shape unsqueeze_shape(const Shape& in, std::vector<std::int64_t> axes);
Shape flatten_shape(const Shape& in, std::int64_t axis);
// Resize/Upsample: sizes when given (full rank), else floor(in * scale).
Shape resize_shape(const Shape& in, const std::vector<float>& scales, const std::vector<std::int64_t>& sizes);
// Range's element count: max(ceil((limit - start) / delta), 0).
std::int64_t range_count(double start, double limit, double delta);

}  // namespace npu::compiler
