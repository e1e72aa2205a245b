// Pools of a channel concatenation as a concatenation of pools (passes.h).
//
// Inception's blocks concatenate their branch convs and hand the result to the next block's
// convs and to a pool. Convs read a concatenation in parts, each part where it lies (on chip,
// when the scheduler keeps it there), but a pool read the whole: it made the Concat a real
// value, stored to DDR and loaded by every reader. A pool works channel by channel, so pooling
// each part and concatenating the results gives the same values (the same bytes in int8: a
// pool keeps its input's scale); then every reader of the original Concat is a conv and no
// copy of it exists. A Concat that becomes a part of another Concat on the same axis is spliced
// into it.
#include <algorithm>

#include "compiler/passes/passes.h"

namespace npu::compiler {
namespace {

bool is_channel_pool(const Node& n) {
  return n.op_type == "AveragePool" || n.op_type == "MaxPool" || n.op_type == "GlobalAveragePool" ||
         n.op_type == "GlobalMaxPool";
}

// A channel Concat of two or more parts.
bool channel_concat(const Graph& g, const Node& n) { return n.inputs.size() >= 2 && is_channel_concat(g, n); }

// A conv reading `value` as its data input only: it can read a concatenation in parts.
bool reads_in_parts(const Node& n, const std::string& value) {
  if (n.op_type != "Conv" || n.get_int("group", 1) != 1 || n.inputs.empty() || n.inputs[0] != value) return false;
  return std::count(n.inputs.begin(), n.inputs.end(), value) == 1;
}

// Pool node `p` over Concat `c` rewritten as one pool per part and a Concat of their outputs,
// in p's place.
void pool_parts(Graph& g, std::size_t p, const Node& c) {
  const Node pool = g.nodes[p];
  const Tensor& out = g.tensor(pool.outputs[0]);
  std::vector<Node> made;
  std::vector<std::string> pooled;
  for (std::size_t k = 0; k < c.inputs.size(); ++k) {
    std::vector<std::int64_t> shape = out.shape;
    shape[1] = g.tensor(c.inputs[k]).shape[1];
    const std::string y = g.add_value(pool.outputs[0] + "_part" + std::to_string(k), out.elem_type, shape);
    Node part = g.derived_node(pool.op_type, pool, "_part" + std::to_string(k), {c.inputs[k]}, {y});
    part.domain = pool.domain;
    part.attributes = pool.attributes;
    made.push_back(std::move(part));
    pooled.push_back(y);
  }
  Node concat = g.derived_node("Concat", pool, "_concat", pooled, pool.outputs);
  concat.set_int("axis", 1);
  made.push_back(std::move(concat));
  g.nodes.erase(g.nodes.begin() + static_cast<std::ptrdiff_t>(p));
  g.nodes.insert(g.nodes.begin() + static_cast<std::ptrdiff_t>(p), made.begin(), made.end());
}

// One rewrite, or false when none applies.
bool rewrite_once(Graph& g, int* pools, int* splices) {
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (!channel_concat(g, n) || g.is_graph_output(n.outputs[0])) continue;
    // A Concat part that is itself a same-axis Concat read by nothing else: its parts directly.
    for (std::size_t k = 0; k < n.inputs.size(); ++k) {
      const int q = g.producer(n.inputs[k]);
      if (q < 0 || g.is_graph_output(n.inputs[k]) || g.consumers(n.inputs[k]).size() != 1) continue;
      const Node& inner = g.nodes[static_cast<std::size_t>(q)];
      if (!channel_concat(g, inner) || std::count(n.inputs.begin(), n.inputs.end(), n.inputs[k]) != 1) continue;
      const std::vector<std::string> parts = inner.inputs;
      Node& outer = g.nodes[i];
      outer.inputs.erase(outer.inputs.begin() + static_cast<std::ptrdiff_t>(k));
      outer.inputs.insert(outer.inputs.begin() + static_cast<std::ptrdiff_t>(k), parts.begin(), parts.end());
      ++*splices;
      return true;
    }
    const std::vector<int> readers = g.consumers(n.outputs[0]);
    std::vector<int> pool_readers;
    bool convs_otherwise = true;
    for (int r : readers) {
      const Node& reader = g.nodes[static_cast<std::size_t>(r)];
      if (is_channel_pool(reader) && reader.inputs.size() == 1 && reader.outputs.size() == 1 &&
          g.tensor(reader.outputs[0]).shape_known && g.tensor(reader.outputs[0]).shape.size() == 4)
        pool_readers.push_back(r);
      else if (!reads_in_parts(reader, n.outputs[0]))
        convs_otherwise = false;
    }
    if (pool_readers.empty() || !convs_otherwise) continue;
    const Node concat = n;
    pool_parts(g, static_cast<std::size_t>(pool_readers.front()), concat);
    ++*pools;
    return true;
  }
  return false;
}

}  // namespace

bool pools_a_concat(const Graph& graph) {
  for (const Node& n : graph.nodes)
    if (is_channel_pool(n) && !n.inputs.empty()) {
      const int p = graph.producer(n.inputs[0]);
      if (p >= 0 && graph.nodes[static_cast<std::size_t>(p)].op_type == "Concat") return true;
    }
  return false;
}

std::string pool_concat_parts(Graph& graph) {
  int pools = 0, splices = 0;
  while (rewrite_once(graph, &pools, &splices)) {
  }
  if (pools + splices > 0) graph.sort_topologically();
  return std::to_string(pools) + " pool(s) of a Concat split by its parts, " + std::to_string(splices) +
         " Concat(s) spliced into their reader";
}

}  // namespace npu::compiler
