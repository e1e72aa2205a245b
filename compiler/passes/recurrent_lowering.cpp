// LSTM, GRU and RNN unrolled over their (static) time steps into standard ops the NPU runs: one
// MatMul of the whole input sequence by the input weights (bias added once), then per step a
// MatMul of the hidden state by the recurrent weights, gate Slices, Sigmoid/Tanh and the
// element-wise state updates; the outputs stacked by Reshape + Concat. Forward, reverse and
// bidirectional; what the rewrite does not cover (peepholes, clip, input_forget, other
// activations, per-batch sequence lengths, layout 1) stays one node for the CPU and says why.
#include <algorithm>

#include "compiler/frontend/passes.h"
#include "compiler/passes/passes.h"

namespace npu::compiler {
namespace {

// Input i of `n`, or null when it is absent.
const Tensor* optional_input(const Graph& g, const Node& n, std::size_t i) {
  return i < n.inputs.size() && !n.inputs[i].empty() ? &g.tensor(n.inputs[i]) : nullptr;
}

// Why the node stays whole ("" when it is lowered).
std::string unsupported(const Graph& g, const Node& n) {
  auto input = [&](std::size_t i) { return optional_input(g, n, i); };
  const bool lstm = n.op_type == "LSTM";
  if (g.opset < 10) return "opset below 10";
  const Tensor* x = input(0);
  if (!x || !x->shape_known || x->shape.size() != 3) return "its input has no static [seq, batch, input] shape";
  for (std::size_t i : {1, 2})
    if (!input(i) || !g.is_constant(n.inputs[i])) return "its weights are not constants";
  if (input(3) && !g.is_constant(n.inputs[3])) return "its bias is not a constant";
  if (input(4)) return "it has per-batch sequence lengths";
  if (lstm && input(7)) return "it has peephole weights";
  if (n.has("clip")) return "it clips its cell input";
  if (lstm && n.get_int("input_forget", 0) != 0) return "it couples the input and forget gates";
  if (n.get_int("layout", 0) != 0) return "layout 1 (batch first)";
  if (n.has("activations")) {
    const auto& a = n.attributes.at("activations").strings;
    const std::vector<std::string> standard = lstm ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
                                              : n.op_type == "GRU" ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                                   : std::vector<std::string>{"Tanh"};
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a[i] != standard[i % standard.size()]) return "activation " + a[i] + " (only the default ones are lowered)";
  }
  const std::string dir = n.get_string("direction", "forward");
  if (dir != "forward" && dir != "reverse" && dir != "bidirectional") return "direction " + dir;
  // The shapes ONNX requires, checked here because the rewrite indexes the weights by them.
  const std::int64_t dirs = dir == "bidirectional" ? 2 : 1, gates = lstm ? 4 : n.op_type == "GRU" ? 3 : 1;
  const Tensor& w = *input(1);
  const Tensor& r = *input(2);
  if (w.shape.size() != 3 || r.shape.size() != 3) return "its weights are not 3-D";
  const std::int64_t hidden = r.shape[2];
  auto holds = [](const Tensor& t, std::vector<std::int64_t> shape) {
    std::int64_t count = 1;
    for (auto d : shape) count *= d;
    return t.shape == shape && t.elem_type == kFloat && static_cast<std::int64_t>(t.floats.size()) == count;
  };
  if (hidden < 1 || n.get_int("hidden_size", hidden) != hidden || x->elem_type != kFloat ||
      !holds(w, {dirs, gates * hidden, x->shape[2]}) || !holds(r, {dirs, gates * hidden, hidden}) ||
      (input(3) && !holds(*input(3), {dirs, 2 * gates * hidden})))
    return "its weights or bias do not have the shapes its input, hidden_size and direction give";
  for (std::size_t i : {std::size_t{5}, std::size_t{6}}) {
    const Tensor* s = input(i);
    if (s && (i == 5 || lstm) && (!s->shape_known || s->shape != std::vector<std::int64_t>{dirs, x->shape[1], hidden}))
      return "an initial state is not [directions, batch, hidden]";
  }
  for (std::size_t i = 0; i < n.outputs.size(); ++i)
    if (!n.outputs[i].empty() && !g.tensor(n.outputs[i]).shape_known) return "an output has no static shape";
  return "";
}

class Recurrent {
 public:
  explicit Recurrent(Graph& g) : g_(g) {}

