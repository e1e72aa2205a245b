#include "compiler/core/subgraph_capture.h"

#include <onnx/onnx_pb.h>

#include <set>

namespace npu::compiler {
namespace {

void collect(const onnx::GraphProto& body, std::set<std::string> defined, std::set<std::string>& seen,
             std::vector<std::string>& out);

void collect_attribute(const onnx::AttributeProto& a, const std::set<std::string>& defined,
                       std::set<std::string>& seen, std::vector<std::string>& out) {
  if (a.has_g()) collect(a.g(), defined, seen, out);
  for (const auto& g : a.graphs()) collect(g, defined, seen, out);
}

// `defined`: names visible inside `body` without capture from the top-level graph.
void collect(const onnx::GraphProto& body, std::set<std::string> defined, std::set<std::string>& seen,
             std::vector<std::string>& out) {
  for (const auto& v : body.input()) defined.insert(v.name());
  for (const auto& t : body.initializer()) defined.insert(t.name());
  for (const auto& t : body.sparse_initializer()) defined.insert(t.values().name());
  for (const auto& n : body.node()) {
    for (const auto& in : n.input())
      if (!in.empty() && !defined.count(in) && seen.insert(in).second) out.push_back(in);
    for (const auto& a : n.attribute()) collect_attribute(a, defined, seen, out);
    for (const auto& o : n.output()) defined.insert(o);
  }
}

}  // namespace

std::vector<std::string> captured_values(const Node& node) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& [name, a] : node.attributes) {
    if (a.kind != Attribute::Kind::Opaque || a.onnx_bytes.empty()) continue;
    onnx::AttributeProto p;
    if (!p.ParseFromString(a.onnx_bytes)) continue;
    if (p.type() != onnx::AttributeProto::GRAPH && p.type() != onnx::AttributeProto::GRAPHS) continue;
    collect_attribute(p, {}, seen, out);
  }
  return out;
}

std::vector<std::string> values_read(const Node& node) {
  std::vector<std::string> out;
  for (const auto& in : node.inputs)
    if (!in.empty()) out.push_back(in);
  for (auto& c : captured_values(node)) out.push_back(std::move(c));
  return out;
}

}  // namespace npu::compiler
