// Grouped-query attention as Llama-style exporters write it repeats each K/V head for the query
// heads that share it before the attention products (Hugging Face's repeat_kv):
//   R = Reshape(Expand(Unsqueeze(KV [b, g, s, d], axis 2), [b, g, r, s, d]), [b, g*r, s, d])
//   scores = MatMul(Q [b, g*r, t, d], Transpose(R, [0, 1, 3, 2]));  ctx = MatMul(P [b, g*r, t, s], R)
// Materialised, R is r copies of the cache: a decode step writes them and reads them back (on a
// d = 512, 8-layer, 8-query/2-KV-head decoder 3.1 MB of its 26 MB of DDR traffic). The r query
// heads of a group are adjacent rows of Q (head = group * r + j), so each product becomes one
// per group, its r*t rows against the group's own K/V:
//   scores = Reshape(MatMul(Reshape(Q, [b, g, r*t, d]), Transpose(KV, [0, 1, 3, 2])), [b, g*r, t, s])
// the same dot products in the same order, the repeat gone.
#include <optional>

#include "compiler/core/node_parameters.h"
#include "compiler/frontend/passes.h"
#include "compiler/frontend/pattern_match.h"

namespace npu::compiler {
namespace {

using namespace patterns;

// The repeat's source: KV [b, g, p, q] when `repeated` is Reshape(Expand(Unsqueeze(KV, 2))) to
// [b, g*r, p, q] with r > 1, its reader count ignored (dead-node removal drops what is unread).
struct Repeat {
  std::string kv;
  std::int64_t groups = 0, copies = 0;
};

bool shaped(const Graph& g, const std::string& value, std::size_t rank) {
  return g.has_tensor(value) && g.tensor(value).shape_known && g.tensor(value).shape.size() == rank;
}

std::optional<Repeat> repeat_of(const Graph& g, const std::string& repeated) {
  const int reshape = producer_of(g, repeated, "Reshape");
  if (reshape < 0 || !shaped(g, repeated, 4)) return std::nullopt;
  const std::string expanded = g.nodes[static_cast<std::size_t>(reshape)].inputs[0];
  const int expand = producer_of(g, expanded, "Expand");
  if (expand < 0 || !shaped(g, expanded, 5)) return std::nullopt;
  const std::string unsqueezed = g.nodes[static_cast<std::size_t>(expand)].inputs[0];
  if (!shaped(g, unsqueezed, 5)) return std::nullopt;
  int inserted = producer_of(g, unsqueezed, "Unsqueeze");
  if (inserted < 0) inserted = producer_of(g, unsqueezed, "Reshape");
  if (inserted < 0) return std::nullopt;
  const std::string kv = g.nodes[static_cast<std::size_t>(inserted)].inputs[0];
  if (!shaped(g, kv, 4)) return std::nullopt;
  const Shape& k = g.tensor(kv).shape;
  const Shape& u = g.tensor(unsqueezed).shape;
  const Shape& e = g.tensor(expanded).shape;
  const Shape& r = g.tensor(repeated).shape;
  if (u != Shape{k[0], k[1], 1, k[2], k[3]}) return std::nullopt;
  if (e != Shape{k[0], k[1], e[2], k[2], k[3]} || e[2] < 2) return std::nullopt;
  if (r != Shape{k[0], k[1] * e[2], k[2], k[3]}) return std::nullopt;
  return Repeat{kv, k[1], e[2]};
}

bool swaps_last_two(const Node& transpose) {
  return transpose.get_ints("perm") == std::vector<std::int64_t>{0, 1, 3, 2};
}

}  // namespace

bool has_repeated_kv_heads(const Graph& g) { return has_onnx_op(g, "Expand"); }

std::string share_grouped_kv_heads(Graph& g) {
  int rewritten = 0;
  const std::size_t count = g.nodes.size();
  for (std::size_t i = 0; i < count; ++i) {
    const Node matmul = g.nodes[i];
    if (matmul.op_type != "MatMul" || !matmul.domain.empty() || matmul.inputs.size() != 2) continue;
    const std::string& a = matmul.inputs[0];
    const std::string& out = matmul.outputs[0];
    if (!shaped(g, a, 4) || !shaped(g, out, 4)) continue;
    // ctx = P x repeat(V), or scores = Q x Transpose(repeat(K)).
    std::string repeated = matmul.inputs[1];
    const int transpose = producer_of(g, repeated, "Transpose");
    const bool transposed = transpose >= 0 && swaps_last_two(g.nodes[static_cast<std::size_t>(transpose)]);
    if (transposed) repeated = g.nodes[static_cast<std::size_t>(transpose)].inputs[0];
    const auto repeat = repeat_of(g, repeated);
    if (!repeat) continue;
    const Shape as = g.tensor(a).shape, os = g.tensor(out).shape;
    const std::int64_t b = as[0], heads = as[1], rows = as[2], inner = as[3], cols = os[3];
    if (heads != repeat->groups * repeat->copies || os != Shape{b, heads, rows, cols}) continue;
    if (g.tensor(repeat->kv).shape[0] != b) continue;
    const int type = g.tensor(out).elem_type;
    const std::int64_t grouped_rows = repeat->copies * rows;
    std::vector<Node> made;
    auto reshape = [&](const std::string& from, const std::string& to, const Shape& shape, const char* suffix) {
      Node n = g.derived_node("Reshape", matmul, suffix, {from}, {to});
      n.set_ints("shape", shape);
      made.push_back(std::move(n));
    };
    const std::string grouped_a = g.add_value(a + "_by_kv_group", type, Shape{b, repeat->groups, grouped_rows, inner});
    reshape(a, grouped_a, g.tensor(grouped_a).shape, "_rows_by_kv_group");
    std::string kv = repeat->kv;
    if (transposed) {
      const Shape& k = g.tensor(kv).shape;
      const std::string kv_t = g.add_value(kv + "_transposed", type, Shape{k[0], k[1], k[3], k[2]});
      Node t = g.derived_node("Transpose", matmul, "_kv_transposed", {kv}, {kv_t});
      t.set_ints("perm", {0, 1, 3, 2});
      made.push_back(std::move(t));
      kv = kv_t;
    }
    const std::string product = g.add_value(out + "_by_kv_group", type, Shape{b, repeat->groups, grouped_rows, cols});
    Node mm = matmul;  // its name and origin, for reports and --keep-fp16
    mm.inputs = {grouped_a, kv};
    mm.outputs = {product};
    made.push_back(std::move(mm));
    reshape(product, out, os, "_heads");
    g.nodes[i] = std::move(made.back());
    made.pop_back();
    for (auto& n : made) g.nodes.push_back(std::move(n));
    ++rewritten;
  }
  if (rewritten) g.sort_topologically();
  return std::to_string(rewritten) + " attention product(s) per K/V group instead of on repeated K/V heads";
}

}  // namespace npu::compiler