  std::string run() {
    std::vector<Node> out;
    for (auto& n : g_.nodes) {
      if (is_recurrent(n)) {
        const std::string why = unsupported(g_, n);
        if (why.empty()) {
          lower(n, out);
          ++(n.op_type == "LSTM" ? lstms_ : n.op_type == "GRU" ? grus_ : rnns_);
          continue;
        }
      }
      out.push_back(std::move(n));
    }
    g_.nodes = std::move(out);
    if (lstms_ + grus_ + rnns_) {
      g_.sort_topologically();
      fold_static_shapes(g_);  // shapes, and the slices of constant initial states folded
    }
    return std::to_string(lstms_) + " LSTM, " + std::to_string(grus_) + " GRU and " + std::to_string(rnns_) +
           " RNN unrolled over their time steps";
  }

 private:
  Graph& g_;
  int lstms_ = 0, grus_ = 0, rnns_ = 0;
  std::vector<Node>* out_ = nullptr;
  const Node* from_ = nullptr;

  const Tensor* input(const Node& n, std::size_t i) const { return optional_input(g_, n, i); }

  std::string value(const std::string& base) { return g_.add_value(base, kFloat); }
  std::string ints(const std::string& base, std::vector<std::int64_t> v) { return g_.add_int_vector(base, std::move(v)); }
  std::string floats(const std::string& base, std::vector<std::int64_t> shape, std::vector<float> v) {
    const std::string name = g_.unique_name(base);
    g_.add_constant(name, std::move(shape), std::move(v));
    return name;
  }
  // Appends op(inputs) and returns its output (or writes `output` when given).
  std::string op(const std::string& type, std::vector<std::string> inputs, const std::string& suffix,
                 const std::string& output = "") {
    Node n;
    n.name = g_.unique_name(from_->name + "/" + suffix);
    n.op_type = type;
    n.inputs = std::move(inputs);
    n.outputs = {output.empty() ? value(from_->name + "/" + suffix) : output};
    n.fused_nodes = {from_->name};
    const std::string result = n.outputs[0];
    out_->push_back(std::move(n));
    return result;
  }
  std::string slice(const std::string& v, std::int64_t begin, std::int64_t end, std::int64_t axis, const std::string& s) {
    return op("Slice", {v, ints(s + "_starts", {begin}), ints(s + "_ends", {end}), ints(s + "_axes", {axis})}, s);
  }
  std::string reshape(const std::string& v, std::vector<std::int64_t> shape, const std::string& s) {
    return op("Reshape", {v, ints(s + "_shape", std::move(shape))}, s);
  }
  std::string concat(std::vector<std::string> parts, std::int64_t axis, const std::string& s,
                     const std::string& output = "") {
    if (parts.size() == 1) return op("Identity", {parts[0]}, s, output);
    const std::string result = op("Concat", std::move(parts), s, output);
    out_->back().set_int("axis", axis);
    return result;
  }

  // Rows [d*rows, (d+1)*rows) of the constant `name` ([D, rows, cols]), transposed: [cols, rows].
  std::string transposed_block(const std::string& name, std::int64_t d, std::int64_t row0, std::int64_t rows,
                               const std::string& s) {
    const Tensor& t = g_.tensor(name);
    const std::int64_t all_rows = t.shape[1], cols = t.shape[2];
    std::vector<float> v(static_cast<std::size_t>(rows * cols));
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c)
        v[static_cast<std::size_t>(c * rows + r)] = t.floats[static_cast<std::size_t>((d * all_rows + row0 + r) * cols + c)];
    return floats(from_->name + "/" + s, {cols, rows}, std::move(v));
  }
  std::vector<float> bias_part(const Tensor* b, std::int64_t d, std::int64_t offset, std::int64_t count) const {
    std::vector<float> v(static_cast<std::size_t>(count), 0.0f);
    if (!b) return v;
    const std::int64_t width = b->shape[1];
    for (std::int64_t i = 0; i < count; ++i) v[static_cast<std::size_t>(i)] = b->floats[static_cast<std::size_t>(d * width + offset + i)];
    return v;
  }
  // The direction's initial state from input `index` ([D, B, H]), or "" (zeros).
  std::string initial(const Node& n, std::size_t index, std::int64_t d, std::int64_t dirs, std::int64_t batch,
                      std::int64_t hidden, const std::string& s) {
    if (!input(n, index)) return "";
    const std::string v = dirs == 1 ? n.inputs[index] : slice(n.inputs[index], d, d + 1, 0, s + "_slice");
    return reshape(v, {batch, hidden}, s);
  }

