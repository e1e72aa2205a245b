#include "compiler/pipeline.h"

#include <cstdio>
#include <filesystem>

#include "compiler/onnx_io.h"
#include "compiler/passes/passes.h"
#include "compiler/shape_inference.h"

namespace npu::compiler {

void PassPipeline::record(const std::string& name, const Graph& graph, std::size_t before,
                          const std::string& detail) {
  summaries_.push_back({name, before, graph.nodes.size(), detail});
  ++index_;
  if (options_.dump_dir.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(options_.dump_dir, ec);
  char prefix[8];
  std::snprintf(prefix, sizeof prefix, "%02d-", index_);
  write_onnx(graph, (std::filesystem::path(options_.dump_dir) / (prefix + name + ".onnx")).string());
}

Graph import_and_optimize(const std::string& onnx_path, const CompileOptions& options,
                          std::vector<PassSummary>& summaries, Graph* before_fusion) {
  PassPipeline pipeline(options, summaries);
  Graph g = import_onnx(onnx_path, options.input_shapes, options.max_tensor_bytes);
  pipeline.record("import", g, g.nodes.size(),
                  std::to_string(g.inputs.size()) + " inputs, " + std::to_string(g.outputs.size()) +
                      " outputs, opset " + std::to_string(g.opset));
  pipeline.run("constant-folding", g, [](Graph& x) {
    auto d = fold_constants(x);
    infer_shapes(x);
    return d;
  });
  pipeline.run("dead-node-removal", g, remove_dead_nodes);
  pipeline.run("batchnorm-folding", g, fold_batchnorm);
  if (before_fusion) *before_fusion = g;
  pipeline.run("fusion", g, [](Graph& x) {
    auto d = fuse_layers(x);
    remove_dead_nodes(x);
    infer_shapes(x);
    return d;
  });
  return g;
}

std::string format_summary(const PassSummary& s) {
  return s.pass + ": " + std::to_string(s.nodes_before) + " -> " + std::to_string(s.nodes_after) +
         " nodes" + (s.detail.empty() ? "" : " (" + s.detail + ")");
}

}  // namespace npu::compiler
