#include "runtime/compiled_model_io.h"

#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "runtime/calibration_host_runner.h"

namespace npu::runtime {

container::CompiledModel load_or_compile(const std::string& path, const HardwareConfig& config,
                                        const compiler::CompileOptions& options, bool* compiled) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open file");
  char magic[7] = {};
  in.read(magic, sizeof magic);
  const bool is_program = in.gcount() == sizeof magic && std::string(magic, sizeof magic) == "NPUPROG";
  if (compiled) *compiled = !is_program;
  return is_program ? container::load_compiled(path) : compiler::compile(path, config, with_host_runner(options));
}

void save_compiled_model(container::CompiledModel& model, const std::string& path) {
  container::attach_plan(model);
  isa::save_program(model.program, path);
}

}  // namespace npu::runtime
