// The layout pass: a physical order per NPU value (tensor_layout.h), chosen so that bytes move
// only where an op needs them elsewhere.
//
// - Conv, pooling and resize read and write NHWC (channels innermost: the conv instruction's
//   im2col, the per-channel vector parameters and channel concat by strided DMA need it).
// - Transpose, Reshape, Flatten, Squeeze, Unsqueeze are views: their output is the input's bytes
//   with another order (a Flatten of NHWC [1,C,H,W] is [1,C,HW] stored HW-major, and the
//   Transpose to [1,HW,C] that follows in a ViT is then row-major: nothing moves). A reshape
//   whose axis groups are not contiguous in memory first makes its input row-major.
// - Gemm-like ops need their reduction axis innermost; LayerNormalization its normalised axes.
// - Element-wise ops, slices, concats, pads, gathers, reductions and softmax work on any order;
//   their output takes their (first full-size) input's order, other operands follow it.
// - Values that cross to the host (graph inputs and outputs, CPU steps) are stored either as the
//   host holds them (row-major: the runtime copies) or, when 4-D images, NHWC (the runtime
//   transposes the host's NCHW); each records which as its host layout. A 4-D value that no
//   NHWC op (conv, pooling, resize) reads from or writes into by any path stays row-major: an
//   attention KV cache [batch, heads, seq, dim] in NHWC would put the heads innermost, and every
//   matmul over it would need a copy. A value the NPU reads is NHWC unless it is an NHWC image:
//   a Transpose(0,3,1,2) reads it (as TensorFlow exports start), possibly after element-wise ops
//   (a channels-last normalisation), and no conv or pooling reads it as NCHW. Then it stays
//   row-major, the Transpose's output is NHWC as it stands, and the input's bytes go to the conv
//   untouched. A value the NPU writes keeps a row-major order it already has (the output of a
//   closing Transpose(0,2,3,1) of an NHWC value); otherwise it takes the boundary order.
// Where an operand's order differs from what its consumer needs, a Relayout node (domain npusim)
// copies it; the summary counts them, and the NCHW<->NHWC conversions the runtime does.
#include <algorithm>
#include <map>
#include <set>

#include "compiler/backend/layout.h"

#include "compiler/backend/move_params.h"
#include "compiler/backend/rowwise_params.h"
#include "compiler/core/npu_ops.h"
#include "compiler/core/tensor_layout.h"

namespace npu::compiler {
namespace {

// The memory-innermost axis of size > 1, or -1 when every axis has size 1.
int innermost_axis(const std::vector<std::int64_t>& shape, const AxisOrder& order) {
  AxisOrder o = order_or_identity(order, shape.size());
  for (std::size_t i = o.size(); i-- > 0;)
    if (shape[static_cast<std::size_t>(o[i])] != 1) return o[i];
  return -1;
}

// Whether axes [first, rank) are the innermost in memory, in increasing order.
bool trailing_axes_innermost(const std::vector<std::int64_t>& shape, const AxisOrder& order, std::size_t first) {
  AxisOrder id = identity_order(shape.size());
  AxisOrder o = order_or_identity(order, shape.size());
  // Equal bytes to an order whose tail is first..rank-1 and whose head is o's other axes.
  AxisOrder want;
  for (int a : o)
    if (static_cast<std::size_t>(a) < first) want.push_back(a);
  for (std::size_t a = first; a < shape.size(); ++a) want.push_back(static_cast<int>(a));
  return same_bytes(shape, o, want);
}

AxisOrder trailing_axes_order(const std::vector<std::int64_t>& shape, const AxisOrder& order, std::size_t first) {
  AxisOrder o = order_or_identity(order, shape.size()), want;
  for (int a : o)
    if (static_cast<std::size_t>(a) < first) want.push_back(a);
  for (std::size_t a = first; a < shape.size(); ++a) want.push_back(static_cast<int>(a));
  return want;
}

std::int64_t normalized_axis(std::int64_t axis, std::size_t rank) {
  return axis < 0 ? axis + static_cast<std::int64_t>(rank) : axis;
}

// Whether `axes` form one block of consecutive axes in memory (size-1 axes do not count).
bool axes_contiguous(const std::vector<std::int64_t>& shape, const AxisOrder& order, const std::vector<std::int64_t>& axes) {
  int phase = 0;
  for (int a : order_or_identity(order, shape.size())) {
    if (shape[static_cast<std::size_t>(a)] == 1) continue;
    const bool in = std::find(axes.begin(), axes.end(), a) != axes.end();
    if (in && phase == 2) return false;
    if (in) phase = 1;
    else if (phase == 1) phase = 2;
  }
  return true;
}

// The order of an output that drops the axes not `kept` (and renumbers the rest), or replaces
// axis `replaced` by `count` new axes (Gather's index axes).
AxisOrder without_axes(const AxisOrder& in, const std::vector<bool>& kept, std::int64_t replaced, std::int64_t count) {
  AxisOrder out;
  for (int a : in) {
    if (a == replaced) {
      for (std::int64_t k = 0; k < count; ++k) out.push_back(static_cast<int>(a + k));
      continue;
    }
    if (!kept[static_cast<std::size_t>(a)]) continue;
    int removed_before = 0;
    for (int b = 0; b < a; ++b) removed_before += !kept[static_cast<std::size_t>(b)];
    const int shift = replaced >= 0 && a > replaced ? static_cast<int>(count) - 1 : 0;
    out.push_back(a - removed_before + shift);
  }
  return out;
}

const std::vector<std::int64_t> kNhwcToNchw = {0, 3, 1, 2};
const std::vector<std::int64_t> kNchwToNhwc = {0, 2, 3, 1};

class LayoutPass {
 public:
  explicit LayoutPass(Graph& g) : g_(g) {}

