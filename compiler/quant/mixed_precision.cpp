#include "compiler/quant/mixed_precision.h"

#include "compiler/passes/passes.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <cstdio>
#include <map>


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


// Evaluations the forward and the backward pass may each spend (each runs every sample), and the smallest change of
// the program's cycles the forward and backward passes measure a promotion for.
constexpr std::size_t kPruningEvaluations = 16;
constexpr double kWorthwhileCycles = 0.001;  // of the program's

// The output noise a layer alone adds, relative to the signal (10^(-SQNR/10)): what promoting
// it is expected to remove; independent noises add up, which is what makes a ratio meaningful.
double noise(const LayerSensitivity& l) { return std::pow(10.0, -l.model_alone.sqnr_db / 10.0); }

// The promotion order by expected noise removed per added cycle, each step's cost taken with
// the promotions before it (an fp16 layer next to fp16 ones saves their converters), the
// layers that remove no noise last, by sensitivity.
std::vector<std::string> cost_ranking(const std::vector<LayerSensitivity>& by_sensitivity,
                                      const PromotionCost& cost, const std::set<std::string>& forced) {
  std::set<std::string> chosen = forced;
  std::vector<const LayerSensitivity*> left;
  for (const auto& l : by_sensitivity) left.push_back(&l);
  std::vector<std::string> order;
  double now = cost.cycles(chosen);
  while (!left.empty()) {
    std::size_t best = left.size();
    double best_ratio = 0, best_noise = 0;
    for (std::size_t i = 0; i < left.size(); ++i) {
      const double gain = noise(*left[i]);
      if (!(gain > 0)) continue;
      chosen.insert(left[i]->layer);
      const double added = cost.cycles(chosen) - now;
      chosen.erase(left[i]->layer);
      const double ratio = added <= 0 ? std::numeric_limits<double>::infinity() : gain / added;
      if (best == left.size() || ratio > best_ratio || (ratio == best_ratio && gain > best_noise)) {
        best = i;
        best_ratio = ratio;
        best_noise = gain;
      }
    }
    if (best == left.size()) break;  // the rest remove no noise
    order.push_back(left[best]->layer);
    chosen.insert(left[best]->layer);
    now = cost.cycles(chosen);
    left.erase(left.begin() + static_cast<long>(best));
  }
  for (const auto* l : left) order.push_back(l->layer);
  return order;
}
}  // namespace

bool meets(const ModelAgreement& a, const AccuracyTarget& t) { return !t.set() || metric(a, t) >= t.value; }

std::string describe(const ModelAgreement& a, const AccuracyTarget& t) {
  char buf[64];
  if (t.metric == AccuracyTarget::Metric::SqnrDb) std::snprintf(buf, sizeof buf, "SQNR %.1f dB", a.sqnr_db);
  else std::snprintf(buf, sizeof buf, "cosine %.4f", a.cosine);
  return buf;
}

std::vector<std::string> resolve_fp16_names(const Graph& g, const std::vector<std::string>& names,
                                            const Fp16Rejection& fp16_rejection) {
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
    const std::string why = fp16_rejection(g, n);
    if (!why.empty()) throw CompileError(g.source + ": " + which + " cannot run in fp16 on the NPU: " + why);
    if (std::find(out.begin(), out.end(), n.name) == out.end()) out.push_back(n.name);
    // The other images' copies of a batched layer (passes/batch_split.cpp) go with it.
    const std::string base = batch_image_base(n.name);
    if (!base.empty())
      for (const auto& copy : g.nodes)
        if (batch_image_base(copy.name) == base && std::find(out.begin(), out.end(), copy.name) == out.end())
          out.push_back(copy.name);
  }
  return out;
}

