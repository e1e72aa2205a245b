// The graph-to-graph passes. Each returns a one-line detail for its PassSummary; the pipeline
// (pipeline.h) counts nodes before and after and dumps the graph when asked.
#pragma once
#include <string>
#include <vector>

#include "compiler/graph.h"

namespace npu::compiler {

// Evaluates nodes whose inputs are all constant (and Shape/Size of statically shaped values);
// integer tensors exactly (constant_evaluator.h).
std::string fold_constants(Graph& graph);

// The static-shape front end: shape inference, constant folding, constant parameter inputs to
// attributes (node_parameters.h) and no-op removal (a Reshape to the same shape becomes an
// Identity) repeated to a fixed point.
std::string fold_static_shapes(Graph& graph);

// A tensor still without a static shape, and the node that made it so (`node` empty: a value
// with no shape from outside, e.g. a graph input).
struct DynamicShape {
  std::string tensor, node, op, reason;
};
// One entry per origin (the tensors downstream of it are not listed again), in graph order.
std::vector<DynamicShape> find_dynamic_shapes(const Graph& graph);
// "<source>: tensor 'x' has a dynamic shape after folding: node 'n' (NonZero) makes it dynamic: ..."
std::string describe(const DynamicShape& dynamic, const std::string& source);

// Drops Identity/Dropout, nodes whose outputs nothing reads, and unused constants.
std::string remove_dead_nodes(Graph& graph);

// Div/Sub by constants -> Mul/Add, constants second, chains of Mul (or Add) by constants merged,
// x*1 and x+0 -> Identity (passes/canonicalize.cpp).
std::string canonicalize_arithmetic(Graph& graph);

// Decomposed SiLU, HardSwish, GELU (erf and tanh forms) and Mish -> one node each
// (passes/activation_patterns.cpp).
std::string fuse_activation_patterns(Graph& graph);

// ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div[/Mul/Add] -> LayerNormalization (opset 17).
std::string fuse_layernorm_pattern(Graph& graph);

// Layers the conv instruction cannot express, rewritten into ones it can (npu_lowering.cpp):
// ConvTranspose as a 1x1 Conv + DepthToSpace or zero insertion + Conv, large-stride patchify
// Conv as SpaceToDepth + 1x1 Conv.
std::string lower_for_npu(Graph& graph);

// BatchNormalization -> per-channel Mul and Add; per-channel Mul/Add by constants fold into the
// Conv/ConvTranspose/Gemm/MatMul before them or the unpadded Conv after them.
std::string fold_batchnorm(Graph& graph);

// Conv/Gemm/MatMul (+ bias) (+ activation) (+ residual Add) (+ activation) -> one
// npusim:FusedConv / npusim:FusedGemm node; attributes say which epilogue it carries.
std::string fuse_layers(Graph& graph);

// A memory order per NPU value (passes/layout.cpp) and a host layout per value that crosses to
// the host. Needs devices assigned (partition.h). Counts the NCHW<->NHWC conversions the
// runtime will do at the NPU boundary.
std::string convert_layout(Graph& graph, int& transposes);

}  // namespace npu::compiler
