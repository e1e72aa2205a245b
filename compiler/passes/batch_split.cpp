// A batch of N > 1 images through 2-D convolutions and pools, as N batch-1 chains.
//
// The conv, pool and resize instructions address one NHWC image (the batch axis is not among
// their fields), so a Conv over [N, C, H, W] cannot run as it stands. Stacking the images as
// rows of one image (what Conv1d does, npu_lowering.cpp) is exact only for a kernel one row
// high: a 3x3 window or a padded border would mix neighbouring images. Instead every node the
// batch passes through independently (the convs and pools, and what sits between them:
// element-wise ops, activations, concatenations and pads off the batch axis) becomes N copies,
// one per image, reading the same constant weights by name, so the weights are stored once.
// The batch is cut by one Split where it enters such a region and joined by one Concat (axis 0)
// where a node outside it (a Gemm, whose M is the batch anyway) or a graph output reads it.
// The copies are emitted layer by layer (conv1 of every image, then conv2 of every image), so
// consecutive layers share their weights.
//
// Value pieces are named `<value>@image<i>`; quantisation gives the pieces of one value one
// range (batch_image_base), so the N chains compute with the same parameters, a Split or
// Concat of them is a copy, and an image's result does not depend on where it sits in the
// batch. A QDQ model's own range for the value is copied to its pieces.
#include <algorithm>
#include <map>
#include <set>

#include "compiler/core/node_parameters.h"
#include "compiler/core/npu_ops.h"
#include "compiler/frontend/shape_inference.h"
#include "compiler/passes/passes.h"

namespace npu::compiler {
namespace {

const char* const kImageTag = "@image";

// Ops whose NPU code takes images of batch 1: the reason a batch region starts.
bool batch_one_op(const std::string& op) {
  return op == "Conv" || op == "ConvTranspose" || op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool" ||
         op == "Resize" || op == "Upsample";
}

bool normalised_axis_is_batch(std::int64_t axis, std::size_t rank) {
  return axis == 0 || axis + static_cast<std::int64_t>(rank) == 0;
}

class BatchSplit {
 public:
  explicit BatchSplit(Graph& g) : g_(g) {
    for (const auto& n : g_.nodes) used_.insert(n.name);
    for (const auto& [name, t] : g_.tensors) used_.insert(name);
  }

  std::string run() {
    std::vector<Node> out;
    for (auto& n : g_.nodes) {
      const std::int64_t N = region_batch(n);
      if (N > 1) {
        split_node(n, N, out);
        continue;
      }
      for (const auto& in : n.inputs) join(in, out);
      out.push_back(std::move(n));
    }
    for (const auto& o : g_.outputs) join(o, out);
    g_.nodes = std::move(out);
    if (split_nodes_ == 0) return "no batched images";
    for (const auto& [whole, pieces] : pieces_)
      if (!g_.is_graph_output(whole) && joined_.count(whole) == 0 && g_.producer(whole) < 0 &&
          std::find(g_.inputs.begin(), g_.inputs.end(), whole) == g_.inputs.end())
        g_.tensors.erase(whole);  // produced only as pieces now
    infer_shapes(g_);
    return std::to_string(split_nodes_) + " nodes over a batch as " + std::to_string(copies_) + " per-image copies, " +
           std::to_string(splits_) + " Split(s) in, " + std::to_string(joins_) + " Concat(s) out";
  }

 private:
  std::string fresh(const std::string& base) {
    std::string name = base;
    for (int i = 1; used_.count(name); ++i) name = base + "_" + std::to_string(i);
    used_.insert(name);
    return name;
  }

  const Tensor* activation(const std::string& v) const {
    if (v.empty() || g_.is_constant(v)) return nullptr;
    return &g_.tensor(v);
  }

  // A batch-N value read by a per-image copy: its own image's piece. A value of batch 1 or of a
  // lower rank than the node's output broadcasts over the batch and is read whole.
  bool batched(const Tensor& t, std::size_t out_rank, std::int64_t N) const {
    return t.shape.size() == out_rank && !t.shape.empty() && t.shape[0] == N;
  }

