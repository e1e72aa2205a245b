#include "report/compile_summary.h"

#include <fmt/format.h>

namespace npu::report {

std::string format_passes(const container::CompiledModel& model) {
  std::string s = fmt::format("{:<24} {:>8} {:>8}  {}\n", "pass", "before", "after", "detail");
  for (const auto& p : model.passes)
    s += fmt::format("{:<24} {:>8} {:>8}  {}\n", p.pass, p.nodes_before, p.nodes_after, p.detail);
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
  return s;
}

}  // namespace npu::report
