#include "compiler/pipeline.h"

#include <cstdio>
#include <filesystem>

#include "compiler/onnx_io.h"
#include "compiler/opset_upgrade.h"
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

namespace {

// Domains whose ops something can run: ONNX's (NPU or the CPU fallback), ONNX Runtime's own
// (CPU fallback), and the compiler's internal ops.
bool runnable_domain(const std::string& d) {
  return d.empty() || d == "ai.onnx" || d == "npusim" || d == "ai.onnx.ml" || d == "com.microsoft" ||
         d == "ai.onnx.preview.training";
}

// An op nobody can run is one line naming the node, before anything is planned around it.
void check_runnable(const Graph& g) {
  for (const auto& n : g.nodes) {
    if (!runnable_domain(n.domain))
      throw CompileError(g.source + ": node '" + n.name + "' (" + n.op_type + ") is of domain '" + n.domain +
                         "', which neither the NPU nor the CPU fallback (ONNX Runtime) runs");
    for (const auto* names : {&n.inputs, &n.outputs})
      for (const auto& v : *names)
        if (!v.empty() && g.tensor(v).elem_type == 8)
          throw CompileError(g.source + ": node '" + n.name + "' (" + n.op_type + ") uses string tensor '" + v +
                             "'; npusim holds numeric tensors only");
  }
}

// A shape still dynamic after folding: a warning naming the tensor and the node that made it
// so (its consumers fall back to the CPU), or with --strict an error.
void report_dynamic_shapes(const Graph& g, const CompileOptions& options, std::vector<std::string>* warnings) {
  for (const auto& d : find_dynamic_shapes(g)) {
    if (options.strict) throw CompileError("--strict: " + describe(d, g.source));
    if (warnings) warnings->push_back(describe(d, g.source) + "; the nodes that read it run on the CPU");
  }
}

}  // namespace

Graph import_and_optimize(const std::string& onnx_path, const CompileOptions& options,
                          std::vector<PassSummary>& summaries, Graph* before_fusion,
                          std::vector<std::string>* warnings) {
  PassPipeline pipeline(options, summaries);
  Graph g = import_onnx(onnx_path, options.input_shapes, options.max_tensor_bytes);
  pipeline.record("import", g, g.nodes.size(),
                  std::to_string(g.inputs.size()) + " inputs, " + std::to_string(g.outputs.size()) +
                      " outputs, opset " + std::to_string(g.opset));
  pipeline.run("static-shapes", g, fold_static_shapes);
  if (g.opset < kCanonicalOpset) {
    pipeline.run("opset-upgrade", g, [&](Graph& x) {
      const auto from = x.opset;
      std::string why = upgrade_opset(x);
      if (!why.empty()) {
        if (warnings)
          warnings->push_back(x.source + ": kept opset " + std::to_string(from) + ": ONNX's version converter refused (" +
                              why + ")");
        return "kept opset " + std::to_string(from) + ": " + why;
      }
      return "opset " + std::to_string(from) + " -> " + std::to_string(x.opset) + "; " + fold_static_shapes(x);
    });
  }
  check_runnable(g);
  report_dynamic_shapes(g, options, warnings);
  pipeline.run("dead-node-removal", g, remove_dead_nodes);
  // Each rewrite leaves Identity nodes and unused constants behind for dead-node removal.
  auto then_clean = [](std::string (*pass)(Graph&)) {
    return [pass](Graph& x) {
      auto d = pass(x);
      remove_dead_nodes(x);
      return d;
    };
  };
  pipeline.run("canonicalize", g, then_clean(canonicalize_arithmetic));
  pipeline.run("activation-patterns", g, then_clean(fuse_activation_patterns));
  pipeline.run("layernorm-pattern", g, then_clean(fuse_layernorm_pattern));
  pipeline.run("batchnorm-folding", g, then_clean(fold_batchnorm));
  pipeline.run("npu-lowering", g, lower_for_npu);
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
