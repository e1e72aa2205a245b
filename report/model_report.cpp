#include "report/model_report.h"

#include <set>

#include <fmt/format.h>

#include "report/layer_table.h"
#include "report/roofline.h"
#include "report/sim_summary.h"

namespace npu::report {

namespace {

nlohmann::json step_json(const runtime::StepReport& s) {
  nlohmann::json j = {{"kind", s.kind}, {"start_us", s.start_us}};
  if (s.kind == "npu") {
    j["first_instruction"] = s.first_instruction;
    j["end_instruction"] = s.end_instruction;
    j["cycles"] = s.cycles;
  } else {
    j["nodes"] = s.nodes;
    j["host_us"] = s.host_us;
  }
  return j;
}

double share(double part, double whole) { return whole > 0 ? part / whole : 0.0; }

// CPU layers share their step's host time by MACs (evenly when none has MACs).
void assign_cpu_layer_time(const container::CompiledModel& model, const HardwareConfig& config,
                           std::vector<LayerTiming>& layers) {
  for (const auto& step : model.steps) {
    if (step.kind != container::Step::Kind::Cpu) continue;
    const std::set<std::string> nodes(step.cpu.node_names.begin(), step.cpu.node_names.end());
    std::vector<LayerTiming*> members;
    std::uint64_t macs = 0;
    for (std::size_t i = 0; i < layers.size(); ++i) {
      const auto& record = model.layers[i];
      bool member = record.device == "cpu" && nodes.count(record.name);
      for (const auto& n : record.fused_nodes) member |= record.device == "cpu" && nodes.count(n);
      if (!member) continue;
      members.push_back(&layers[i]);
      macs += layers[i].macs;
    }
    const double step_us = runtime::cpu_compute_us(step.cpu.flops, config.host);
    for (auto* layer : members) {
      layer->host_us = macs ? step_us * static_cast<double>(layer->macs) / static_cast<double>(macs)
                            : step_us / static_cast<double>(members.size());
      layer->cycles = static_cast<std::uint64_t>(std::llround(layer->host_us * config.clock.frequency_mhz));
    }
  }
}

}  // namespace

ModelReport build_model_report(const container::CompiledModel& model, const HardwareConfig& config,
                               runtime::RunRecord run) {
  ModelReport report;
  static_cast<runtime::RunRecord&>(report) = std::move(run);
  report.layers = attribute_layers(model.layers, model.program, report.npu.instructions, engine_of_instructions(model));
  assign_cpu_layer_time(model, config, report.layers);
  return report;
}

nlohmann::json model_report_json(const ModelReport& r, const HardwareConfig& config) {
  nlohmann::json j = sim_report_json(r.npu, config);
  j["model"] = r.model;
  j["precision"] = r.precision;
  if (r.quantization.present()) {
    const auto& q = r.quantization;
    j["quantization"] = {{"scheme", q.scheme},
                         {"calibration_samples", q.calibration_samples},
                         {"fp16_layers", q.fp16_layers},
                         {"forced_fp16", q.forced_fp16},
                         {"accuracy_target", q.accuracy_target},
                         {"all_int8_cosine", q.all_int8_cosine},
                         {"reached_cosine", q.reached_cosine},
                         {"weights", q.weights}};
  }
  j["device"] = r.device;
  j["timing_only"] = r.timing_only;
  j["npu_latency_us"] = r.npu.latency_us;
  j["latency_us"] = r.latency_us();
  j["host"] = {
      {"time_us", r.host.total_us()},
      {"compute_us", r.host.compute_us},
      {"transition_us", r.host.transition_us},
      {"transfer_us", r.host.transfer_us},
      {"launch_us", r.host.launch_us},
      {"dispatch_us", r.host.dispatch_us},
      {"cpu_flops", r.cpu_flops},
      {"gflops", config.host.gflops},
      {"memcpy_gbps", config.host.memcpy_gbps},
      {"us_per_transition", config.host.transition_us},
  };
  const double total = r.latency_us();
  j["time"] = {
      {"npu_us", r.npu.latency_us},
      {"cpu_fallback_us", r.host.compute_us},
      {"transfer_us", r.host.overhead_us()},
      {"npu_share", share(r.npu.latency_us, total)},
      {"cpu_fallback_share", share(r.host.compute_us, total)},
      {"transfer_share", share(r.host.overhead_us(), total)},
  };
  std::uint64_t compulsory = 0, spill = 0;
  for (const auto& l : r.layers) {
    compulsory += l.compulsory_ddr_bytes;
    spill += l.spill_ddr_bytes;
  }
  j["ddr"]["compulsory_bytes"] = compulsory;
  j["ddr"]["spill_bytes"] = spill;
  j["overlap_efficiency"] = overlap_efficiency(r.layers, config, r.npu.cycles);
  j["transitions"] = r.transitions;
  j["transfer_bytes"] = r.transfer_bytes;
  j["io_bytes"] = r.io_bytes;

  nlohmann::json steps = nlohmann::json::array();
  for (const auto& s : r.steps) steps.push_back(step_json(s));
  j["steps"] = steps;
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& l : r.layers) layers.push_back(layer_json(l, config));
  j["layers"] = layers;
  nlohmann::json fallbacks = nlohmann::json::array();
  for (const auto& f : r.fallbacks) fallbacks.push_back({{"node", f.node}, {"op", f.op}, {"reason", f.reason}});
  j["fallbacks"] = fallbacks;
  nlohmann::json conversions = nlohmann::json::array();
  for (const auto& c : r.conversions)
    conversions.push_back({{"tensor", c.tensor}, {"role", c.role}, {"from", c.from}, {"to", c.to},
                           {"detail", c.detail}, {"bytes", c.bytes}, {"converted", c.converted}, {"text", c.text()}});
  j["conversions"] = conversions;
  j["notes"] = r.notes;
  j["warnings"] = r.warnings;
  return j;
}

