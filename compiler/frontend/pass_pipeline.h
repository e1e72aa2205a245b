// Runs the graph passes of every stage one after another, recording each as a PassSummary
// (node counts before and after, a one-line detail: --explain) and, when asked
// (CompileOptions::dump_dir), writing the graph after it as NN-<pass>.onnx for Netron.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "compiler/core/compile_options.h"
#include "compiler/core/graph.h"

namespace npu::compiler {

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

}  // namespace npu::compiler