  void lower(const Node& n, std::vector<Node>& out) {
    out_ = &out;
    from_ = &n;
    const bool lstm = n.op_type == "LSTM";
    const std::int64_t gates = lstm ? 4 : n.op_type == "GRU" ? 3 : 1;
    const Tensor& x = g_.tensor(n.inputs[0]);
    const std::int64_t steps = x.shape[0], batch = x.shape[1];
    const std::int64_t hidden = g_.tensor(n.inputs[2]).shape[2];
    const std::string dir = n.get_string("direction", "forward");
    const std::int64_t dirs = dir == "bidirectional" ? 2 : 1;
    const bool linear_before_reset = !lstm && n.get_int("linear_before_reset", 0) != 0;
    const Tensor* b = input(n, 3);
    std::vector<std::vector<std::string>> ys(static_cast<std::size_t>(dirs), std::vector<std::string>(static_cast<std::size_t>(steps)));
    std::vector<std::string> last_h, last_c;
    for (std::int64_t d = 0; d < dirs; ++d) {
      const bool backward = dir == "reverse" || d == 1;
      const std::string p = "d" + std::to_string(d);
      // The input projection of every step at once: [T, B, gates*H], with the input biases and,
      // where they simply add, the recurrent ones.
      const std::string w = transposed_block(n.inputs[1], d, 0, gates * hidden, p + "_W");
      std::vector<float> bias = bias_part(b, d, 0, gates * hidden);
      const std::vector<float> rbias = bias_part(b, d, gates * hidden, gates * hidden);
      // GRU with linear_before_reset: Rbh is inside r * (H R_h^T + Rbh), so it stays apart.
      const std::int64_t summed = linear_before_reset ? 2 * hidden : gates * hidden;
      for (std::int64_t i = 0; i < summed; ++i) bias[static_cast<std::size_t>(i)] += rbias[static_cast<std::size_t>(i)];
      const std::string xw =
          op("Add", {op("MatMul", {n.inputs[0], w}, p + "_xw"), floats(n.name + "/" + p + "_bias", {gates * hidden}, bias)},
             p + "_xwb");
      std::string h = initial(n, 5, d, dirs, batch, hidden, p + "_h0");
      std::string c = lstm ? initial(n, 6, d, dirs, batch, hidden, p + "_c0") : "";
      if (lstm) {
        const std::string r = transposed_block(n.inputs[2], d, 0, 4 * hidden, p + "_R");
        for (std::int64_t k = 0; k < steps; ++k) {
          const std::int64_t t = backward ? steps - 1 - k : k;
          const std::string s = p + "_t" + std::to_string(t);
          std::string gate = reshape(slice(xw, t, t + 1, 0, s + "_x"), {batch, 4 * hidden}, s + "_xr");
          if (!h.empty()) gate = op("Add", {gate, op("MatMul", {h, r}, s + "_hr")}, s + "_g");
          const std::string i = op("Sigmoid", {slice(gate, 0, hidden, 1, s + "_ig")}, s + "_i");
          const std::string o = op("Sigmoid", {slice(gate, hidden, 2 * hidden, 1, s + "_og")}, s + "_o");
          const std::string f = op("Sigmoid", {slice(gate, 2 * hidden, 3 * hidden, 1, s + "_fg")}, s + "_f");
          const std::string cand = op("Tanh", {slice(gate, 3 * hidden, 4 * hidden, 1, s + "_cg")}, s + "_cand");
          const std::string ic = op("Mul", {i, cand}, s + "_ic");
          c = c.empty() ? ic : op("Add", {op("Mul", {f, c}, s + "_fc"), ic}, s + "_c");
          h = op("Mul", {o, op("Tanh", {c}, s + "_tc")}, s + "_h");
          ys[static_cast<std::size_t>(d)][static_cast<std::size_t>(t)] = h;
        }
        last_c.push_back(c);
      } else if (n.op_type == "RNN") {
        // H_t = Tanh(X_t W^T + H_{t-1} R^T + Wb + Rb), the biases in the input projection.
        const std::string r = transposed_block(n.inputs[2], d, 0, hidden, p + "_R");
        for (std::int64_t k = 0; k < steps; ++k) {
          const std::int64_t t = backward ? steps - 1 - k : k;
          const std::string s = p + "_t" + std::to_string(t);
          std::string pre = reshape(slice(xw, t, t + 1, 0, s + "_x"), {batch, hidden}, s + "_xr");
          if (!h.empty()) pre = op("Add", {pre, op("MatMul", {h, r}, s + "_hr")}, s + "_pre");
          h = op("Tanh", {pre}, s + "_h");
          ys[static_cast<std::size_t>(d)][static_cast<std::size_t>(t)] = h;
        }
      } else {
        const std::string rzr = transposed_block(n.inputs[2], d, 0, 2 * hidden, p + "_Rzr");
        const std::string rh = transposed_block(n.inputs[2], d, 2 * hidden, hidden, p + "_Rh");
        const std::string rbh_name =
            linear_before_reset ? floats(n.name + "/" + p + "_Rbh", {hidden}, bias_part(b, d, 5 * hidden, hidden)) : "";
        for (std::int64_t k = 0; k < steps; ++k) {
          const std::int64_t t = backward ? steps - 1 - k : k;
          const std::string s = p + "_t" + std::to_string(t);
          const std::string xg = reshape(slice(xw, t, t + 1, 0, s + "_x"), {batch, 3 * hidden}, s + "_xr");
          std::string zr = slice(xg, 0, 2 * hidden, 1, s + "_xzr");
          if (!h.empty()) zr = op("Add", {zr, op("MatMul", {h, rzr}, s + "_hzr")}, s + "_zrs");
          const std::string z = op("Sigmoid", {slice(zr, 0, hidden, 1, s + "_zg")}, s + "_z");
          const std::string rgate = op("Sigmoid", {slice(zr, hidden, 2 * hidden, 1, s + "_rg")}, s + "_r");
          std::string pre = slice(xg, 2 * hidden, 3 * hidden, 1, s + "_xh");
          if (linear_before_reset) {
            // r * (H R_h^T + Rbh); with H_{t-1} = 0 only r * Rbh is left.
            const std::string rec = h.empty() ? rbh_name : op("Add", {op("MatMul", {h, rh}, s + "_hh"), rbh_name}, s + "_hhb");
            pre = op("Add", {pre, op("Mul", {rgate, rec}, s + "_rhh")}, s + "_pre");
          } else if (!h.empty()) {
            // (r * H) R_h^T; Rbh is in the input projection's bias.
            pre = op("Add", {pre, op("MatMul", {op("Mul", {rgate, h}, s + "_rh"), rh}, s + "_rhr")}, s + "_pre");
          }
          const std::string cand = op("Tanh", {pre}, s + "_cand");
          // H_t = (1 - z) * cand + z * H_{t-1} = cand + z * (H_{t-1} - cand)
          const std::string prev = h.empty() ? floats(n.name + "/" + s + "_zero", {batch, hidden},
                                                      std::vector<float>(static_cast<std::size_t>(batch * hidden), 0.0f))
                                             : h;
          h = op("Add", {cand, op("Mul", {z, op("Sub", {prev, cand}, s + "_d")}, s + "_zd")}, s + "_h");
          ys[static_cast<std::size_t>(d)][static_cast<std::size_t>(t)] = h;
        }
      }
      last_h.push_back(h);
    }
    auto output = [&](std::size_t i) { return i < n.outputs.size() ? n.outputs[i] : std::string(); };
    if (!output(0).empty()) {
      std::vector<std::string> per_step;
      for (std::int64_t t = 0; t < steps; ++t) {
        std::vector<std::string> per_dir;
        for (std::int64_t d = 0; d < dirs; ++d)
          per_dir.push_back(reshape(ys[static_cast<std::size_t>(d)][static_cast<std::size_t>(t)], {1, 1, batch, hidden},
                                    "y_d" + std::to_string(d) + "_t" + std::to_string(t)));
        per_step.push_back(concat(per_dir, 1, "y_t" + std::to_string(t)));
      }
      concat(per_step, 0, "y", output(0));
    }
    auto stack_last = [&](const std::vector<std::string>& last, const std::string& name, const std::string& target) {
      std::vector<std::string> parts;
      for (std::size_t d = 0; d < last.size(); ++d)
        parts.push_back(reshape(last[d], {1, batch, hidden}, name + "_d" + std::to_string(d)));
      concat(parts, 0, name, target);
    };
    if (!output(1).empty()) stack_last(last_h, "y_h", output(1));
    if (lstm && !output(2).empty()) stack_last(last_c, "y_c", output(2));
  }
};

}  // namespace

bool is_recurrent(const Node& node) {
  return node.domain.empty() && (node.op_type == "LSTM" || node.op_type == "GRU" || node.op_type == "RNN");
}

std::string lower_recurrent_layers(Graph& graph) { return Recurrent(graph).run(); }

std::string recurrent_lowering_obstacle(const Graph& graph, const Node& node) { return unsupported(graph, node); }

}  // namespace npu::compiler
