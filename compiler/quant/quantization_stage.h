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
#include "compiler/quant/calibration_statistics.h"
#include "compiler/quant/mixed_precision.h"
#include "compiler/quant/quant_sensitivity.h"
#include "compiler/quant/quantize.h"

namespace npu::compiler {

// What the quantisation stage asks of the NPU, answered by the back end (the pipeline fills it:
// pipeline.h npu_questions): which layers can run in fp16 and, for --precision mixed, what a
// set of promotions costs on the hardware (empty: the search ranks by sensitivity alone).
struct NpuQuestions {
  Fp16Rejection fp16_rejection;
  std::function<std::unique_ptr<PromotionCost>(const Graph& graph, const std::vector<std::string>& candidates)>
      promotion_cost;
};

// What calibration measured on the graph before fusion. The pipeline calibrates there and keeps
// only this, not a copy of that graph: the copy duplicated every FP32 weight (346 MB of
// ViT-B/16's 1.07 GB compile peak).
struct Calibration {
  std::vector<TensorMap> samples;  // the calibration inputs (the fp16 search evaluates them again)
  ValueRanges ranges;              // by the chosen method, the model's own QDQ ranges over them
  UnmeasuredValues unmeasured;
  std::size_t qdq_values = 0;      // how many ranges the model's QDQ nodes fixed
};

// Calibrates `unfused` (the graph before fusion, so the values fusion hides, a conv's
// pre-activation output, still get measured). Generated-input warnings go to `warnings`.
Calibration calibrate(const Graph& unfused, const CompileOptions& options, std::vector<std::string>& warnings);

// `graph` fused and partitioned; `calibration` measured on it before fusion.
// Returns the pass summary's detail. Nodes chosen for fp16 get the attribute precision=fp16.
std::string quantize_graph(Graph& graph, const Calibration& calibration, const CompileOptions& options,
                           CompiledModel& model, const NpuQuestions& npu);
// The same, calibrating `unfused` first.
std::string quantize_graph(Graph& graph, const Graph& unfused, const CompileOptions& options, CompiledModel& model,
                           const NpuQuestions& npu);

// Whether codegen runs `node` in fp16 in an int8 program (attribute precision=fp16).
bool runs_in_fp16(const Node& node);

}  // namespace npu::compiler
