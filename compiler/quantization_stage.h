// The quantisation stage of lower_graph for int8 programs: calibration statistics by the chosen
// method, activation parameters (assign_quantization), the symmetric scheme, and which layers
// run in fp16 (--keep-fp16, --precision mixed's search). Fills model.quantization.
#pragma once
#include <string>

#include "compiler/compile.h"
#include "compiler/graph.h"

namespace npu::compiler {

// `graph` fused and partitioned; `unfused` the graph before fusion (calibration runs on it).
// Returns the pass summary's detail. Nodes chosen for fp16 get the attribute precision=fp16.
std::string quantize_graph(Graph& graph, const Graph& unfused, const CompileOptions& options, CompiledModel& model);

// Whether codegen runs `node` in fp16 in an int8 program (attribute precision=fp16).
bool runs_in_fp16(const Node& node);

}  // namespace npu::compiler
