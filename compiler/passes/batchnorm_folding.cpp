#include <cmath>

#include "compiler/passes/passes.h"

namespace npu::compiler {
namespace {

bool sole_consumer(const Graph& g, const std::string& value, int consumer) {
  auto c = g.consumers(value);
  return c.size() == 1 && c[0] == consumer && !g.is_graph_output(value);
}

// A private copy of a constant, so folding never changes a weight another node shares.
Tensor& own_constant(Graph& g, const std::string& name, std::string& renamed) {
  renamed = g.unique_name(name + "_folded");
  Tensor copy = g.tensor(name);
  copy.name = renamed;
  g.tensors[renamed] = copy;
  return g.tensors[renamed];
}

}  // namespace

std::string fold_batchnorm(Graph& g) {
  int folded = 0;
  for (std::size_t bi = 0; bi < g.nodes.size(); ++bi) {
    Node bn = g.nodes[bi];
    if (bn.op_type != "BatchNormalization" || !bn.domain.empty() || bn.inputs.size() < 5) continue;
    if (bn.outputs.size() > 1 && !bn.outputs[1].empty()) continue;  // training mode outputs
    bool params_constant = true;
    for (int i = 1; i < 5; ++i) params_constant &= g.is_constant(bn.inputs[i]);
    int pi = g.producer(bn.inputs[0]);
    if (!params_constant || pi < 0 || !sole_consumer(g, bn.inputs[0], static_cast<int>(bi))) continue;
    Node& prod = g.nodes[pi];
    bool is_conv = prod.op_type == "Conv" && prod.domain.empty();
    bool is_gemm = prod.op_type == "Gemm" && prod.domain.empty() && prod.get_int("transA", 0) == 0;
    if ((!is_conv && !is_gemm) || prod.inputs.size() < 2 || !g.is_constant(prod.inputs[1])) continue;
    if (prod.inputs.size() > 2 && !prod.inputs[2].empty() && !g.is_constant(prod.inputs[2])) continue;
    const auto& scale = g.tensor(bn.inputs[1]).floats;
    const auto& beta = g.tensor(bn.inputs[2]).floats;
    const auto& mean = g.tensor(bn.inputs[3]).floats;
    const auto& var = g.tensor(bn.inputs[4]).floats;
    float eps = bn.get_float("epsilon", 1e-5f);
    std::size_t channels = scale.size();
    std::string wname;
    Tensor& w = own_constant(g, prod.inputs[1], wname);
    if (w.floats.empty()) continue;
    bool trans_b = is_gemm && prod.get_int("transB", 0) != 0;
    std::size_t out_channels = is_conv ? static_cast<std::size_t>(w.shape[0])
                                       : static_cast<std::size_t>(trans_b ? w.shape[0] : w.shape[1]);
    if (out_channels != channels || beta.size() != channels || mean.size() != channels || var.size() != channels) {
      g.tensors.erase(wname);
      continue;
    }
    float alpha = is_gemm ? prod.get_float("alpha", 1.0f) : 1.0f;
    float gemm_beta = is_gemm ? prod.get_float("beta", 1.0f) : 1.0f;
    std::vector<float> factor(channels);
    for (std::size_t c = 0; c < channels; ++c) factor[c] = scale[c] / std::sqrt(var[c] + eps);
    // Conv weights are [out][...]; Gemm's are [K][N] (or [N][K] with transB).
    std::size_t per = w.floats.size() / channels;
    for (std::size_t i = 0; i < w.floats.size(); ++i) {
      std::size_t c = is_conv || trans_b ? i / per : i % channels;
      w.floats[i] *= factor[c] * alpha;
    }
    std::vector<float> bias(channels, 0.0f);
    if (prod.inputs.size() > 2 && !prod.inputs[2].empty()) {
      const Tensor& b = g.tensor(prod.inputs[2]);
      if (b.floats.size() != channels) {  // a Gemm bias broadcast otherwise: leave it
        g.tensors.erase(wname);
        continue;
      }
      for (std::size_t c = 0; c < channels; ++c) bias[c] = b.floats[c] * gemm_beta;
    }
    for (std::size_t c = 0; c < channels; ++c) bias[c] = (bias[c] - mean[c]) * factor[c] + beta[c];
    std::string bname = g.unique_name(prod.name + "_bias_folded");
    g.add_constant(bname, {static_cast<std::int64_t>(channels)}, bias);
    prod.inputs.resize(3);
    prod.inputs[1] = wname;
    prod.inputs[2] = bname;
    if (is_gemm) {
      prod.set_float("alpha", 1.0f);
      prod.set_float("beta", 1.0f);
    }
    prod.outputs[0] = bn.outputs[0];
    prod.fused_nodes.push_back(bn.name);
    g.nodes.erase(g.nodes.begin() + static_cast<long>(bi));
    --bi;
    ++folded;
  }
  return "folded " + std::to_string(folded) + " BatchNormalization";
}

}  // namespace npu::compiler