  // The batch N > 1 when node n runs image by image, else 0.
  std::int64_t region_batch(const Node& n) const {
    if (!n.domain.empty() || n.outputs.empty()) return 0;
    const std::string& op = n.op_type;
    for (const auto& o : n.outputs)
      if (o.empty() || !g_.tensor(o).shape_known || g_.tensor(o).shape.empty()) return 0;
    const Tensor& y = g_.tensor(n.outputs[0]);
    const std::int64_t N = y.shape[0];
    if (N <= 1) return 0;
    for (const auto& o : n.outputs)
      if (g_.tensor(o).shape[0] != N) return 0;
    bool seed = false, fed = false;
    if (batch_one_op(op)) {
      const Tensor* x = activation(n.inputs.empty() ? std::string() : n.inputs[0]);
      if (!x || !x->shape_known || x->shape.size() != 4 || x->shape[0] != N || y.shape.size() != 4) return 0;
      seed = true;
    } else if (!per_image(n, y.shape.size())) {
      return 0;
    }
    for (std::size_t i = 0; i < n.inputs.size(); ++i) {
      const std::string& v = n.inputs[i];
      if (v.empty() || (seed && i > 0)) continue;  // a conv's weights, a resize's scales: shared
      const Tensor& t = g_.tensor(v);
      if (!t.shape_known) return 0;
      if (t.is_constant) {
        // Per-channel parameters are shared; a constant that differs per image is not.
        if (batched(t, y.shape.size(), N)) return 0;
        continue;
      }
      if (pieces_.count(v)) {
        if (static_cast<std::int64_t>(pieces_.at(v).size()) != N) return 0;
        fed = true;
      } else if (t.shape.size() == y.shape.size() && t.shape[0] != N && t.shape[0] != 1) {
        return 0;
      }
    }
    return seed || fed ? N : 0;
  }

  // Ops that compute each image from that image alone (given a batch-1 or lower-rank value for
  // every other operand), with attributes that hold per image as they are.
  bool per_image(const Node& n, std::size_t rank) const {
    const std::string& op = n.op_type;
    if (unary_ops().count(op)) return !is_requantisation(op);
    if (binary_ops().count(op) || op == "BatchNormalization" || op == "GlobalMaxPool" || op == "DepthToSpace" ||
        op == "SpaceToDepth" || op == "Identity")
      return true;
    if (op == "Concat" || op == "Softmax" || op == "LogSoftmax" || op == "Split")
      return !normalised_axis_is_batch(n.get_int("axis", op == "Concat" || op == "Split" ? 0 : -1), rank);
    if (op == "Flatten") return n.get_int("axis", 1) != 0 && !normalised_axis_is_batch(n.get_int("axis", 1), rank);
    if (op == "Transpose") {
      const auto perm = n.get_ints("perm");
      return !perm.empty() && perm[0] == 0;
    }
    if (op == "Reshape") {
      const Tensor& x = g_.tensor(n.inputs[0]);
      return x.shape_known && !x.shape.empty() && x.shape[0] == g_.tensor(n.outputs[0]).shape[0];
    }
    if (op == "Pad") {
      std::vector<std::int64_t> pads;
      if (n.get_string("mode", "constant") != "constant" || !parameter_ints(g_, n, "pads", pads) || pads.size() != 2 * rank)
        return false;
      return pads[0] == 0 && pads[rank] == 0;
    }
    return false;
  }

  // Image i's piece of `v` (made on first use: one Split of the whole value).
  const std::string& piece(const std::string& v, std::int64_t N, std::size_t i, std::vector<Node>& out) {
    auto it = pieces_.find(v);
    if (it == pieces_.end()) {
      Node split;
      split.name = fresh(v + "@split");
      split.op_type = "Split";
      split.inputs = {v};
      split.set_int("axis", 0);
      split.set_ints("split", std::vector<std::int64_t>(static_cast<std::size_t>(N), 1));
      std::vector<std::string> names;
      for (std::int64_t k = 0; k < N; ++k) names.push_back(piece_value(v, k));
      split.outputs = names;
      split.fused_nodes = {};
      if (g_.producer(v) >= 0) split.fused_nodes = {g_.nodes[static_cast<std::size_t>(g_.producer(v))].name};
      out.push_back(std::move(split));
      it = pieces_.emplace(v, std::move(names)).first;
      joined_.insert(v);  // the whole value exists: nothing to join
      ++splits_;
    }
    return it->second[i];
  }

