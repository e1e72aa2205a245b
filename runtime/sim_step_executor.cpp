#include "runtime/sim_step_executor.h"

#include "container/compiled_model.h"

#include <stdexcept>

#include <fmt/format.h>

namespace npu::runtime {

void SimStepExecutor::load(const isa::Program& program) {
  program_ = program;
  ddr_ = sim::DdrImage();
  ddr_.place(program_);
}

void SimStepExecutor::write_tensor(const isa::TensorEntry& tensor, const std::vector<std::uint8_t>& bytes) {
  if (bytes.size() > tensor.size_bytes)
    throw std::runtime_error(fmt::format("tensor {}: {} bytes do not fit its {} bytes of DDR", tensor.name,
                                         bytes.size(), tensor.size_bytes));
  ddr_.write(tensor.ddr_addr, bytes.data(), bytes.size());
}

std::vector<std::uint8_t> SimStepExecutor::read_tensor(const isa::TensorEntry& tensor) const {
  std::vector<std::uint8_t> bytes(tensor.size_bytes);
  ddr_.read(tensor.ddr_addr, bytes.data(), bytes.size());
  return bytes;
}

sim::SimResult SimStepExecutor::run(std::uint32_t first, std::uint32_t end, const StepRunOptions& options) {
  if (first >= end || end > program_.code.size())
    throw std::runtime_error(fmt::format("NPU step [{}, {}) is outside the program's {} instructions", first, end,
                                         program_.code.size()));
  // The step as a program of its own: its code only; data is already in the DDR image.
  const isa::Program step = container::step_program(program_, first, end, options.engine_starts);
  sim::SimOptions sim_options;
  sim_options.timing_only = options.timing_only;
  sim_options.record_trace = options.record_trace;
  sim_options.record_instructions = true;
  return sim::simulate(step, config_, ddr_, sim_options);
}

}  // namespace npu::runtime
