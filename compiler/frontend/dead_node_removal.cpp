#include <algorithm>
#include <map>
#include <set>

#include "compiler/core/subgraph_capture.h"
#include "compiler/frontend/passes.h"

namespace npu::compiler {

namespace {

// Optional outputs nobody reads are dropped, so e.g. an inference Dropout whose mask is unused
// is a plain passthrough.
const std::map<std::string, std::size_t> kFirstOptionalOutput = {
    {"Dropout", 1}, {"MaxPool", 1}, {"LayerNormalization", 1}, {"BatchNormalization", 1}};

void drop_unread_optional_outputs(Graph& g) {
  std::set<std::string> read(g.outputs.begin(), g.outputs.end());
  for (const auto& n : g.nodes)
    for (const auto& in : values_read(n)) read.insert(in);
  for (auto& n : g.nodes) {
    auto it = kFirstOptionalOutput.find(n.op_type);
    if (!n.domain.empty() || it == kFirstOptionalOutput.end()) continue;
    for (std::size_t o = it->second; o < n.outputs.size(); ++o)
      if (!read.count(n.outputs[o])) n.outputs[o].clear();
    while (n.outputs.size() > 1 && n.outputs.back().empty()) n.outputs.pop_back();
  }
}

}  // namespace

std::string remove_dead_nodes(Graph& g) {
  drop_unread_optional_outputs(g);
  int identities = 0;
  // A value a Loop/If body names directly cannot be renamed from here: keep its Identity.
  std::set<std::string> captured;
  for (const auto& n : g.nodes)
    for (auto& c : captured_values(n)) captured.insert(std::move(c));
  // Identity and Dropout (inference) pass their input through: rewire their consumers.
  for (std::size_t i = 0; i < g.nodes.size();) {
    Node& n = g.nodes[i];
    bool passthrough = (n.op_type == "Identity" || n.op_type == "Dropout") && n.domain.empty() &&
                       !n.inputs.empty() && !g.is_graph_output(n.outputs[0]) &&
                       !captured.count(n.outputs[0]);
    if (!passthrough || (n.outputs.size() > 1 && !n.outputs[1].empty())) {
      ++i;
      continue;
    }
    std::string from = n.outputs[0], to = n.inputs[0];
    for (auto& m : g.nodes)
      for (auto& in : m.inputs)
        if (in == from) in = to;
    g.nodes.erase(g.nodes.begin() + static_cast<long>(i));
    ++identities;
  }
  std::set<std::string> live(g.outputs.begin(), g.outputs.end());
  std::vector<bool> keep(g.nodes.size(), false);
  for (int i = static_cast<int>(g.nodes.size()) - 1; i >= 0; --i) {
    for (const auto& o : g.nodes[i].outputs)
      if (!o.empty() && live.count(o)) keep[i] = true;
    if (keep[i])
      for (const auto& in : values_read(g.nodes[i])) live.insert(in);  // subgraph captures too
  }
  int removed = 0;
  std::vector<Node> kept;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    if (keep[i]) kept.push_back(std::move(g.nodes[i]));
    else ++removed;
  }
  g.nodes = std::move(kept);
  std::set<std::string> referenced(g.inputs.begin(), g.inputs.end());
  referenced.insert(g.outputs.begin(), g.outputs.end());
  for (const auto& n : g.nodes) {
    for (const auto& in : values_read(n)) referenced.insert(in);
    referenced.insert(n.outputs.begin(), n.outputs.end());
  }
  int constants = 0;
  for (auto it = g.tensors.begin(); it != g.tensors.end();) {
    if (!referenced.count(it->first)) {
      if (it->second.is_constant) ++constants;
      it = g.tensors.erase(it);
    } else {
      ++it;
    }
  }
  return "removed " + std::to_string(identities) + " identity, " + std::to_string(removed) +
         " unused nodes, " + std::to_string(constants) + " unused constants";
}

}  // namespace npu::compiler
