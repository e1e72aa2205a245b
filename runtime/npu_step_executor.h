// What executes the NPU steps of a compiled program: the SystemC model (sim_step_executor.h).
// Real NPUs run whole models through backends/ instead, since their stacks take ONNX, not
// our ISA. Chosen by name so a session can say which executor ran its steps.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hwconfig/hardware_config.h"
#include "isa/program.h"
#include "sim/simulator.h"

namespace npu::runtime {

struct ExecutorAvailability {
  bool available = false;
  std::string reason;  // why not, when not available
};

struct StepRunOptions {
  bool timing_only = false;
  bool record_trace = false;
  // Several engines: where each engine's stream starts (absolute instruction indices,
  // container::NpuStep::engine_starts); empty: one engine.
  std::vector<std::uint32_t> engine_starts;
};

class NpuStepExecutor {
 public:
  virtual ~NpuStepExecutor() = default;
  virtual std::string name() const = 0;
  virtual ExecutorAvailability availability() const = 0;
  // Once per program, before any run: constant data (weights, tables) into device memory.
  virtual void load(const isa::Program& program) = 0;
  virtual void write_tensor(const isa::TensorEntry& tensor, const std::vector<std::uint8_t>& bytes) = 0;
  virtual std::vector<std::uint8_t> read_tensor(const isa::TensorEntry& tensor) const = 0;
  // Runs code[first_instruction, end_instruction) of the loaded program (the range ends in
  // halt). Instruction indices in the result are relative to first_instruction. Real devices
  // fill what they can measure (cycles, latency) and leave the rest zero.
  virtual sim::SimResult run(std::uint32_t first_instruction, std::uint32_t end_instruction,
                             const StepRunOptions& options) = 0;
};

// Names that make_npu_step_executor accepts, and the factory. Throws naming the device and the reason
// when it is unknown or not available.
std::vector<std::string> npu_step_executor_names();
std::unique_ptr<NpuStepExecutor> make_npu_step_executor(const std::string& name, const HardwareConfig& config);

}  // namespace npu::runtime
