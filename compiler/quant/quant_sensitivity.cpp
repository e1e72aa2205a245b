#include "compiler/quant/quant_sensitivity.h"

#include <algorithm>
#include <set>


namespace npu::compiler {

namespace {

void worst_of(ModelAgreement& m, const Agreement& a) {
  m.cosine = std::min(m.cosine, a.cosine());
  m.sqnr_db = std::min(m.sqnr_db, a.sqnr_db());
}

// One sample's outputs against their reference, folded into `m` output by output. An output
// missing from `result` is read from `fallback` (the values a partial run left unchanged).
void compare_outputs(const Graph& g, const TensorMap& reference, const TensorMap& result, ModelAgreement& m,
                     const TensorMap* fallback = nullptr) {
  for (const auto& o : g.outputs) {
    auto r = reference.find(o);
    if (r == reference.end()) continue;
    const FloatTensor* q = nullptr;
    if (auto it = result.find(o); it != result.end()) q = &it->second;
    else if (fallback)
      if (auto f = fallback->find(o); f != fallback->end()) q = &f->second;
    if (!q) continue;
    Agreement a;
    a.add(r->second.data, q->data);
    worst_of(m, a);
  }
}

}  // namespace

std::vector<std::size_t> quantised_layers(const Graph& g) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.device != Node::Device::Npu || !is_precision_layer(n) || n.outputs.empty()) continue;
    if (!g.tensor(n.outputs[0]).quant.valid()) continue;
    out.push_back(i);
  }
  return out;
}

ModelAgreement model_agreement(const QuantSimulator& sim, const std::vector<TensorMap>& samples,
                               const std::vector<TensorMap>& reference, const std::vector<LayerMode>& modes) {
  ModelAgreement m;
  for (std::size_t s = 0; s < samples.size(); ++s)
    compare_outputs(sim.graph(), reference[s], sim.run(samples[s], modes, false), m);
  return m;
}

SensitivityReport analyse_sensitivity(const QuantSimulator& sim, const std::vector<TensorMap>& samples,
                                      const Fp16Rejection& fp16_rejection) {
  const Graph& g = sim.graph();
  const auto layers = quantised_layers(g);
  const std::vector<LayerMode> fp32(g.nodes.size(), LayerMode::Float);
  const std::vector<LayerMode> int8 = resolve_layer_modes(g, {});
  SensitivityReport report;
  report.samples = samples.size();
  std::vector<Agreement> alone(layers.size()), cumulative(layers.size());
  std::vector<ModelAgreement> model(layers.size());
  for (const auto& sample : samples) {
    const TensorMap reference = sim.run(sample, fp32, true);
    const TensorMap quantised = sim.run(sample, int8, true);
    compare_outputs(g, reference, quantised, report.all_int8);
    for (std::size_t k = 0; k < layers.size(); ++k) {
      const std::size_t i = layers[k];
      const std::string& out = g.nodes[i].outputs[0];
      auto ref = reference.find(out);
      if (ref == reference.end()) continue;
      auto q = quantised.find(out);
      if (q != quantised.end()) cumulative[k].add(ref->second.data, q->second.data);
      std::vector<LayerMode> modes = fp32;
      modes[i] = int8[i];
      const TensorMap changed = sim.run(sample, modes, true, &reference, i);
      auto own = changed.find(out);
      if (own != changed.end()) alone[k].add(ref->second.data, own->second.data);
      compare_outputs(g, reference, changed, model[k], &reference);
    }
  }
  for (std::size_t k = 0; k < layers.size(); ++k) {
    const Node& n = g.nodes[layers[k]];
    LayerSensitivity l;
    l.layer = n.name;
    l.op = n.get_string("pattern", n.op_type);
    l.node = layers[k];
    l.fp16_capable = fp16_rejection(g, n).empty();
    l.alone_sqnr_db = alone[k].sqnr_db();
    l.alone_cosine = alone[k].cosine();
    l.cumulative_sqnr_db = cumulative[k].sqnr_db();
    l.cumulative_cosine = cumulative[k].cosine();
    l.model_alone = model[k];
    report.layers.push_back(l);
  }
  return report;
}

}  // namespace npu::compiler
