#include "compiler/quant/quantization_stage.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "compiler/passes/passes.h"
#include "compiler/quant/calibration_statistics.h"
#include "compiler/quant/host_node_runner.h"
#include "compiler/quant/mixed_precision.h"
#include "compiler/quant/quantize.h"

namespace npu::compiler {

namespace {

// Zero point 0 and the scale that covers the same magnitude: lo..hi -> -t..t.
QuantParams symmetric(QuantParams q) {
  const double lo = q.scale * (-128.0 - q.zero_point), hi = q.scale * (127.0 - q.zero_point);
  const double t = std::max(std::fabs(lo), std::fabs(hi));
  q.scale = static_cast<float>(std::max(t, 1e-6) / 127.0);
  q.zero_point = 0;
  return q;
}

void make_symmetric(Graph& g) {
  for (auto& [name, t] : g.tensors)
    if (!t.is_constant && t.quant.scale > 0.0f) t.quant = symmetric(t.quant);
  for (auto& n : g.nodes)
    for (const std::string prefix : {"acc", "act"}) {
      if (!n.has(prefix + "_scale")) continue;
      QuantParams q;
      q.scale = n.get_float(prefix + "_scale", 1.0f);
      q.zero_point = static_cast<std::int32_t>(n.get_int(prefix + "_zero_point", 0));
      q = symmetric(q);
      n.set_float(prefix + "_scale", q.scale);
      n.set_int(prefix + "_zero_point", q.zero_point);
    }
}

// The per-image pieces of a batched value (passes/batch_split.cpp) and the value itself take the
// union of their ranges: each piece saw only its own image of every calibration batch, and one
// set of parameters for all keeps an image's result independent of its place in the batch.
void share_batch_ranges(ValueRanges& ranges) {
  ValueRanges merged;
  for (const auto& [name, r] : ranges) {
    const std::string base = batch_image_base(name);
    if (base.empty()) continue;
    auto [it, fresh] = merged.try_emplace(base, r);
    if (!fresh) it->second = {std::min(it->second.first, r.first), std::max(it->second.second, r.second)};
  }
  for (auto& [base, r] : merged) {
    const auto whole = ranges.find(base);
    if (whole != ranges.end()) r = {std::min(r.first, whole->second.first), std::max(r.second, whole->second.second)};
  }
  for (auto& [name, r] : ranges) {
    const std::string base = batch_image_base(name);
    const auto m = merged.find(base.empty() ? name : base);
    if (m != merged.end()) r = m->second;
  }
}

// A QDQ model's own ranges (qdq_import.h) stand; calibration fills the values it leaves out.
ValueRanges ranges_by_method(const CalibrationStatistics& stats, const QuantOptions& q, const Graph& g) {
  ValueRanges ranges;
  for (const auto& [name, h] : stats)
    ranges[name] = clipping_range(h, q.method, q.percentile, q.symmetric_activations);
  for (const auto& [name, r] : g.qdq_ranges) ranges[name] = r;
  share_batch_ranges(ranges);
  return ranges;
}

}  // namespace

bool runs_in_fp16(const Node& n) { return n.get_string("precision", "") == "fp16"; }

namespace {

// Why the first value of `node` without a range has none: calibration's line for it.
std::string unmeasured_reason(const UnmeasuredValues& unmeasured, const Graph& g, const std::string& node) {
  for (const auto& n : g.nodes) {
    if (n.name != node) continue;
    for (const auto& v : n.inputs) {
      const auto why = unmeasured.find(v);
      if (why != unmeasured.end()) return why->second;
    }
    for (const auto& v : n.outputs) {
      const auto why = unmeasured.find(v);
      if (why != unmeasured.end()) return why->second;
    }
  }
  return "no calibration run computed them";
}

}  // namespace

Calibration calibrate(const Graph& unfused, const CompileOptions& options, std::vector<std::string>& warnings) {
  const QuantOptions& q = options.quant;
  Calibration c;
  c.samples = calibration_inputs(unfused, options, warnings);
  const auto stats = collect_statistics(unfused, c.samples, q.method != CalibrationMethod::MinMax,
                                        host_node_runner(unfused, options.host_runner), &c.unmeasured);
  c.ranges = ranges_by_method(stats, q, unfused);
  c.qdq_values = unfused.qdq_ranges.size();
  return c;
}

std::string quantize_graph(Graph& g, const Graph& unfused, const CompileOptions& options, CompiledModel& model,
                           const NpuQuestions& npu) {
  return quantize_graph(g, calibrate(unfused, options, model.warnings), options, model, npu);
}

std::string quantize_graph(Graph& g, const Calibration& calibration, const CompileOptions& options, CompiledModel& model,
                           const NpuQuestions& npu) {
  const QuantOptions& q = options.quant;
  const std::vector<TensorMap>& samples = calibration.samples;
  const ValueRanges& ranges = calibration.ranges;
  UnmeasuredValues unmeasured = calibration.unmeasured;
  // Layers after an op calibration could not run have no int8 range: fp16 on the NPU where they
  // can, so that one op costs only itself (and the CPU only where fp16 cannot go either).
  auto fp16_capable = [&](const Node& n) { return npu.fp16_rejection && npu.fp16_rejection(g, n).empty(); };
  std::vector<std::string> unranged_fp16;
  auto moved = assign_quantization(g, ranges, &unmeasured, fp16_capable, &unranged_fp16);
  for (const auto& name : moved)
    for (const auto& n : g.nodes)
      if (n.name == name) {
        if (options.strict)
          throw CompileError(g.source + ": --strict: node '" + n.name + "' (" + n.op_type +
                             ") would fall back to the CPU: " + n.fallback_reason);
        model.fallbacks.push_back({n.name, n.op_type, n.fallback_reason});
      }
  if (!moved.empty()) assign_quantization(g, ranges, &unmeasured, fp16_capable, &unranged_fp16);
  if (q.symmetric_activations) make_symmetric(g);

  QuantizationRecord& record = model.quantization;
  record.scheme = describe_quant_options(q);
  if (calibration.qdq_values > 0)
    record.scheme = "the model's QDQ parameters for " + std::to_string(calibration.qdq_values) + " values, " + record.scheme +
                    " for the rest";
  record.calibration_samples = static_cast<std::uint32_t>(samples.size());
  std::string detail = record.scheme + " from " + std::to_string(samples.size()) + " calibration samples";
  if (!unranged_fp16.empty()) {
    record.fp16_layers = unranged_fp16;
    detail += "; " + std::to_string(unranged_fp16.size()) + " layer(s) in fp16 for want of an int8 range (after an op calibration could not run)";
    model.warnings.push_back(g.source + ": " + std::to_string(unranged_fp16.size()) + " layer(s) from '" + unranged_fp16.front() +
                             "' on run in fp16 on the NPU: int8 calibration has no range for them (" +
                             unmeasured_reason(unmeasured, g, unranged_fp16.front()) + ")");
  }
  const auto forced = resolve_fp16_names(g, q.keep_fp16, npu.fp16_rejection);
  if (!q.mixed && forced.empty()) return detail;

  AccuracyTarget target = q.target;
  if (q.mixed && !target.set()) target = parse_accuracy_target("cosine=0.99");
  CostModelFactory cost_model;
  if (npu.promotion_cost && q.mixed)
    cost_model = [&](const std::vector<std::string>& candidates) { return npu.promotion_cost(g, candidates); };
  MixedPrecisionChoice choice =
      choose_fp16_layers(g, samples, q.mixed ? target : AccuracyTarget{}, forced, npu.fp16_rejection, cost_model,
                         host_node_runner(g, options.host_runner));
  record.fp16_layers.insert(record.fp16_layers.end(), choice.forced.begin(), choice.forced.end());
  record.fp16_layers.insert(record.fp16_layers.end(), choice.promoted.begin(), choice.promoted.end());
  record.forced_fp16 = static_cast<std::uint32_t>(choice.forced.size());
  record.accuracy_target = q.mixed ? accuracy_target_text(target) : "";
  record.all_int8_cosine = choice.all_int8.cosine;
  record.all_int8_sqnr_db = choice.all_int8.sqnr_db;
  record.reached_cosine = choice.reached.cosine;
  record.reached_sqnr_db = choice.reached.sqnr_db;
  for (auto& n : g.nodes)
    if (std::find(record.fp16_layers.begin(), record.fp16_layers.end(), n.name) != record.fp16_layers.end())
      n.set_string("precision", "fp16");
  detail += "; " + std::to_string(record.fp16_layers.size()) + " layer(s) in fp16";
  if (choice.held_out_samples > 0)
    detail += "; " + describe(choice.held_out, target) + " on " + std::to_string(choice.held_out_samples) +
              " held-out sample(s)" +
              (choice.added_for_held_out ? " (" + std::to_string(choice.added_for_held_out) + " layer(s) added to reach it)" : "") +
              (choice.target_met ? "" : ", below the target");
  if (!choice.target_met)
    model.warnings.push_back("--accuracy-target " + accuracy_target_text(target) + " is met on the calibration samples but not on the " +
                             std::to_string(choice.held_out_samples) + " held out of the search (" + describe(choice.held_out, target) +
                             " with every fp16-capable layer promoted): give more representative --calib data");
  if (choice.estimated_int8_cycles > 0) {
    char cost[96];
    std::snprintf(cost, sizeof cost, " (cost model: %+.1f %% NPU cycles against all int8, %zu evaluations)",
                  100.0 * (choice.estimated_cycles / choice.estimated_int8_cycles - 1.0), choice.evaluations);
    detail += cost;
  }
  return detail;
}

}  // namespace npu::compiler
