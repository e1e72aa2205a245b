// Models from ONNX Runtime's quantize_dynamic (int8 weights; activations quantised at run time
// with a scale computed per inference):
//   DynamicQuantizeLinear(x) -> (xq, x_scale, x_zp)
//   ConvInteger(xq, wq, x_zp, w_zp) / MatMulInteger(...) -> int32 -> Cast -> Mul(x_scale * w_scale)
// An NPU has no run-time activation scale: it quantises with calibrated ones. So the activation
// side goes back to float and the weights stay what the file made them: xq becomes x itself,
// x_scale 1 and x_zp 0, and the integer op a float Conv / MatMul by the weights minus their zero
// point. Everything after computes as written, now on float values: Cast(float) is the identity,
// Mul(1 * w_scale) dequantises the weights' integer units. Older files add the bias before the
// Cast, as int32 floor(b / (x_scale * w_scale)): that Cast to int32 becomes one to float (with
// x_scale 1, the bias to within one weight step). DynamicQuantizeLSTM (com.microsoft, weights
// [dirs, in, 4H] and [dirs, H, 4H]) becomes an LSTM with the dequantised weights in ONNX's
// layout. The weights hold the file's integer values (minus their zero point); the NPU quantises
// them per channel again (exactly where they were symmetric int8 spanning +-127).
#include <algorithm>
#include <map>
#include <set>

#include "compiler/frontend/passes.h"

namespace npu::compiler {
namespace {

bool integer_constant(const Graph& g, const std::string& name) {
  if (name.empty() || !g.is_constant(name)) return false;
  const Tensor& t = g.tensor(name);
  return (t.elem_type == kInt8 || t.elem_type == kUint8) && t.ints.size() == static_cast<std::size_t>(t.elements());
}

// Zero point `zp` (absent: 0; one value, or one per `channels`) of channel c.
std::int64_t zero_point(const Graph& g, const Node& n, std::size_t input, std::int64_t c) {
  if (input >= n.inputs.size() || n.inputs[input].empty()) return 0;
  const Tensor& z = g.tensor(n.inputs[input]);
  return z.ints.size() == 1 ? z.ints[0] : z.ints.at(static_cast<std::size_t>(c));
}

class DynamicQuantization {
 public:
  explicit DynamicQuantization(Graph& g) : g_(g) {}

  std::string run() {
    for (std::size_t i = 0; i < g_.nodes.size(); ++i) {
      const Node& n = g_.nodes[i];
      if (n.op_type == "DynamicQuantizeLinear" && n.domain.empty()) float_activation(i);
    }
    std::vector<Node> kept;
    for (auto& n : g_.nodes) {
      if (n.op_type == "ConvInteger" || n.op_type == "MatMulInteger") integer_product(n);
      if (n.op_type == "DynamicQuantizeLSTM" && n.domain == "com.microsoft") lstm(n);
      if (!dropped_.count(n.name)) kept.push_back(std::move(n));
    }
    g_.nodes = std::move(kept);
    rename_reads();
    floats_for_old_biases();
    return std::to_string(activations_) + " DynamicQuantizeLinear back to float, " + std::to_string(products_) +
           " ConvInteger/MatMulInteger as float ops on the int8 weights, " + std::to_string(lstms_) +
           " DynamicQuantizeLSTM as LSTM";
  }

 private:
  // DynamicQuantizeLinear(x) whose quantised output only integer products read (with its zero
  // point): reads of xq become reads of x, x_scale 1, x_zp 0 (the products take it out).
  void float_activation(std::size_t i) {
    const Node n = g_.nodes[i];
    if (n.inputs.empty() || n.outputs.size() < 3) return;
    const std::string &q = n.outputs[0], &scale = n.outputs[1], &zp = n.outputs[2];
    for (const auto& value : {q, zp})
      for (int r : g_.consumers(value)) {
        const Node& reader = g_.nodes[static_cast<std::size_t>(r)];
        if ((reader.op_type != "ConvInteger" && reader.op_type != "MatMulInteger") || reader.inputs.size() < 2 ||
            !integer_constant(g_, reader.inputs[1]))
          return;
        for (std::size_t k = 0; k < reader.inputs.size(); ++k)  // xq only as the data, x_zp only as its zero point
          if ((reader.inputs[k] == q && k != 0) || (reader.inputs[k] == zp && k != 2)) return;
        if (reader.inputs.size() > 3 && !reader.inputs[3].empty() && !integer_constant(g_, reader.inputs[3])) return;
      }
    if (g_.is_graph_output(q) || g_.is_graph_output(zp)) return;
    renamed_[q] = n.inputs[0];
    const std::string one = g_.unique_name(scale + "_one");
    g_.add_constant(one, {}, {1.0f});
    renamed_[scale] = one;
    dropped_.insert(n.name);
    float_inputs_.insert(q);
    ++activations_;
  }

