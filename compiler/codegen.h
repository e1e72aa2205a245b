// Codegen driver: per NPU step, the step scheduler (step_schedule.h) decides which values stay
// in the scratchpad and gives each layer its region; the layers' generators emit their tiles;
// dependency tokens derived from the instructions' footprints replace barriers between layers
// (dependency_tokens.h); a halt ends the step. Fills the program's tensor table, data
// segments and the per-layer records.
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
                      const CompileOptions& options, CompiledModel& model, const Int8ParamsCache* int8_params = nullptr);

// MACs of a node (Conv, Gemm, MatMul, fused or not), 0 for others.
std::uint64_t node_macs(const Graph& graph, const Node& node);

}  // namespace npu::compiler
