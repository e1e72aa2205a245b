#include "runtime/step_vcd.h"

#include <fmt/format.h>

#include "container/compiled_model.h"
#include "sim/simulator.h"

namespace npu::runtime {

std::vector<std::string> write_step_vcds(const container::CompiledModel& model, const HardwareConfig& config,
                                         const std::string& path) {
  std::vector<const container::NpuStep*> steps;
  for (const auto& step : model.steps)
    if (step.kind == container::Step::Kind::Npu) steps.push_back(&step.npu);
  std::string stem = path;
  if (stem.size() > 4 && stem.compare(stem.size() - 4, 4, ".vcd") == 0) stem.resize(stem.size() - 4);
  std::vector<std::string> files;
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const isa::Program program = container::step_program(model.program, *steps[k]);
    sim::SimOptions options;
    options.timing_only = true;
    options.record_instructions = false;
    options.vcd_path = steps.size() == 1 ? stem + ".vcd" : fmt::format("{}.step{}.vcd", stem, k);
    sim::DdrImage ddr;
    sim::simulate(program, config, ddr, options);
    files.push_back(options.vcd_path);
  }
  return files;
}

}  // namespace npu::runtime
