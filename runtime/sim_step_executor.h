// The SystemC model as a device: each NPU step is one sim::simulate call on that step's code,
// all steps sharing one DDR image so weights are placed once and tensors stay where the
// previous step left them.
#pragma once
#include "runtime/npu_step_executor.h"

namespace npu::runtime {

class SimStepExecutor : public NpuStepExecutor {
 public:
  explicit SimStepExecutor(HardwareConfig config) : config_(std::move(config)) {}
  std::string name() const override { return "sim"; }
  ExecutorAvailability availability() const override { return {true, ""}; }
  void load(const isa::Program& program) override;
  void write_tensor(const isa::TensorEntry& tensor, const std::vector<std::uint8_t>& bytes) override;
  std::vector<std::uint8_t> read_tensor(const isa::TensorEntry& tensor) const override;
  sim::SimResult run(std::uint32_t first_instruction, std::uint32_t end_instruction,
                     const StepRunOptions& options) override;

 private:
  HardwareConfig config_;
  isa::Program program_;
  sim::DdrImage ddr_;
};

}  // namespace npu::runtime
