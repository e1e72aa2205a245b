// The graph-to-graph passes. Each returns a one-line detail for its PassSummary; the pipeline
// (pipeline.h) counts nodes before and after and dumps the graph when asked.
#pragma once
#include <string>

#include "compiler/graph.h"

namespace npu::compiler {

// Evaluates nodes whose inputs are all constant (and Shape of statically shaped values).
std::string fold_constants(Graph& graph);

// Drops Identity/Dropout, nodes whose outputs nothing reads, and unused constants.
std::string remove_dead_nodes(Graph& graph);

// Layers the conv instruction cannot express, rewritten into ones it can (npu_lowering.cpp):
// ConvTranspose as a 1x1 Conv + DepthToSpace or zero insertion + Conv, large-stride patchify
// Conv as SpaceToDepth + 1x1 Conv.
std::string lower_for_npu(Graph& graph);

// BatchNormalization after Conv/Gemm (sole consumer) is folded into its weights and bias.
std::string fold_batchnorm(Graph& graph);

// Conv/Gemm/MatMul (+ bias) (+ activation) (+ residual Add) (+ activation) -> one
// npusim:FusedConv / npusim:FusedGemm node; attributes say which epilogue it carries.
std::string fuse_layers(Graph& graph);

// NPU values become NHWC; Transpose nodes at the NPU boundary make the conversions explicit.
// Needs devices assigned (partition.h). Counts the transposes it inserts.
std::string convert_layout(Graph& graph, int& transposes);

}  // namespace npu::compiler
