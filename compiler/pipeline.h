// The front half of compile(): import and the graph passes, each recorded as a PassSummary and
// optionally dumped as ONNX. Exposed so tests and tools can stop after any stage.
#pragma once
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "compiler/graph.h"

namespace npu::compiler {

class Int8ParamsCache;

class PassPipeline {
 public:
  PassPipeline(const CompileOptions& options, std::vector<PassSummary>& summaries)
      : options_(options), summaries_(summaries), index_(static_cast<int>(summaries.size())) {}
  // Runs `pass` on the graph, records nodes before/after and its detail, dumps the result.
  template <typename Pass>
  void run(const std::string& name, Graph& graph, Pass&& pass) {
    std::size_t before = graph.nodes.size();
    std::string detail = pass(graph);
    record(name, graph, before, detail);
  }
  void record(const std::string& name, const Graph& graph, std::size_t before, const std::string& detail);

 private:
  const CompileOptions options_;  // a copy: callers pass temporaries ({})
  std::vector<PassSummary>& summaries_;
  int index_;  // continues the numbering of dumps across pipelines
};

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

// compile() in two halves, for tools that need the graph codegen sees (the integer reference):
// lower_graph imports, optimises, partitions, quantises (int8) and converts the layout, filling
// model's passes, fallbacks, warnings and boundary names; generate_code emits the program and plan.
// `config` (optional): the hardware the mixed-precision search weighs promotions on.
Graph lower_graph(const std::string& onnx_path, const CompileOptions& options, CompiledModel& model,
                  const HardwareConfig* config = nullptr);
// `int8_params` (optional): where to find the INT8 layer parameters of `graph` already derived.
void generate_code(const Graph& graph, const HardwareConfig& config, const CompileOptions& options,
                   CompiledModel& model, const Int8ParamsCache* int8_params = nullptr);

// "fusion: 70 -> 31 nodes (fused 20 layers ...)"
std::string format_summary(const PassSummary& s);

}  // namespace npu::compiler
