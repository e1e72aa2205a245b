#include "compiler/frontend/pass_pipeline.h"

#include <cstdio>
#include <filesystem>

#include "compiler/frontend/onnx_io.h"

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

}  // namespace npu::compiler