  std::string run(int& boundary_transposes) {
    find_image_values();
    std::set<std::string> host_visible(g_.inputs.begin(), g_.inputs.end());
    host_visible.insert(g_.outputs.begin(), g_.outputs.end());
    for (const auto& n : g_.nodes) {
      if (n.device == Node::Device::Npu) continue;
      for (const auto& v : n.inputs) if (!v.empty()) host_visible.insert(v);
      for (const auto& v : n.outputs) if (!v.empty()) host_visible.insert(v);
    }
    find_nhwc_images();
    std::vector<Node> out;
    for (auto& n : g_.nodes) {
      if (n.device != Node::Device::Npu) {
        out.push_back(std::move(n));
        continue;
      }
      for (const auto& v : n.inputs)
        if (!v.empty() && !g_.is_constant(v) && !order_.count(v)) order_[v] = host_input_order(v);
      place(n, out);
      out.push_back(std::move(n));
    }
    g_.nodes = std::move(out);
    // Host-visible values the NPU computes in another order: the producer writes a renamed
    // value, a Relayout writes the host's order under the original name.
    std::vector<Node> final_nodes;
    for (auto& n : g_.nodes) {
      final_nodes.push_back(n);
      if (n.device != Node::Device::Npu) continue;
      for (auto& o : final_nodes.back().outputs) {
        if (o.empty() || !host_visible.count(o) || !order_.count(o)) continue;
        AxisOrder want = boundary_order(o);
        if (same_bytes(shape(o), order_[o], want)) continue;
        if (same_bytes(shape(o), order_[o], identity_order(shape(o).size()))) {  // as the host holds it
          order_[o] = identity_order(shape(o).size());
          if (shape(o).size() == 4 && n.op_type == "Transpose" && n.domain.empty() && n.get_ints("perm") == kNchwToNhwc)
            host_nhwc_.insert(o);
          continue;
        }
        std::string inner = g_.unique_name(o + "_npu_order");
        Tensor t = g_.tensor(o);
        t.name = inner;
        g_.tensors[inner] = t;
        order_[inner] = order_[o];
        order_[o] = want;
        renamed_[o] = inner;
        Node r = relayout_node(inner, o);
        o = inner;
        final_nodes.push_back(r);
        ++moves_;
      }
    }
    // NPU readers of a renamed value read the producer's order.
    for (auto& n : final_nodes) {
      if (n.device != Node::Device::Npu || (n.op_type == "Relayout" && n.domain == "npusim" && renamed_.count(n.outputs[0])))
        continue;
      for (auto& v : n.inputs) {
        auto it = renamed_.find(v);
        if (it != renamed_.end()) v = it->second;
      }
    }
    g_.nodes = std::move(final_nodes);
    int nhwc = 0;
    for (const auto& [v, o] : order_) {
      Tensor& t = g_.tensor(v);
      t.order = o;
      const bool nhwc_order_4d = t.shape.size() == 4 && o == nhwc_order();
      nhwc += nhwc_order_4d || host_nhwc_.count(v);
      if (!host_visible.count(v)) continue;
      if (nhwc_order_4d) {
        t.host_layout = "NCHW";
        ++boundary_transposes;
      } else {
        t.host_layout = host_nhwc_.count(v) ? "NHWC" : layout_name(t.shape.size(), o);
      }
    }
    std::string detail = std::to_string(order_.size()) + " NPU values (" + std::to_string(nhwc) + " NHWC), " +
                         std::to_string(moves_) + " relayout copies, " + std::to_string(boundary_transposes) +
                         " NCHW<->NHWC conversions at the NPU boundary";
    if (!host_nhwc_.empty())
      detail += ", " + std::to_string(host_nhwc_.size()) + " NHWC value(s) passed as the host holds them";
    return detail;
  }