namespace {

// The search on one set of samples (choose_fp16_layers holds some back to check it).
MixedPrecisionChoice search_fp16_layers(const Graph& g, const std::vector<TensorMap>& samples, const AccuracyTarget& target,
                                        const std::vector<std::string>& forced, const Fp16Rejection& fp16_rejection,
                                        const CostModelFactory& make_cost_model, const NodeRunner& host) {
  QuantSimulator sim(g, host);
  const std::vector<LayerMode> fp32(g.nodes.size(), LayerMode::Float);
  std::vector<TensorMap> reference;
  for (const auto& s : samples) reference.push_back(sim.run(s, fp32, false));
  MixedPrecisionChoice choice;
  choice.forced = forced;
  std::map<std::set<std::string>, ModelAgreement> tried;
  auto evaluate = [&](const std::set<std::string>& promoted) {
    auto it = tried.find(promoted);
    if (it != tried.end()) return it->second;
    std::set<std::string> fp16(forced.begin(), forced.end());
    fp16.insert(promoted.begin(), promoted.end());
    ++choice.evaluations;
    return tried[promoted] = model_agreement(sim, samples, reference, resolve_layer_modes(g, fp16));
  };
  choice.reached = evaluate({});
  choice.all_int8 = forced.empty() ? choice.reached : model_agreement(sim, samples, reference, resolve_layer_modes(g, {}));
  if (meets(choice.reached, target)) return choice;

  const std::vector<TensorMap> ranking_samples(samples.begin(),
                                               samples.begin() + static_cast<long>(std::min(samples.size(), kRankingSamples)));
  SensitivityReport report = analyse_sensitivity(sim, ranking_samples, fp16_rejection);
  std::vector<LayerSensitivity> candidates;
  for (const auto& l : report.layers)
    if (l.fp16_capable && std::find(forced.begin(), forced.end(), l.layer) == forced.end()) candidates.push_back(l);
  std::stable_sort(candidates.begin(), candidates.end(), [&](const LayerSensitivity& a, const LayerSensitivity& b) {
    const double ma = metric(a.model_alone, target), mb = metric(b.model_alone, target);
    if (ma != mb) return ma < mb;
    return a.alone_sqnr_db < b.alone_sqnr_db;
  });
  choice.candidates = candidates.size();
  std::vector<std::string> by_sensitivity;
  for (const auto& c : candidates) by_sensitivity.push_back(c.layer);

  std::unique_ptr<PromotionCost> cost;
  if (make_cost_model) cost = make_cost_model(by_sensitivity);
  const std::set<std::string> forced_set(forced.begin(), forced.end());
  auto with_forced = [&](std::set<std::string> s) {
    s.insert(forced.begin(), forced.end());
    return s;
  };
  const std::vector<std::string> ranking = cost ? cost_ranking(candidates, *cost, forced_set) : by_sensitivity;
  choice.ranking = ranking;
  auto prefix = [&](std::size_t k) { return std::set<std::string>(ranking.begin(), ranking.begin() + static_cast<long>(k)); };

  const ModelAgreement all = evaluate(prefix(ranking.size()));
  if (!meets(all, target)) {
    throw CompileError(g.source + ": --accuracy-target " + accuracy_target_text(target) +
                       " is out of reach on the calibration data: the best is " + describe(all, target) + " with " +
                       std::to_string(ranking.size() + forced.size()) + " layer(s) promoted to fp16 (" +
                       name_list(by_sensitivity) + "); all int8 gives " + describe(choice.all_int8, target));
  }
  std::size_t lo = 0, hi = ranking.size();  // lo misses the target, hi meets it
  while (hi - lo > 1) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (meets(evaluate(prefix(mid)), target)) hi = mid;
    else lo = mid;
  }
  std::set<std::string> promoted = prefix(hi);
  if (cost) {
    // Forward pass: a layer whose promotion makes the program cheaper (it joins fp16 neighbours,
    // and its output's converter is smaller than theirs) goes in, if the target still holds.
    std::size_t tests = 0;
    for (bool grew = true; grew && tests < kPruningEvaluations;) {
      grew = false;
      const double now = cost->cycles(with_forced(promoted));
      std::vector<std::pair<double, std::string>> cheaper;
      for (const auto& l : ranking) {
        if (promoted.count(l)) continue;
        auto with = promoted;
        with.insert(l);
        const double saved = now - cost->cycles(with_forced(with));
        if (saved > kWorthwhileCycles * now) cheaper.emplace_back(saved, l);
      }
      std::sort(cheaper.rbegin(), cheaper.rend());
      for (const auto& [saved, l] : cheaper) {
        if (tests++ == kPruningEvaluations) break;
        auto with = promoted;
        with.insert(l);
        if (meets(evaluate(with), target)) {
          promoted = with;
          grew = true;
          break;
        }
      }
    }
    // Backward pass: the promotions the target does not need go, one at a time, those whose
    // removal saves the most first (removing a layer between two fp16 ones can cost more, in
    // converters, than it saves: those stay).
    std::vector<std::pair<double, std::string>> by_cost;
    const double now = cost->cycles(with_forced(promoted));
    for (const auto& l : promoted) {
      auto without = promoted;
      without.erase(l);
      const double saved = now - cost->cycles(with_forced(without));
      if (saved > 0) by_cost.emplace_back(saved, l);
    }
    std::sort(by_cost.rbegin(), by_cost.rend());
    std::vector<std::string> order;
    for (const auto& [ignored, l] : by_cost) order.push_back(l);
    tests = 0;
    for (const auto& l : order) {
      if (tests == kPruningEvaluations) break;
      auto without = promoted;
      without.erase(l);
      const double current = cost->cycles(with_forced(promoted));
      if (current - cost->cycles(with_forced(without)) <= 0) continue;
      ++tests;
      if (meets(evaluate(without), target)) promoted = without;
    }
    choice.estimated_int8_cycles = cost->program_cycles(forced_set);
    choice.estimated_cycles = cost->program_cycles(with_forced(promoted));
  }
  for (const auto& l : ranking)
    if (promoted.count(l)) choice.promoted.push_back(l);
  choice.reached = evaluate(promoted);
  return choice;
}

