#include "compiler/mixed_precision.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "compiler/partition.h"

namespace npu::compiler {

namespace {

// Samples the ranking uses: each layer alone costs a partial run per sample.
constexpr std::size_t kRankingSamples = 8;

double metric(const ModelAgreement& a, const AccuracyTarget& t) {
  return t.metric == AccuracyTarget::Metric::SqnrDb ? a.sqnr_db : a.cosine;
}

std::string name_list(const std::vector<std::string>& names, std::size_t shown = 8) {
  std::string s;
  for (std::size_t i = 0; i < names.size() && i < shown; ++i) s += (i ? ", " : "") + names[i];
  if (names.size() > shown) s += ", and " + std::to_string(names.size() - shown) + " more";
  return s;
}

}  // namespace

bool meets(const ModelAgreement& a, const AccuracyTarget& t) { return !t.set() || metric(a, t) >= t.value; }

std::string describe(const ModelAgreement& a, const AccuracyTarget& t) {
  char buf[64];
  if (t.metric == AccuracyTarget::Metric::SqnrDb) std::snprintf(buf, sizeof buf, "SQNR %.1f dB", a.sqnr_db);
  else std::snprintf(buf, sizeof buf, "cosine %.4f", a.cosine);
  return buf;
}

std::vector<std::string> resolve_fp16_names(const Graph& g, const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const auto& name : names) {
    const Node* found = nullptr;
    for (const auto& n : g.nodes)
      if (n.name == name || std::find(n.fused_nodes.begin(), n.fused_nodes.end(), name) != n.fused_nodes.end()) {
        found = &n;
        break;
      }
    if (!found) throw CompileError(g.source + ": --keep-fp16: no layer or ONNX node named '" + name + "'");
    const Node& n = *found;
    const std::string which = "--keep-fp16: '" + name + "'" + (n.name == name ? "" : " (fused into layer '" + n.name + "')");
    if (n.device != Node::Device::Npu)
      throw CompileError(g.source + ": " + which + " runs on the CPU, in FP32, already");
    if (!is_precision_layer(n))
      throw CompileError(g.source + ": " + which + " is data movement (" + n.op_type +
                         "), which carries its input's precision");
    const std::string why = npu_rejection(g, n, Precision::Fp16);
    if (!why.empty()) throw CompileError(g.source + ": " + which + " cannot run in fp16 on the NPU: " + why);
    if (std::find(out.begin(), out.end(), n.name) == out.end()) out.push_back(n.name);
  }
  return out;
}

MixedPrecisionChoice choose_fp16_layers(const Graph& g, const std::vector<TensorMap>& samples,
                                        const AccuracyTarget& target, const std::vector<std::string>& forced) {
  QuantSimulator sim(g);
  const std::vector<LayerMode> fp32(g.nodes.size(), LayerMode::Float);
  std::vector<TensorMap> reference;
  for (const auto& s : samples) reference.push_back(sim.run(s, fp32, false));
  MixedPrecisionChoice choice;
  choice.forced = forced;
  std::map<std::size_t, ModelAgreement> tried;  // promotions -> agreement
  std::vector<std::string> ranking;
  auto evaluate = [&](std::size_t k) {
    auto it = tried.find(k);
    if (it != tried.end()) return it->second;
    std::set<std::string> fp16(forced.begin(), forced.end());
    fp16.insert(ranking.begin(), ranking.begin() + static_cast<long>(k));
    return tried[k] = model_agreement(sim, samples, reference, resolve_layer_modes(g, fp16));
  };
  choice.reached = evaluate(0);
  choice.all_int8 = forced.empty() ? choice.reached : model_agreement(sim, samples, reference, resolve_layer_modes(g, {}));
  if (meets(choice.reached, target)) return choice;

  const std::vector<TensorMap> ranking_samples(samples.begin(),
                                               samples.begin() + static_cast<long>(std::min(samples.size(), kRankingSamples)));
  SensitivityReport report = analyse_sensitivity(sim, ranking_samples);
  std::vector<LayerSensitivity> candidates;
  for (const auto& l : report.layers)
    if (l.fp16_capable && std::find(forced.begin(), forced.end(), l.layer) == forced.end()) candidates.push_back(l);
  std::stable_sort(candidates.begin(), candidates.end(), [&](const LayerSensitivity& a, const LayerSensitivity& b) {
    const double ma = metric(a.model_alone, target), mb = metric(b.model_alone, target);
    if (ma != mb) return ma < mb;
    return a.alone_sqnr_db < b.alone_sqnr_db;
  });
  for (const auto& c : candidates) ranking.push_back(c.layer);
  choice.candidates = ranking.size();
  const ModelAgreement none_promoted = tried.at(0);
  tried.clear();  // `ranking` is now set: prefix k means its first k
  tried[0] = none_promoted;
  const ModelAgreement all = evaluate(ranking.size());
  if (!meets(all, target)) {
    throw CompileError(g.source + ": --accuracy-target " + accuracy_target_text(target) +
                       " is out of reach on the calibration data: the best is " + describe(all, target) + " with " +
                       std::to_string(ranking.size() + forced.size()) + " layer(s) promoted to fp16 (" +
                       name_list(ranking) + "); all int8 gives " + describe(choice.all_int8, target));
  }
  std::size_t lo = 0, hi = ranking.size();  // lo misses the target, hi meets it
  while (hi - lo > 1) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (meets(evaluate(mid), target)) hi = mid;
    else lo = mid;
  }
  choice.promoted.assign(ranking.begin(), ranking.begin() + static_cast<long>(hi));
  choice.reached = evaluate(hi);
  return choice;
}

}  // namespace npu::compiler