 private:
  const std::vector<std::int64_t>& shape(const std::string& v) const { return g_.tensor(v).shape; }

  // The order of a value the host hands the NPU: row-major when it is an NHWC image, so the
  // Transpose(0,3,1,2) that makes it NCHW outputs NHWC with no byte moved; otherwise the
  // boundary order.
  AxisOrder host_input_order(const std::string& v) {
    const std::size_t rank = shape(v).size();
    if (rank != 4 || !nhwc_images_.count(v) || same_bytes(shape(v), identity_order(rank), default_order(rank)))
      return boundary_order(v);
    host_nhwc_.insert(v);
    return identity_order(rank);
  }

  // NHWC images: values a Transpose(0,3,1,2) reads, and the full-size operands of element-wise
  // ops that compute one (an input normalised channels-last before the transpose), unless a conv
  // or pooling reads them as NCHW.
  void find_nhwc_images() {
    std::set<std::string> read_as_nchw_image;
    for (auto it = g_.nodes.rbegin(); it != g_.nodes.rend(); ++it) {
      const Node& n = *it;
      if (n.device != Node::Device::Npu) continue;
      if (n.op_type == "Transpose" && n.domain.empty() && n.get_ints("perm") == kNhwcToNchw)
        nhwc_images_.insert(n.inputs[0]);
      if ((unary_ops().count(n.op_type) || binary_ops().count(n.op_type)) && nhwc_images_.count(n.outputs[0]))
        for (const auto& v : n.inputs)
          if (activation(v) && shape(v) == shape(n.outputs[0])) nhwc_images_.insert(v);
      if (needs_nhwc(n.op_type))
        for (const auto& v : n.inputs) read_as_nchw_image.insert(v);
    }
    for (const auto& v : read_as_nchw_image) nhwc_images_.erase(v);
  }
  bool activation(const std::string& v) const { return !v.empty() && !g_.is_constant(v); }

  // Values connected to an NHWC op by some path, forwards or backwards: the images.
  void find_image_values() {
    for (const auto& n : g_.nodes)
      if (needs_nhwc(n.op_type) || std::any_of(n.inputs.begin(), n.inputs.end(), [&](const std::string& v) { return from_image_.count(v) > 0; }))
        from_image_.insert(n.outputs.begin(), n.outputs.end());
    for (auto n = g_.nodes.rbegin(); n != g_.nodes.rend(); ++n)
      if (needs_nhwc(n->op_type) || std::any_of(n->outputs.begin(), n->outputs.end(), [&](const std::string& v) { return to_image_.count(v) > 0; }))
        to_image_.insert(n->inputs.begin(), n->inputs.end());
  }

  // The order of a value the runtime converts at the host boundary (tensor_conversion):
  // NHWC for 4-D images, row-major otherwise.
  AxisOrder boundary_order(const std::string& v) const {
    const std::size_t rank = shape(v).size();
    return from_image_.count(v) || to_image_.count(v) ? default_order(rank) : identity_order(rank);
  }

  Node relayout_node(const std::string& from, const std::string& to) {
    Node r;
    r.name = g_.unique_name(to + "_relayout");
    r.op_type = "Relayout";
    r.domain = "npusim";
    r.inputs = {from};
    r.outputs = {to};
    r.device = Node::Device::Npu;
    r.set_string("pattern", "Relayout");
    return r;
  }