  std::string piece_value(const std::string& whole, std::int64_t i) {
    const std::string name = fresh(whole + kImageTag + std::to_string(i));
    Tensor t = g_.tensor(whole);
    t.name = name;
    t.shape[0] = 1;
    if (!t.dim_names.empty()) t.dim_names[0].clear();
    g_.tensors[name] = t;
    const auto r = g_.qdq_ranges.find(whole);
    if (r != g_.qdq_ranges.end()) g_.qdq_ranges[name] = r->second;
    return name;
  }

  // The whole value `v` for a reader outside the region (a Concat of its pieces, once).
  void join(const std::string& v, std::vector<Node>& out) {
    if (v.empty() || joined_.count(v) || !pieces_.count(v)) return;
    Node concat;
    concat.name = fresh(v + "@join");
    concat.op_type = "Concat";
    concat.inputs = pieces_.at(v);
    concat.outputs = {v};
    concat.set_int("axis", 0);
    concat.fused_nodes = {producer_name_.at(v)};
    out.push_back(std::move(concat));
    joined_.insert(v);
    ++joins_;
  }

  void split_node(Node& n, std::int64_t N, std::vector<Node>& out) {
    const std::size_t rank = g_.tensor(n.outputs[0]).shape.size();
    std::vector<std::vector<std::string>> outs(static_cast<std::size_t>(N));
    for (const auto& o : n.outputs) {
      std::vector<std::string> names;
      for (std::int64_t i = 0; i < N; ++i) names.push_back(piece_value(o, i));
      pieces_[o] = names;
      producer_name_[o] = n.name;
      for (std::int64_t i = 0; i < N; ++i) outs[static_cast<std::size_t>(i)].push_back(names[static_cast<std::size_t>(i)]);
    }
    for (std::int64_t i = 0; i < N; ++i) {
      Node c = n;
      c.name = fresh(n.name + kImageTag + std::to_string(i));
      if (c.fused_nodes.empty()) c.fused_nodes = {n.name};
      for (std::size_t k = 0; k < c.inputs.size(); ++k) {
        std::string& in = c.inputs[k];
        if (in.empty() || (batch_one_op(n.op_type) && k > 0)) continue;
        const Tensor& t = g_.tensor(in);
        if (!t.is_constant && (pieces_.count(in) || batched(t, rank, N))) in = piece(in, N, static_cast<std::size_t>(i), out);
      }
      c.outputs = outs[static_cast<std::size_t>(i)];
      if (c.op_type == "Reshape") {
        std::vector<std::int64_t> shape = g_.tensor(n.outputs[0]).shape;
        shape[0] = 1;
        c.inputs.resize(1);
        c.set_ints("shape", shape);
      }
      if (c.op_type == "Split" && !c.has("split") && c.inputs.size() > 1) {
        std::vector<std::int64_t> sizes;
        if (parameter_ints(g_, n, "split", sizes)) {
          c.inputs.resize(1);
          c.set_ints("split", sizes);
        }
      }
      out.push_back(std::move(c));
      ++copies_;
    }
    ++split_nodes_;
  }

  Graph& g_;
  std::set<std::string> used_;
  std::map<std::string, std::vector<std::string>> pieces_;  // a batch-N value -> its images' pieces
  std::map<std::string, std::string> producer_name_;
  std::set<std::string> joined_;
  int split_nodes_ = 0, copies_ = 0, splits_ = 0, joins_ = 0;
};

}  // namespace

bool has_batched_images(const Graph& g) {
  for (const auto& n : g.nodes) {
    if (!n.domain.empty() || !batch_one_op(n.op_type) || n.inputs.empty() || n.inputs[0].empty()) continue;
    const Tensor& x = g.tensor(n.inputs[0]);
    if (!x.is_constant && x.shape_known && x.shape.size() == 4 && x.shape[0] > 1) return true;
  }
  return false;
}

std::string split_batch_into_images(Graph& graph) { return BatchSplit(graph).run(); }

std::string batch_image_base(const std::string& name) {
  const auto at = name.rfind(kImageTag);
  if (at == std::string::npos || at == 0) return "";
  const std::size_t digits = at + std::char_traits<char>::length(kImageTag);
  if (digits >= name.size()) return "";
  for (std::size_t i = digits; i < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9') return "";
  return name.substr(0, at);
}

}  // namespace npu::compiler
