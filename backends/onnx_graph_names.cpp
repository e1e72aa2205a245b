#include "backends/onnx_graph_names.h"

#include <fstream>
#include <stdexcept>

#include <onnx/onnx_pb.h>

namespace npu::backends {

OnnxGraphNames read_onnx_graph_names(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open file");
  onnx::ModelProto model;
  // Weights kept in external files are not read: only the graph's names are needed.
  if (!model.ParseFromIstream(&in) || !model.has_graph()) throw std::runtime_error(path + ": not a valid ONNX model");
  OnnxGraphNames names;
  for (const auto& node : model.graph().node()) {
    if (!node.name().empty()) names.nodes.insert(node.name());
    for (const auto& output : node.output())
      if (!output.empty()) names.producer.emplace(output, node.name());
  }
  return names;
}

std::string onnx_node_of(const std::string& runtime_name, const OnnxGraphNames& onnx, bool whole_name_only) {
  std::string name = runtime_name;
  while (!name.empty()) {
    if (onnx.nodes.count(name)) return name;
    if (const auto it = onnx.producer.find(name); it != onnx.producer.end() && !it->second.empty()) return it->second;
    if (whole_name_only) break;
    if (const std::string nchwc = "_nchwc"; name.size() > nchwc.size() &&
                                            name.compare(name.size() - nchwc.size(), nchwc.size(), nchwc) == 0) {
      name.resize(name.size() - nchwc.size());
      continue;
    }
    const auto slash = name.rfind('/');
    if (slash == std::string::npos || slash == 0) break;
    name.resize(slash);
  }
  return "";
}

}  // namespace npu::backends
