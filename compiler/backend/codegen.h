// Codegen driver: per NPU step, the step scheduler (step_schedule.h) decides which values stay
// in the scratchpad and gives each layer its region; the layers' generators emit their tiles;
// dependency tokens derived from the instructions' footprints replace barriers between layers
// (dependency_tokens.h); a halt ends the step. Fills the program's tensor table, data
// segments and the per-layer records.
#pragma once
#include <vector>

#include "compiler/backend/partition.h"
#include "compiler/core/compile_options.h"
#include "compiler/core/graph.h"

namespace npu::compiler {

class Int8ParamsCache;

// `steps` from group_steps(graph); graph quantised (int8) and in NHWC layout. Fills
// model.program, the npu part of model.steps (same order as `steps`) and model.layers.
// `int8_params` (optional) supplies INT8 layer parameters derived earlier for this graph.
void generate_program(const Graph& graph, const std::vector<StepNodes>& steps, const HardwareConfig& config,
                      const CompileOptions& options, CompiledModel& model, const Int8ParamsCache* int8_params = nullptr);

// The back end of compile(): `graph` as lower_graph left it (partitioned, quantised, in its
// layouts); fills model.steps (CPU steps exported as ONNX), the program, the layer records and
// the plan. `int8_params` (optional): the INT8 layer parameters of `graph` already derived.
void generate_code(const Graph& graph, const HardwareConfig& config, const CompileOptions& options,
                   CompiledModel& model, const Int8ParamsCache* int8_params = nullptr);

}  // namespace npu::compiler