  // Input `v` of a node as a value stored in order `want`: `v` itself, or a copy.
  std::string ensure(const std::string& v, const AxisOrder& want, std::vector<Node>& out) {
    const auto& s = shape(v);
    if (same_bytes(s, order_.at(v), want)) return v;
    for (const auto& [key, copy] : copies_)
      if (key.first == v && same_bytes(s, key.second, want)) return copy;
    std::string name = g_.unique_name(v + "_relayout");
    Tensor t = g_.tensor(v);
    t.name = name;
    g_.tensors[name] = t;
    order_[name] = want;
    out.push_back(relayout_node(v, name));
    copies_[{v, want}] = name;
    ++moves_;
    return name;
  }

  void set_output(const std::string& v, AxisOrder o) {
    if (v.empty()) return;
    const auto& s = shape(v);
    if (o.size() != s.size()) o = default_order(s.size());
    if (same_bytes(s, o, default_order(s.size()))) o = default_order(s.size());
    order_[v] = o;
  }

  // First input with the output's shape: its order leads.
  int primary_input(const Node& n) const {
    const auto& ys = shape(n.outputs[0]);
    for (std::size_t i = 0; i < n.inputs.size(); ++i)
      if (activation(n.inputs[i]) && shape(n.inputs[i]) == ys) return static_cast<int>(i);
    return -1;
  }