  void integer_product(Node& n) {
    if (n.inputs.size() < 2 || !float_inputs_.count(n.inputs[0])) return;
    const bool conv = n.op_type == "ConvInteger";
    const Tensor& w = g_.tensor(n.inputs[1]);
    if (w.shape.size() < 2) return;
    // ConvInteger: w [M, C/g, kh, kw], zero point per output channel M; MatMulInteger: w [.., K, N],
    // zero point per column N.
    const std::int64_t channels = conv ? w.shape[0] : w.shape.back();
    const std::int64_t inner = conv ? w.elements() / channels : 1;
    std::vector<float> values(w.ints.size());
    for (std::size_t k = 0; k < values.size(); ++k) {
      const std::int64_t c = conv ? static_cast<std::int64_t>(k) / inner : static_cast<std::int64_t>(k) % channels;
      values[k] = static_cast<float>(w.ints[k] - zero_point(g_, n, 3, c));
    }
    const std::string weights = g_.unique_name(n.inputs[1] + "_minus_zero_point");
    g_.add_constant(weights, w.shape, std::move(values));
    n.op_type = conv ? "Conv" : "MatMul";
    n.inputs = {n.inputs[0], weights};
    g_.tensor(n.outputs[0]).elem_type = kFloat;
    products_out_.insert(n.outputs[0]);
    ++products_;
  }

  // W [dirs, in, 4H] -> [dirs, 4H, in] dequantised (scale and zero point per direction, or per
  // direction and gate row).
  std::string lstm_weights(const Node& n, std::size_t w, std::size_t scale, std::size_t zp) {
    const Tensor& q = g_.tensor(n.inputs[w]);
    const Tensor& s = g_.tensor(n.inputs[scale]);
    const Tensor& z = g_.tensor(n.inputs[zp]);
    const std::int64_t dirs = q.shape[0], in = q.shape[1], rows = q.shape[2];
    std::vector<float> out(static_cast<std::size_t>(dirs * rows * in));
    for (std::int64_t d = 0; d < dirs; ++d)
      for (std::int64_t r = 0; r < rows; ++r) {
        const std::size_t p = s.floats.size() == static_cast<std::size_t>(dirs) ? static_cast<std::size_t>(d)
                                                                                 : static_cast<std::size_t>(d * rows + r);
        const float step = s.floats.at(p);
        const std::int64_t zero = z.ints.at(z.ints.size() == static_cast<std::size_t>(dirs) ? static_cast<std::size_t>(d) : p);
        for (std::int64_t i = 0; i < in; ++i)
          out[static_cast<std::size_t>((d * rows + r) * in + i)] =
              step * static_cast<float>(q.ints[static_cast<std::size_t>((d * in + i) * rows + r)] - zero);
      }
    const std::string name = g_.unique_name(n.inputs[w] + "_dequantized");
    g_.add_constant(name, {dirs, rows, in}, std::move(out));
    return name;
  }

  void lstm(Node& n) {
    if (n.inputs.size() < 12) return;
    for (std::size_t i : {std::size_t{1}, std::size_t{2}, std::size_t{9}, std::size_t{11}})
      if (!integer_constant(g_, n.inputs[i]) || g_.tensor(n.inputs[i]).shape.empty()) return;
    for (std::size_t i : {std::size_t{8}, std::size_t{10}})
      if (!g_.is_constant(n.inputs[i]) || g_.tensor(n.inputs[i]).floats.empty()) return;
    if (g_.tensor(n.inputs[1]).shape.size() != 3 || g_.tensor(n.inputs[2]).shape.size() != 3) return;
    const std::string w = lstm_weights(n, 1, 8, 9), r = lstm_weights(n, 2, 10, 11);
    std::vector<std::string> inputs(n.inputs.begin(), n.inputs.begin() + 8);
    inputs[1] = w;
    inputs[2] = r;
    while (!inputs.empty() && inputs.back().empty()) inputs.pop_back();
    n.inputs = std::move(inputs);
    n.op_type = "LSTM";
    n.domain.clear();
    ++lstms_;
  }

  void rename_reads() {
    for (auto& n : g_.nodes)
      for (auto& v : n.inputs) {
        const auto it = renamed_.find(v);
        if (it != renamed_.end()) v = it->second;
      }
  }

  // An older file's bias: Cast(to int32) -> [Reshape] -> Add with a product's accumulator.
  void floats_for_old_biases() {
    auto producer = [&](const std::string& v) -> Node* {
      const int p = g_.producer(v);
      return p < 0 ? nullptr : &g_.nodes[static_cast<std::size_t>(p)];
    };
    for (auto& n : g_.nodes) {
      if (n.op_type != "Add" || n.inputs.size() != 2) continue;
      for (int side = 0; side < 2; ++side) {
        if (!products_out_.count(n.inputs[static_cast<std::size_t>(side)])) continue;
        Node* p = producer(n.inputs[static_cast<std::size_t>(1 - side)]);
        while (p && (p->op_type == "Reshape" || p->op_type == "Unsqueeze")) p = producer(p->inputs[0]);
        if (p && p->op_type == "Cast" && p->get_int("to", 0) == kInt32) p->set_int("to", kFloat);
        products_out_.insert(n.outputs[0]);
      }
    }
  }

  Graph& g_;
  std::map<std::string, std::string> renamed_;
  std::set<std::string> dropped_, float_inputs_, products_out_;
  int activations_ = 0, products_ = 0, lstms_ = 0;
};

}  // namespace

bool has_dynamic_quantization(const Graph& g) {
  return std::any_of(g.nodes.begin(), g.nodes.end(), [](const Node& n) {
    return (n.op_type == "DynamicQuantizeLinear" && n.domain.empty()) || (n.op_type == "DynamicQuantizeLSTM" && n.domain == "com.microsoft");
  });
}

std::string dynamic_quantization_to_float(Graph& g) { return DynamicQuantization(g).run(); }

}  // namespace npu::compiler
