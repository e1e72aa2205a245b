#include "compiled_model_io.h"

#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

namespace npu::runtime {

const char* precision_name(compiler::Precision p) { return p == compiler::Precision::Int8 ? "int8" : "fp16"; }

compiler::Precision parse_precision(const std::string& text) {
  if (text == "int8") return compiler::Precision::Int8;
  if (text == "fp16") return compiler::Precision::Fp16;
  throw std::runtime_error(fmt::format("--precision '{}': expected int8 or fp16", text));
}

compiler::CompiledModel load_or_compile(const std::string& path, const HardwareConfig& config,
                                        const compiler::CompileOptions& options, bool* compiled) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open file");
  char magic[7] = {};
  in.read(magic, sizeof magic);
  const bool is_program = in.gcount() == sizeof magic && std::string(magic, sizeof magic) == "NPUPROG";
  if (compiled) *compiled = !is_program;
#ifdef NPUSIM_HAVE_COMPILER
  return is_program ? compiler::load_compiled(path) : compiler::compile(path, config, options);
#else
  (void)config;
  (void)options;
  throw std::runtime_error(path + ": this npusim was built without the compiler");
#endif
}

void save_compiled_model(compiler::CompiledModel& model, const std::string& path) {
#ifdef NPUSIM_HAVE_COMPILER
  compiler::attach_plan(model);
  isa::save_program(model.program, path);
#else
  (void)model;
  throw std::runtime_error(path + ": this npusim was built without the compiler");
#endif
}

std::string format_passes(const compiler::CompiledModel& model) {
  std::string s = fmt::format("{:<24} {:>8} {:>8}  {}\n", "pass", "before", "after", "detail");
  for (const auto& p : model.passes)
    s += fmt::format("{:<24} {:>8} {:>8}  {}\n", p.pass, p.nodes_before, p.nodes_after, p.detail);
  return s;
}

std::string format_compile_summary(const compiler::CompiledModel& model, const std::string& model_path,
                                   const std::string& out_path) {
  std::size_t npu_steps = 0, cpu_steps = 0, npu_layers = 0;
  for (const auto& step : model.steps) (step.kind == compiler::Step::Kind::Npu ? npu_steps : cpu_steps)++;
  for (const auto& layer : model.layers) npu_layers += layer.device == "npu";
  std::string s = fmt::format(
      "compiled {} → {} ({}): {} instructions, {} layers ({} on the NPU), {} NPU step(s), {} CPU step(s), "
      "{} NPU↔CPU transition(s)\n",
      model_path, out_path, precision_name(model.precision), model.program.code.size(), model.layers.size(),
      npu_layers, npu_steps, cpu_steps, model.npu_cpu_transitions);
  for (const auto& f : model.fallbacks) s += fmt::format("fallback {} ({}): {}\n", f.node, f.op, f.reason);
  return s;
}

}  // namespace npu::runtime
