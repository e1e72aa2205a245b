// Physical layouts of N-D values: a value's bytes in DDR are its logical tensor with the axes
// permuted by `order` (outermost first), stored densely. NHWC is order {0, 2, 3, 1} of an NCHW
// value; row-major is the identity. Axes of size 1 do not move bytes, so two orders that differ
// only in where size-1 axes sit describe the same bytes (same_bytes()).
//
// The layout pass (passes/layout.cpp) chooses an order per NPU value; codegen derives element
// strides from it (logical_strides()). The host's tensors are row-major ONNX values, and the
// runtime's boundary conversion either copies them or transposes NCHW<->NHWC, so a value that
// crosses to the host is stored either row-major or, when 4-D, NHWC (default_order()); the
// program records which per tensor (isa::TensorEntry::host_layout).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace npu::compiler {

using AxisOrder = std::vector<int>;

AxisOrder identity_order(std::size_t rank);
// NHWC for rank 4, row-major for every other rank.
AxisOrder default_order(std::size_t rank);
AxisOrder nhwc_order();
// `order` itself, or the identity when it is empty (the IR's "not set").
AxisOrder order_or_identity(const AxisOrder& order, std::size_t rank);

// Dims in memory order: shape[order[0]], shape[order[1]], ...
std::vector<std::int64_t> physical_shape(const std::vector<std::int64_t>& shape, const AxisOrder& order);
// Element stride of each logical axis in memory (0 for size-1 axes is not used: their stride is
// whatever their position gives; it never matters).
std::vector<std::int64_t> logical_strides(const std::vector<std::int64_t>& shape, const AxisOrder& order);

// The program's name for an order (isa::TensorEntry::layout): NHWC, NC / ND (row-major), or
// ND[a,b,...] listing the logical axes outermost first.
std::string layout_name(std::size_t rank, const AxisOrder& order);

// Whether two orders of one shape store the same bytes (equal once size-1 axes are dropped).
bool same_bytes(const std::vector<std::int64_t>& shape, const AxisOrder& a, const AxisOrder& b);

// The order of Transpose(perm)'s output when its input has order `in`: no bytes move.
AxisOrder transposed_order(const AxisOrder& in, const std::vector<std::int64_t>& perm);

// The order of a reshape's output (Reshape, Flatten, Squeeze, Unsqueeze) that stores the same
// bytes as the input with order `in`, when one exists: every group of input axes that merges or
// splits into output axes must be contiguous and in increasing order in memory.
std::optional<AxisOrder> reshaped_order(const std::vector<std::int64_t>& in_shape, const AxisOrder& in,
                                        const std::vector<std::int64_t>& out_shape);

// An operand of rank r broadcast against an output of rank R (numpy: aligned right): the
// order of the operand that stores its axes in the same relative order as `out_order`.
AxisOrder projected_order(const AxisOrder& out_order, std::size_t out_rank, std::size_t operand_rank);

// Element `logical` (row-major index of the logical tensor) at its physical position, and back.
template <typename T>
std::vector<T> to_physical(const std::vector<T>& logical, const std::vector<std::int64_t>& shape, const AxisOrder& order);
template <typename T>
std::vector<T> to_logical(const std::vector<T>& physical, const std::vector<std::int64_t>& shape, const AxisOrder& order);

}  // namespace npu::compiler
