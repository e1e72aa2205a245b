// The quantisation stage of lower_graph for int8 programs: calibration statistics by the chosen
// method, activation parameters (assign_quantization), the symmetric scheme, and which layers
// run in fp16 (--keep-fp16, --precision mixed's search). Fills model.quantization.
#pragma once
#include <string>

#include <functional>
#include <memory>
#include <vector>

#include "compiler/core/compile_options.h"
#include "compiler/core/graph.h"
#include "compiler/quant/mixed_precision.h"
#include "compiler/quant/quant_sensitivity.h"

namespace npu::compiler {

// What the quantisation stage asks of the NPU, answered by the back end (the pipeline fills it:
// pipeline.h npu_questions): which layers can run in fp16 and, for --precision mixed, what a
// set of promotions costs on the hardware (empty: the search ranks by sensitivity alone).
struct NpuQuestions {
  Fp16Rejection fp16_rejection;
  std::function<std::unique_ptr<PromotionCost>(const Graph& graph, const std::vector<std::string>& candidates)>
      promotion_cost;
};

// `graph` fused and partitioned; `unfused` the graph before fusion (calibration runs on it).
// Returns the pass summary's detail. Nodes chosen for fp16 get the attribute precision=fp16.
std::string quantize_graph(Graph& graph, const Graph& unfused, const CompileOptions& options, CompiledModel& model,
                           const NpuQuestions& npu);

// Whether codegen runs `node` in fp16 in an int8 program (attribute precision=fp16).
bool runs_in_fp16(const Node& node);

}  // namespace npu::compiler
