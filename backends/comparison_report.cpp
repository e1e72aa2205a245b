// The table `npusim compare` prints and the JSON it writes: the same numbers in both.
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backends/device_comparison.h"

namespace npu::backends {

namespace {

std::string us_text(double us) { return us >= 10000 ? fmt::format("{:.2f} ms", us / 1000) : fmt::format("{:.1f} us", us); }

const DeviceComparison* simulated_device(const Comparison& c) {
  for (const auto& d : c.devices)
    if (d.simulated) return &d;
  return nullptr;
}

std::string placement_summary(const DeviceComparison& d) {
  std::map<std::string, std::size_t> per_device;
  for (const auto& p : d.placement) ++per_device[p.device];
  std::string s;
  for (const auto& [device, n] : per_device) s += fmt::format("{}{} on {}", s.empty() ? "" : ", ", n, device);
  return s.empty() ? "(no placement info)" : s;
}

}  // namespace

std::string format_comparison(const Comparison& c) {
  std::string out = fmt::format("model {} | config {} | {} timed runs after {} warm-up | outputs vs FP32 reference {}{}\n",
                                c.model, c.config, c.runs, c.warmup, c.reference, c.strict ? " | strict" : "");
  for (const auto& n : c.input_notes) out += "  " + n + "\n";
  if (!c.reference_problem.empty()) out += fmt::format("  outputs not compared: {}\n", c.reference_problem);
  const auto* sim = simulated_device(c);

  out += fmt::format("\n{:<14} {:>12} {:>12} {:>10}  {:<16} {:>10} {:>11}  {}\n", "device", "latency", "p90",
                     "sim/real", "output", "cosine", "max |err|", "placement");
  for (const auto& d : c.devices) {
    const std::string latency = us_text(d.latency.median_us) + (d.simulated ? "*" : "");
    const std::string p90 = d.simulated ? "-" : us_text(d.latency.p90_us);
    const std::string ratio =
        (d.simulated || !sim || d.latency.median_us <= 0) ? "-" : fmt::format("{:.3f}", sim->latency.median_us / d.latency.median_us);
    const std::size_t rows = std::max<std::size_t>(1, d.outputs.size());
    for (std::size_t i = 0; i < rows; ++i) {
      std::string output = "-", cosine = "-", err = "-";
      if (i < d.outputs.size()) {
        const auto& m = d.outputs[i];
        output = m.output;
        if (m.problem.empty()) {
          cosine = fmt::format("{:.6f}", m.cosine);
          err = fmt::format("{:.3g}", m.max_abs_error);
        } else {
          cosine = "n/a";
          err = m.problem;
        }
      }
      out += i == 0 ? fmt::format("{:<14} {:>12} {:>12} {:>10}  {:<16} {:>10} {:>11}  {}\n", d.device, latency, p90, ratio,
                                  output, cosine, err, placement_summary(d))
                    : fmt::format("{:<14} {:>12} {:>12} {:>10}  {:<16} {:>10} {:>11}\n", "", "", "", "", output, cosine, err);
    }
  }
  out += "  * simulated latency (npusim model of the config); the others are measured wall time of one inference\n";

  for (const auto& d : c.devices) {
    out += fmt::format("\nplacement on {} ({} nodes/layers; {})\n", d.device, d.placement.size(),
                       d.versions.empty() ? "" : fmt::format("{}", fmt::join(d.versions, "; ")));
    out += fmt::format("  {:<40} {:<20} {:<26} {:<28} {}\n", "node", "type", "device", "exec type", "precision");
    for (const auto& p : d.placement)
      out += fmt::format("  {:<40} {:<20} {:<26} {:<28} {}{}\n", p.node, p.op_type, p.device,
                         p.exec_type.empty() ? "-" : p.exec_type, p.precision.empty() ? "-" : p.precision,
                         p.fallback ? "   <-- CPU FALLBACK" : "");
  }
  for (const auto& d : c.devices) {
    const auto n = d.fallback_nodes();
    if (n == 0) continue;
    std::string nodes;
    std::size_t shown = 0;
    for (const auto& p : d.placement)
      if (p.fallback && shown++ < 8) nodes += fmt::format("{}{} ({})", shown > 1 ? ", " : "", p.node, p.op_type);
    if (n > 8) nodes += fmt::format(", ... {} in all", n);
    out += fmt::format("\n!! CPU FALLBACK on {}: {} node(s) did not run on the requested device: {}\n", d.device, n, nodes);
  }
  return out;
}

nlohmann::json comparison_json(const Comparison& c) {
  nlohmann::json j;
  j["model"] = c.model;
  j["config"] = c.config;
  j["reference"] = c.reference;
  if (!c.reference_problem.empty()) j["reference_problem"] = c.reference_problem;
  j["runs"] = c.runs;
  j["warmup"] = c.warmup;
  j["strict"] = c.strict;
  j["inputs"] = c.input_notes;
  const auto* sim = simulated_device(c);
  j["devices"] = nlohmann::json::array();
  for (const auto& d : c.devices) {
    nlohmann::json dj;
    dj["device"] = d.device;
    dj["simulated"] = d.simulated;
    dj["versions"] = d.versions;
    dj["latency_us"] = {{"median", d.latency.median_us}, {"p90", d.latency.p90_us}, {"runs", d.latency.runs_us}};
    if (!d.simulated && sim && d.latency.median_us > 0) dj["sim_over_measured"] = sim->latency.median_us / d.latency.median_us;
    dj["outputs"] = nlohmann::json::array();
    for (const auto& m : d.outputs) {
      nlohmann::json mj = {{"output", m.output}, {"cosine", m.cosine}, {"max_abs_error", m.max_abs_error}};
      if (!m.problem.empty()) mj["problem"] = m.problem;
      dj["outputs"].push_back(mj);
    }
    dj["fallback_nodes"] = d.fallback_nodes();
    dj["placement"] = nlohmann::json::array();
    for (const auto& p : d.placement)
      dj["placement"].push_back({{"node", p.node}, {"op_type", p.op_type}, {"device", p.device}, {"exec_type", p.exec_type},
                                 {"precision", p.precision}, {"fallback", p.fallback}});
    if (!d.layer_times.empty()) {
      dj["layer_times"] = nlohmann::json::array();  // as profiled, before npusim compare scales them
      for (const auto& t : d.layer_times)
        dj["layer_times"].push_back({{"node", t.node}, {"op_type", t.op_type}, {"time_us", t.time_us},
                                     {"onnx_node", t.onnx_node}, {"internal", t.internal}});
    }
    j["devices"].push_back(dj);
  }
  return j;
}

}  // namespace npu::backends
