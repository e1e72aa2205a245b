// Codegen driver: places NPU values in DDR, generates each NPU step's instructions (layer by
// layer, a barrier between layers, halt at the end of the step) and fills the program's tensor
// table, data segments and the per-layer records.
#pragma once
#include <vector>

#include "compiler/compile.h"
#include "compiler/graph.h"
#include "compiler/partition.h"

namespace npu::compiler {

class Int8ParamsCache;

// `steps` from group_steps(graph); graph quantised (int8) and in NHWC layout. Fills
// model.program, the npu part of model.steps (same order as `steps`) and model.layers.
// `int8_params` (optional) supplies INT8 layer parameters derived earlier for this graph.
void generate_program(const Graph& graph, const std::vector<StepNodes>& steps, const HardwareConfig& config,
                      Precision precision, CompiledModel& model, const Int8ParamsCache* int8_params = nullptr);

// MACs of a node (Conv, Gemm, MatMul, fused or not), 0 for others.
std::uint64_t node_macs(const Graph& graph, const Node& node);

}  // namespace npu::compiler
