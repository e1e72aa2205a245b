#include "compiler/backend/precision_converters.h"

#include <map>
#include <set>

#include "compiler/quant/quant_simulation.h"
#include "compiler/quant/quantization_stage.h"

namespace npu::compiler {

bool is_precision_converter(const Node& n) {
  return n.domain == "npusim" && (n.op_type == "Quantize" || n.op_type == "Dequantize");
}

namespace {

// int8: has parameters; promoted: fp16 because an fp16 layer made it (or the host hands it to
// one), a Quantize brings it back; native: an int8 program's own fp16 value (a masked score).
enum class Kind { Int8, Promoted, Native };

class ConverterPass {
 public:
  explicit ConverterPass(Graph& g) : g_(g) {}

  std::string run() {
    std::set<std::string> produced_on_npu;
    for (const auto& n : g_.nodes)
      if (n.device == Node::Device::Npu)
        for (const auto& o : n.outputs) produced_on_npu.insert(o);
    // Host values read by an fp16 layer travel as fp16.
    for (const auto& n : g_.nodes) {
      if (n.device != Node::Device::Npu || !runs_in_fp16(n)) continue;
      for (const auto& v : n.inputs)
        if (activation(v) && !produced_on_npu.count(v) && !kind_.count(v)) make_fp16(v);
    }
    std::vector<Node> out;
    int layers = 0;
    for (auto& n : g_.nodes) {
      if (n.device != Node::Device::Npu) {
        out.push_back(std::move(n));
        continue;
      }
      bool fp16 = false;
      if (is_precision_layer(n)) {
        fp16 = runs_in_fp16(n);
        layers += fp16;
      } else {  // data movement: fp16 when what it moves is (or calibration left it unranged)
        fp16 = runs_in_fp16(n);
        for (const auto& v : n.inputs)
          if (activation(v) && kind(v) == Kind::Promoted) fp16 = true;
        if (fp16) n.set_string("precision", "fp16");
      }
      for (auto& v : n.inputs) {
        if (!activation(v)) continue;
        const Kind k = kind(v);
        if (fp16 && k == Kind::Int8) v = convert(v, "Dequantize", out);
        else if (!fp16 && k == Kind::Promoted) v = convert(v, "Quantize", out);
      }
      for (const auto& o : n.outputs) {
        if (o.empty()) continue;
        if (fp16) make_fp16(o);
        else kind_[o] = g_.tensor(o).quant.valid() ? Kind::Int8 : Kind::Native;
      }
      out.push_back(std::move(n));
    }
    g_.nodes = std::move(out);
    return std::to_string(layers) + " layers in fp16, " + std::to_string(dequantize_) + " dequantize and " +
           std::to_string(quantize_) + " quantize converters";
  }

 private:
  bool activation(const std::string& v) const { return !v.empty() && !g_.is_constant(v); }

  Kind kind(const std::string& v) const {
    auto it = kind_.find(v);
    if (it != kind_.end()) return it->second;
    return g_.tensor(v).quant.valid() ? Kind::Int8 : Kind::Native;
  }

  void make_fp16(const std::string& v) {
    Tensor& t = g_.tensor(v);
    if (t.quant.valid()) saved_[v] = t.quant;
    t.quant = QuantParams{};
    kind_[v] = Kind::Promoted;
  }

  // `v` in the other element type, converted once and shared by every reader.
  std::string convert(const std::string& v, const std::string& op, std::vector<Node>& out) {
    auto& done = op == "Dequantize" ? fp16_copy_ : int8_copy_;
    auto it = done.find(v);
    if (it != done.end()) return it->second;
    const bool to_int8 = op == "Quantize";
    std::string name = g_.unique_name(v + (to_int8 ? "_int8" : "_fp16"));
    Tensor t = g_.tensor(v);
    t.name = name;
    t.quant = to_int8 ? saved_.at(v) : QuantParams{};
    g_.tensors[name] = t;
    kind_[name] = to_int8 ? Kind::Int8 : Kind::Promoted;
    Node c;
    c.name = g_.unique_name(v + (to_int8 ? "_quantize" : "_dequantize"));
    c.op_type = op;
    c.domain = "npusim";
    c.inputs = {v};
    c.outputs = {name};
    c.device = Node::Device::Npu;
    c.set_string("pattern", op);
    out.push_back(std::move(c));
    ++(to_int8 ? quantize_ : dequantize_);
    return done[v] = name;
  }

  Graph& g_;
  std::map<std::string, Kind> kind_;
  std::map<std::string, QuantParams> saved_;
  std::map<std::string, std::string> fp16_copy_, int8_copy_;
  int quantize_ = 0, dequantize_ = 0;
};

}  // namespace

std::string insert_precision_converters(Graph& g) { return ConverterPass(g).run(); }

}  // namespace npu::compiler