// The target with a margin for inputs the choice was not made on: a quarter of the error the
// target allows (cosine 0.99 -> 0.9925), or 1 dB of SQNR.
AccuracyTarget with_margin(AccuracyTarget t) {
  if (!t.set()) return t;
  if (t.metric == AccuracyTarget::Metric::SqnrDb) t.value += 1.0;
  else t.value = 1.0 - (1.0 - t.value) * 0.75;
  return t;
}

}  // namespace

MixedPrecisionChoice choose_fp16_layers(const Graph& g, const std::vector<TensorMap>& samples,
                                        const AccuracyTarget& target, const std::vector<std::string>& forced,
                                        const Fp16Rejection& fp16_rejection, const CostModelFactory& make_cost_model,
                                        const NodeRunner& host) {
  // With four samples or more, the last quarter is held out: the search meets the target with a
  // margin on the others, and the held-out ones must meet the target itself, or the ranking's
  // next layers are promoted until they do.
  const std::size_t held = target.set() && samples.size() >= 4 ? samples.size() / 4 : 0;
  if (held == 0) return search_fp16_layers(g, samples, target, forced, fp16_rejection, make_cost_model, host);
  const std::vector<TensorMap> search(samples.begin(), samples.end() - static_cast<long>(held));
  const std::vector<TensorMap> check(samples.end() - static_cast<long>(held), samples.end());
  MixedPrecisionChoice choice;
  try {
    choice = search_fp16_layers(g, search, with_margin(target), forced, fp16_rejection, make_cost_model, host);
  } catch (const CompileError&) {  // the margin is out of reach: the target itself
    choice = search_fp16_layers(g, search, target, forced, fp16_rejection, make_cost_model, host);
  }
  QuantSimulator sim(g, host);
  const std::vector<LayerMode> fp32(g.nodes.size(), LayerMode::Float);
  std::vector<TensorMap> reference;
  for (const auto& s : check) reference.push_back(sim.run(s, fp32, false));
  auto on_held_out = [&](const std::vector<std::string>& promoted) {
    std::set<std::string> fp16(forced.begin(), forced.end());
    fp16.insert(promoted.begin(), promoted.end());
    ++choice.evaluations;
    return model_agreement(sim, check, reference, resolve_layer_modes(g, fp16));
  };
  choice.held_out_samples = held;
  choice.held_out = on_held_out(choice.promoted);
  for (const auto& layer : choice.ranking) {
    if (meets(choice.held_out, target)) break;
    if (std::find(choice.promoted.begin(), choice.promoted.end(), layer) != choice.promoted.end()) continue;
    choice.promoted.push_back(layer);
    choice.held_out = on_held_out(choice.promoted);
    ++choice.added_for_held_out;
  }
  choice.target_met = meets(choice.held_out, target);
  return choice;
}

}  // namespace npu::compiler