  void place(Node& n, std::vector<Node>& out) {
    const std::string& op = n.op_type;
    auto& in = n.inputs;
    const std::string y = n.outputs.empty() ? std::string() : n.outputs[0];
    auto order_of = [&](const std::string& v) { return order_.at(v); };

    if (needs_nhwc(op)) {
      for (auto& v : in)
        if (activation(v) && shape(v).size() == 4) v = ensure(v, nhwc_order(), out);
      for (const auto& o : n.outputs) set_output(o, default_order(shape(o).size()));
      return;
    }
    if (is_view_op(op) || (op == "Relayout" && n.domain == "npusim")) {
      const auto& xs = shape(in[0]);
      const auto& ys = shape(y);
      if (op == "Transpose") {
        std::vector<std::int64_t> perm = n.get_ints("perm");
        if (perm.empty())
          for (std::size_t i = xs.size(); i-- > 0;) perm.push_back(static_cast<std::int64_t>(i));
        set_output(y, transposed_order(order_of(in[0]), perm));
      } else if (op == "Identity") {
        set_output(y, order_of(in[0]));
      } else {
        auto o = reshaped_order(xs, order_of(in[0]), ys);
        if (!o) {
          in[0] = ensure(in[0], identity_order(xs.size()), out);
          o = identity_order(ys.size());
        }
        set_output(y, *o);
      }
      return;
    }
    if (op == "FusedGemm") {
      const auto& xs = shape(in[0]);
      if (innermost_axis(xs, order_of(in[0])) != static_cast<int>(xs.size()) - 1 && xs.back() != 1)
        in[0] = ensure(in[0], trailing_axes_order(xs, order_of(in[0]), xs.size() - 1), out);
      set_output(y, order_of(in[0]));
      return;
    }
    if (op == "MatMul") {
      const auto& as = shape(in[0]);
      const auto& bs = shape(in[1]);
      if (activation(in[0]) && as.back() != 1 && innermost_axis(as, order_of(in[0])) != static_cast<int>(as.size()) - 1)
        in[0] = ensure(in[0], identity_order(as.size()), out);
      if (activation(in[1]) && bs.size() >= 2) {
        int inner = innermost_axis(bs, order_of(in[1]));
        int r = static_cast<int>(bs.size());
        if (inner != r - 1 && inner != r - 2 && inner != -1) in[1] = ensure(in[1], identity_order(bs.size()), out);
      }
      set_output(y, identity_order(shape(y).size()));
      return;
    }
    if (op == "LayerNormalization") {
      const auto& xs = shape(in[0]);
      auto axis = static_cast<std::size_t>(normalized_axis(n.get_int("axis", -1), xs.size()));
      if (!trailing_axes_innermost(xs, order_of(in[0]), axis)) in[0] = ensure(in[0], trailing_axes_order(xs, order_of(in[0]), axis), out);
      set_output(y, order_of(in[0]));
      return;
    }
    if (unary_ops().count(op) || binary_ops().count(op) || op == "Where" || op == "Concat") {
      const auto& ys = shape(y);
      int p = primary_input(n);
      AxisOrder oo;
      if (p >= 0) {
        oo = order_of(in[static_cast<std::size_t>(p)]);
      } else {
        oo = default_order(ys.size());
        for (const auto& v : in)
          if (activation(v) && shape(v).size() == ys.size()) {
            oo = order_of(v);
            break;
          }
      }
      for (std::size_t i = 0; i < in.size(); ++i) {
        if (!activation(in[i]) || static_cast<int>(i) == p) continue;
        if (op == "Concat") in[i] = ensure(in[i], oo, out);
        else if (shape(in[i]).size() <= ys.size()) in[i] = ensure(in[i], projected_order(oo, ys.size(), shape(in[i]).size()), out);
      }
      set_output(y, oo);
      return;
    }
    if (is_rowwise_op(op)) {
      const auto& xs = shape(in[0]);
      const std::vector<std::int64_t> axes = rowwise_axes(g_, n);
      const bool reduce = reduce_ops().count(op) != 0;
      if (!reduce && axes.size() > 1) {  // normalised / coerced axes: innermost, in order
        if (!trailing_axes_innermost(xs, order_of(in[0]), static_cast<std::size_t>(axes.front())))
          in[0] = ensure(in[0], trailing_axes_order(xs, order_of(in[0]), static_cast<std::size_t>(axes.front())), out);
      } else if (reduce && !axes_contiguous(xs, order_of(in[0]), axes)) {
        AxisOrder o;
        for (int a : order_of(in[0]))
          if (std::find(axes.begin(), axes.end(), a) == axes.end()) o.push_back(a);
        for (int a : order_of(in[0]))
          if (std::find(axes.begin(), axes.end(), a) != axes.end()) o.push_back(a);
        in[0] = ensure(in[0], o, out);
      }
      if (!reduce || shape(y).size() == xs.size()) {
        set_output(y, order_of(in[0]));
      } else {
        std::vector<bool> kept(xs.size(), true);
        for (auto a : axes) kept[static_cast<std::size_t>(a)] = false;
        set_output(y, without_axes(order_of(in[0]), kept, -1, 0));
      }
      return;
    }
    if (is_row_gather(g_, n)) {  // rows of a row-major table picked by run-time indices
      for (auto& v : in)
        if (activation(v)) v = ensure(v, identity_order(shape(v).size()), out);
      set_output(y, identity_order(shape(y).size()));
      return;
    }
    if (op == "Gather") {
      const auto& xs = shape(in[0]);
      const std::int64_t axis = normalized_axis(n.get_int("axis", 0), xs.size());
      std::vector<bool> kept(xs.size(), true);
      set_output(y, without_axes(order_of(in[0]), kept, axis, static_cast<std::int64_t>(shape(in[1]).size())));
      return;
    }
    if (op == "Expand" || op == "Tile" || op == "Slice" || op == "Split" || op == "Pad" || op == "DepthToSpace" ||
        op == "SpaceToDepth") {
      const auto& xs = shape(in[0]);
      for (const auto& o : n.outputs) {
        if (o.empty()) continue;
        set_output(o, projected_order(order_of(in[0]), xs.size(), xs.size()));
        if (shape(o).size() > xs.size()) {  // Expand to a higher rank: new axes outermost
          AxisOrder e;
          std::size_t extra = shape(o).size() - xs.size();
          for (std::size_t a = 0; a < extra; ++a) e.push_back(static_cast<int>(a));
          for (int a : order_of(in[0])) e.push_back(a + static_cast<int>(extra));
          set_output(o, e);
        }
      }
      return;
    }
    // Anything else: the default orders in and out.
    for (auto& v : in)
      if (activation(v)) v = ensure(v, default_order(shape(v).size()), out);
    for (const auto& o : n.outputs) set_output(o, default_order(shape(o).size()));
  }

  Graph& g_;
  std::map<std::string, AxisOrder> order_;
  std::map<std::pair<std::string, AxisOrder>, std::string> copies_;
  std::map<std::string, std::string> renamed_;
  std::set<std::string> nhwc_images_;  // find_nhwc_images()
  std::set<std::string> host_nhwc_;  // NHWC images the host hands over or gets back as they are
  std::set<std::string> from_image_, to_image_;  // find_image_values()
  int moves_ = 0;
};

}  // namespace

std::string convert_layout(Graph& g, int& transposes) {
  transposes = 0;
  return LayoutPass(g).run(transposes);
}

}  // namespace npu::compiler
