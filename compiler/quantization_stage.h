// The quantisation stage of lower_graph for int8 programs: calibration statistics by the chosen
// method, activation parameters (assign_quantization), the symmetric scheme, and which layers
// run in fp16 (--keep-fp16, --precision mixed's search). Fills model.quantization.
#pragma once
#include <string>

#include "compiler/compile.h"
#include "compiler/graph.h"
#include "compiler/quant_sensitivity.h"

namespace npu::compiler {

// `graph` fused and partitioned; `unfused` the graph before fusion (calibration runs on it).
// Returns the pass summary's detail. Nodes chosen for fp16 get the attribute precision=fp16.
// With `config`, --precision mixed weighs each promotion's cost on it (precision_cost.h).
std::string quantize_graph(Graph& graph, const Graph& unfused, const CompileOptions& options, CompiledModel& model,
                           const HardwareConfig* config = nullptr);

// `npusim quant-report`: the model imported, partitioned and quantised as `options` say (without
// the mixed-precision search), then each NPU layer's sensitivity on the calibration samples.
// `scheme` and `warnings` receive what the compile summary would say.
SensitivityReport quantization_sensitivity(const std::string& onnx_path, const CompileOptions& options,
                                           std::string& scheme, std::vector<std::string>& warnings);

// Whether codegen runs `node` in fp16 in an int8 program (attribute precision=fp16).
bool runs_in_fp16(const Node& node);

}  // namespace npu::compiler
