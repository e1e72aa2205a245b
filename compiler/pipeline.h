// The stages of compile() in order: the front end and the graph passes (import_and_optimize),
// partitioning, quantisation and layout (lower_graph), then the back end (generate_code,
// backend/codegen.h). Each pass is recorded as a PassSummary and optionally dumped as ONNX.
// Exposed so tests and tools can stop after any stage. The only place that joins the stages:
// quantisation asks the back end its questions through npu_questions.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "compiler/backend/codegen.h"
#include "compiler/compile.h"
#include "compiler/core/graph.h"
#include "compiler/frontend/pass_pipeline.h"
#include "compiler/quant/quant_sensitivity.h"
#include "compiler/quant/quantization_stage.h"

namespace npu::compiler {


// The front end and the graph passes: import, static shapes (shape inference and constant
// folding to a fixed point), opset upgrade, dead-node removal, canonicalisation, activation and
// LayerNorm patterns, BatchNorm folding, fusion. `before_fusion` (optional) receives the graph
// as it was just before fusion: calibration runs on it so the values that fusion hides (a
// conv's pre-activation output) still get measured. `warnings` (optional) receives shapes that
// stay dynamic and a refused opset upgrade.
// Throws CompileError for a node nobody can run (unknown domain, string tensors) and, with
// options.strict, for a shape still dynamic after folding.
Graph import_and_optimize(const std::string& onnx_path, const CompileOptions& options,
                          std::vector<PassSummary>& summaries, Graph* before_fusion = nullptr,
                          std::vector<std::string>* warnings = nullptr);
// The same, calling `at_fusion` with the graph just before fusion instead of copying it (the
// pipeline calibrates there: a copy would hold a second set of the FP32 weights).
Graph import_and_optimize(const std::string& onnx_path, const CompileOptions& options,
                          std::vector<PassSummary>& summaries, const std::function<void(const Graph&)>& at_fusion,
                          std::vector<std::string>* warnings);

// compile() in two halves, for tools that need the graph codegen sees (the integer reference):
// lower_graph imports, optimises, partitions, quantises (int8) and converts the layout, filling
// model's passes, fallbacks, warnings and boundary names; generate_code emits the program and plan.
// `config` (optional): the hardware the mixed-precision search weighs promotions on.
Graph lower_graph(const std::string& onnx_path, const CompileOptions& options, CompiledModel& model,
                  const HardwareConfig* config = nullptr);

// The back end's answers to the quantisation stage: fp16 capability by the partitioner's rules
// and, with `config`, promotion costs from generated programs (backend/precision_cost.h).
NpuQuestions npu_questions(const HardwareConfig* config, const CompileOptions& options);

// `npusim quant-report`: the model imported, partitioned and quantised as `options` say (without
// the mixed-precision search), then each NPU layer's sensitivity on the calibration samples.
// `scheme` and `warnings` receive what the compile summary would say.
SensitivityReport quantization_sensitivity(const std::string& onnx_path, const CompileOptions& options,
                                           std::string& scheme, std::vector<std::string>& warnings);

// "fusion: 70 -> 31 nodes (fused 20 layers ...)"
std::string format_summary(const PassSummary& s);

}  // namespace npu::compiler
