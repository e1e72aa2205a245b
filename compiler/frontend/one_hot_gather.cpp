// Embeddings written as a one-hot product (Magika's byte embedding):
//   ids (integer, [..., 1]) -> Equal(ids, iota [V]) -> Cast(float) -> MatMul(., table [V, D])
// picks table row id for an id in [0, V) and a zero row for any other id (no element equal).
// Rewritten as
//   Clip(ids, -1, V) -> Gather(table with a zero row appended [V + 1, D], axis 0) -> Reshape
// which is the same function for every id: Clip sends an id below 0 to -1 and one above V - 1 to
// V, and Gather reads both (-1 counts from the end) as row V, the zero row. The gather runs as
// the NPU's DMA gather (codegen_row_gather.cpp), the Clip on its int32 ids; no one-hot tensor.
// Only where the product is exact: a finite table (0 * inf is NaN in every row of its column)
// and an iota of distinct ids 0 .. V-1 (a repeated id would add rows).
#include <cmath>

#include "compiler/frontend/passes.h"
#include "compiler/frontend/pattern_match.h"

namespace npu::compiler {
namespace {

using namespace patterns;

bool is_integer(int elem_type) { return elem_type == kInt32 || elem_type == kInt64; }

// A constant 0, 1, ..., V-1 of V > 0 elements along its last axis (leading axes 1).
std::int64_t iota_length(const Graph& g, const std::string& name) {
  if (!g.is_constant(name)) return 0;
  const Tensor& t = g.tensor(name);
  if (!is_integer(t.elem_type) || t.shape.empty() || t.ints.empty()) return 0;
  for (std::size_t d = 0; d + 1 < t.shape.size(); ++d)
    if (t.shape[d] != 1) return 0;
  for (std::size_t v = 0; v < t.ints.size(); ++v)
    if (t.ints[v] != static_cast<std::int64_t>(v)) return 0;
  return static_cast<std::int64_t>(t.ints.size());
}

struct OneHotProduct {
  int equal = -1, cast = -1, matmul = -1;
  std::string ids, table;
  std::int64_t vocab = 0;
};

// The one-hot product whose MatMul is node `m`, if it is one.
bool match(const Graph& g, const Uses& uses, int m, OneHotProduct& p) {
  const Node& mm = g.nodes[static_cast<std::size_t>(m)];
  if (mm.op_type != "MatMul" || !mm.domain.empty() || mm.inputs.size() != 2 || !g.is_constant(mm.inputs[1])) return false;
  const Tensor& table = g.tensor(mm.inputs[1]);
  if (table.shape.size() != 2 || table.elem_type != kFloat || table.floats.size() != static_cast<std::size_t>(table.elements()))
    return false;
  const int cast = producer_of(g, mm.inputs[0], "Cast");
  if (cast < 0 || uses.sole_reader(mm.inputs[0]) != m || g.nodes[cast].get_int("to", 0) != kFloat) return false;
  const int equal = producer_of(g, g.nodes[cast].inputs[0], "Equal");
  if (equal < 0 || uses.sole_reader(g.nodes[cast].inputs[0]) != cast) return false;
  const Node& eq = g.nodes[equal];
  if (eq.inputs.size() != 2) return false;
  for (int side = 0; side < 2; ++side) {
    const std::string &ids = eq.inputs[side], &iota = eq.inputs[1 - side];
    const std::int64_t vocab = iota_length(g, iota);
    const Tensor& x = g.tensor(ids);
    if (vocab == 0 || g.is_constant(ids) || !x.shape_known || !is_integer(x.elem_type) || x.shape.empty() ||
        x.shape.back() != 1 || static_cast<std::size_t>(x.shape.size()) < g.tensor(iota).shape.size() ||
        vocab != table.shape[0])
      continue;
    for (float v : table.floats)
      if (!std::isfinite(v)) return false;
    p = {equal, cast, m, ids, mm.inputs[1], vocab};
    return true;
  }
  return false;
}

}  // namespace

bool has_one_hot_products(const Graph& g) {
  Uses uses(g);
  OneHotProduct p;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    if (match(g, uses, static_cast<int>(i), p)) return true;
  return false;
}

std::string one_hot_products_to_gathers(Graph& g) {
  int rewritten = 0;
  Uses uses(g);
  const std::size_t original = g.nodes.size();
  for (std::size_t i = 0; i < original; ++i) {
    OneHotProduct p;
    if (!match(g, uses, static_cast<int>(i), p)) continue;
    const Node matmul = g.nodes[i];
    // The ids before the Reshape / Unsqueeze that gave them their trailing 1 (Magika's): the
    // gather then writes the MatMul's shape itself, and no integer reshape is left to run.
    const int reshape_in = producer_of(g, p.ids, "Reshape") >= 0 ? producer_of(g, p.ids, "Reshape") : producer_of(g, p.ids, "Unsqueeze");
    if (reshape_in >= 0) {
      const std::string& before = g.nodes[static_cast<std::size_t>(reshape_in)].inputs[0];
      Shape expected = g.tensor(p.ids).shape;
      expected.pop_back();
      if (!g.is_constant(before) && g.tensor(before).shape_known && g.tensor(before).shape == expected) p.ids = before;
    }
    const Tensor& ids = g.tensor(p.ids);
    const Tensor& table = g.tensor(p.table);
    const std::int64_t dim = table.shape[1];

    std::vector<float> padded = table.floats;
    padded.resize(static_cast<std::size_t>((p.vocab + 1) * dim), 0.0f);
    const std::string padded_name = g.unique_name(p.table + "_zero_row");
    g.add_constant(padded_name, {p.vocab + 1, dim}, std::move(padded));
    const std::string lo = g.unique_name(matmul.name + "_id_min"), hi = g.unique_name(matmul.name + "_id_max");
    g.add_int_constant(lo, {}, {-1}, ids.elem_type);
    g.add_int_constant(hi, {}, {p.vocab}, ids.elem_type);

    auto value = [&](const std::string& base, Shape shape, int elem_type) { return g.add_value(base, elem_type, std::move(shape)); };
    const std::string clipped = value(p.ids + "_in_table", ids.shape, ids.elem_type);
    Shape rows_shape = ids.shape;
    rows_shape.push_back(dim);
    const std::string rows = value(matmul.outputs[0] + "_rows", rows_shape, kFloat);
    const Shape& out_shape = g.tensor(matmul.outputs[0]).shape;

    std::vector<std::string> origin;
    for (int k : {p.equal, p.cast, p.matmul})
      origin.insert(origin.end(), g.nodes[static_cast<std::size_t>(k)].fused_nodes.begin(),
                    g.nodes[static_cast<std::size_t>(k)].fused_nodes.end());
    auto node = [&](const std::string& name, const std::string& op, std::vector<std::string> in, std::string out) {
      Node n;
      n.name = g.unique_name(name);
      n.op_type = op;
      n.inputs = std::move(in);
      n.outputs = {std::move(out)};
      n.fused_nodes = origin;
      return n;
    };
    Node clip = node(matmul.name + "_ids_in_table", "Clip", {p.ids, lo, hi}, clipped);
    Node gather = node(matmul.name, "Gather", {padded_name, clipped}, rows);
    gather.set_int("axis", 0);
    // The MatMul's place takes the gather; Equal and Cast become dead (their outputs unread).
    if (rows_shape == out_shape) {
      g.tensors.erase(rows);
      gather.outputs = matmul.outputs;
    } else {
      const std::string target = g.unique_name(matmul.name + "_shape");
      g.add_int_constant(target, {static_cast<std::int64_t>(out_shape.size())}, out_shape);
      g.nodes.push_back(node(matmul.name + "_reshape", "Reshape", {rows, target}, matmul.outputs[0]));
    }
    g.nodes[i] = std::move(gather);
    g.nodes.push_back(std::move(clip));
    ++rewritten;
  }
  if (rewritten) g.sort_topologically();
  return std::to_string(rewritten) + " one-hot MatMul(s) as Clip + Gather of the table with a zero row";
}

}  // namespace npu::compiler
