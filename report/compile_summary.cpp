#include "report/compile_summary.h"

#include <fmt/format.h>

namespace npu::report {

std::string format_passes(const container::CompiledModel& model) {
  std::string s = fmt::format("{:<24} {:>8} {:>8}  {}\n", "pass", "before", "after", "detail");
  for (const auto& p : model.passes)
    s += fmt::format("{:<24} {:>8} {:>8}  {}\n", p.pass, p.nodes_before, p.nodes_after, p.detail);
  return s;
}

std::string format_mappings(const container::CompiledModel& model) {
  std::string s;
  for (const auto& l : model.layers)
    if (!l.mapping.empty()) s += fmt::format("mapping {}: {}\n", l.name, l.mapping);
  return s;
}

std::string format_compile_summary(const container::CompiledModel& model, const std::string& model_path,
                                   const std::string& out_path) {
  std::size_t npu_steps = 0, cpu_steps = 0, npu_layers = 0;
  for (const auto& step : model.steps) (step.kind == container::Step::Kind::Npu ? npu_steps : cpu_steps)++;
  for (const auto& layer : model.layers) npu_layers += layer.device == "npu";
  std::string s = fmt::format(
      "compiled {} → {} ({}): {} instructions, {} layers ({} on the NPU), {} NPU step(s), {} CPU step(s), "
      "{} NPU↔CPU transition(s)\n",
      model_path, out_path, container::precision_name(model.precision), model.program.code.size(), model.layers.size(),
      npu_layers, npu_steps, cpu_steps, model.npu_cpu_transitions);
  for (const auto& f : model.fallbacks) s += fmt::format("fallback {} ({}): {}\n", f.node, f.op, f.reason);
  s += format_quantization(model.quantization);
  return s;
}

nlohmann::json compile_summary_json(const container::CompiledModel& model, const PlacementSummary& placement,
                                    const HardwareConfig& config, const std::string& model_path,
                                    const std::string& out_path) {
  std::uint64_t cycles = 0;
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& step : model.steps) {
    if (step.kind == container::Step::Kind::Npu) {
      cycles += step.npu.estimated_cycles;
      steps.push_back({{"kind", "npu"},
                       {"first_instruction", step.npu.first_instruction},
                       {"end_instruction", step.npu.end_instruction},
                       {"estimated_cycles", step.npu.estimated_cycles}});
    } else {
      steps.push_back({{"kind", "cpu"}, {"nodes", step.cpu.node_names}, {"flops", step.cpu.flops}});
    }
  }
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& l : model.layers)
    layers.push_back({{"name", l.name}, {"op", l.op}, {"device", l.device}, {"macs", l.macs}, {"mapping", l.mapping}});
  nlohmann::json fallbacks = nlohmann::json::array();
  for (const auto& f : model.fallbacks) fallbacks.push_back({{"node", f.node}, {"op", f.op}, {"reason", f.reason}});
  return {{"model", model_path},
          {"program", out_path},
          {"config", config.name},
          {"precision", container::precision_name(model.precision)},
          {"instructions", model.program.code.size()},
          {"estimated_cycles", cycles},
          {"estimated_npu_us", static_cast<double>(cycles) * config.cycle_ns() / 1000.0},
          {"steps", steps},
          {"placement",
           {{"layers", placement.layers},
            {"npu_layers", placement.npu_layers},
            {"mac_percent", placement.mac_percent()},
            {"npu_time_percent", placement.npu_time_percent()},
            {"npu_us", placement.npu_us},
            {"cpu_us", placement.cpu_us},
            {"transition_us", placement.transition_us},
            {"transfer_us", placement.transfer_us},
            {"cpu_islands", placement.cpu_islands},
            {"transitions", placement.transitions}}},
          {"layers", layers},
          {"fallbacks", fallbacks}};
}

std::string format_quantization(const container::QuantizationRecord& q) {
  if (!q.present()) return "";
  std::string s;
  if (!q.scheme.empty()) s += fmt::format("quantisation: {} from {} calibration sample(s)\n", q.scheme, q.calibration_samples);
  if (!q.weights.empty()) s += fmt::format("weight-only quantisation: {}\n", q.weights);
  if (q.fp16_layers.empty() && q.accuracy_target.empty()) return s;
  std::string forced, promoted;
  for (std::size_t i = 0; i < q.fp16_layers.size(); ++i) {
    std::string& list = i < q.forced_fp16 ? forced : promoted;
    list += (list.empty() ? "" : ", ") + q.fp16_layers[i];
  }
  if (!forced.empty()) s += fmt::format("fp16 layers by --keep-fp16 ({}): {}\n", q.forced_fp16, forced);
  if (!q.accuracy_target.empty())
    s += fmt::format("mixed precision for {}: {} layer(s) promoted to fp16{}{}\n", q.accuracy_target,
                     q.fp16_layers.size() - q.forced_fp16, promoted.empty() ? "" : ": ", promoted);
  s += fmt::format("accuracy against FP32 on the calibration data: all int8 cosine {:.4f} (SQNR {:.1f} dB), "
                   "with the fp16 layers cosine {:.4f} (SQNR {:.1f} dB)\n",
                   q.all_int8_cosine, q.all_int8_sqnr_db, q.reached_cosine, q.reached_sqnr_db);
  return s;
}

std::string format_placement(const PlacementSummary& p) {
  return fmt::format(
      "placement: {} of {} layers, {:.1f} % of MACs, {:.1f} % of simulated time on the NPU, {} CPU island(s), "
      "{} transition(s)\n",
      p.npu_layers, p.layers, p.mac_percent(), p.npu_time_percent(), p.cpu_islands, p.transitions);
}

std::string format_placement_by_op(const PlacementSummary& p) {
  std::string s = fmt::format(
      "placement by op type (estimated time: NPU {:.1f} us from the cost model, CPU {:.1f} us at host.gflops, "
      "transitions {:.1f} us, transfers {:.1f} us)\n",
      p.npu_us, p.cpu_us, p.transition_us, p.transfer_us);
  s += fmt::format("{:<24} {:>6} {:>6}  {}\n", "op", "npu", "cpu", "why not the NPU");
  for (const auto& op : p.ops) {
    std::string why;
    for (const auto& [reason, count] : op.reasons) why += (why.empty() ? "" : "; ") + fmt::format("{} x{}", reason, count);
    s += fmt::format("{:<24} {:>6} {:>6}  {}\n", op.op, op.npu, op.cpu, why);
  }
  return s;
}

}  // namespace npu::report
