// Geometry of a node that shape inference, the evaluators and the back end compute alike: the
// window of a Conv or pooling node, numpy broadcasting. Each throws CompileError naming the node.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/core/graph.h"

namespace npu::compiler {

// Kernel, stride, dilation and explicit pads of a Conv or pooling node for a given NCHW input;
// auto_pad is resolved to explicit pads here so nothing downstream sees it.
struct WindowGeometry {
  std::int64_t kernel_h = 1, kernel_w = 1;
  std::int64_t stride_h = 1, stride_w = 1;
  std::int64_t dilation_h = 1, dilation_w = 1;
  std::int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  bool ceil_mode = false;
  std::int64_t out_h = 1, out_w = 1;
};
// `kernel` is the spatial kernel (from the weights for Conv, kernel_shape for pools).
// Throws CompileError for non-2-D windows.
WindowGeometry window_geometry(const Node& node, const std::vector<std::int64_t>& input_nchw,
                               std::int64_t kernel_h, std::int64_t kernel_w);

// Multidirectional (numpy) broadcast; throws CompileError when the shapes do not broadcast.
std::vector<std::int64_t> broadcast_shapes(const std::vector<std::int64_t>& a,
                                           const std::vector<std::int64_t>& b,
                                           const std::string& where);

}  // namespace npu::compiler