std::string format_model_report(const ModelReport& r, const HardwareConfig& config, const ReportFormat& format) {
  std::string s;
  auto line = [&](auto&&... args) {
    s += fmt::format(std::forward<decltype(args)>(args)...);
    s += '\n';
  };
  for (const auto& w : r.warnings) line("warning: {}", w);
  for (const auto& n : r.notes) line("{}", n);
  for (const auto& c : r.conversions) line("{}", c.text());
  if (!r.model.empty()) line("model             {} ({}{})", r.model, r.precision, r.timing_only ? ", timing only" : "");
  if (!r.quantization.scheme.empty())
    line("quantisation      {} from {} calibration sample(s){}", r.quantization.scheme, r.quantization.calibration_samples,
         r.quantization.fp16_layers.empty() ? "" : fmt::format(", {} layer(s) in fp16", r.quantization.fp16_layers.size()));
  if (!r.quantization.weights.empty()) line("weight-only       {}", r.quantization.weights);
  s += format_sim_report(r.npu, config);
  std::uint64_t compulsory = 0, spill = 0;
  for (const auto& l : r.layers) {
    compulsory += l.compulsory_ddr_bytes;
    spill += l.spill_ddr_bytes;
  }
  line("DDR split         {} B compulsory (weights, parameters, step inputs and outputs), {} B spill (values "
       "written and read back)",
       compulsory, spill);
  line("overlap           {:.2f}: per NPU layer max(compute, vector, DDR bytes / {:.2f} B per cycle), summed, over "
       "the NPU cycles",
       overlap_efficiency(r.layers, config, r.npu.cycles), roofline_of(config).ddr_bytes_per_cycle);
  line("host              {:.3f} us: CPU steps {:.3f} us ({} flops at {} GFLOP/s), {} transitions {:.3f} us, "
       "{} B transferred {:.3f} us{}",
       r.host.total_us(), r.host.compute_us, r.cpu_flops, config.host.gflops, r.transitions, r.host.transition_us,
       r.transfer_bytes, r.host.transfer_us,
       (r.host.launch_us > 0 ? fmt::format(", launch {:.3f} us", r.host.launch_us) : std::string()) +
           (r.host.dispatch_us > 0 ? fmt::format(", layer dispatch {:.3f} us", r.host.dispatch_us) : std::string()));
  const double total = r.latency_us();
  const double moving = r.host.overhead_us();
  line("end to end        {:.3f} us: NPU {:.3f} us ({:.1f}%), CPU fallback {:.3f} us ({:.1f}%), "
       "{} {:.3f} us ({:.1f}%)",
       total, r.npu.latency_us, 100 * share(r.npu.latency_us, total), r.host.compute_us,
       100 * share(r.host.compute_us, total),
       r.host.launch_us > 0 || r.host.dispatch_us > 0 ? "launch + transitions + transfers" : "transitions + transfers",
       moving,
       100 * share(moving, total));
  if (!r.fallbacks.empty()) {
    line("fallbacks         {} node(s) on the CPU:", r.fallbacks.size());
    for (const auto& f : r.fallbacks) line("  {} ({}): {}", f.node, f.op, f.reason);
  }
  if (!format.layers || r.layers.empty()) return s;
  line("");
  s += format_layer_table(r.layers, config, format.top);
  return s;
}

}  // namespace npu::report
