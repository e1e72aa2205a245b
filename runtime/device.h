// One interface for whatever executes the NPU steps of a program: the SystemC model today,
// real NPUs (OpenVINO, ONNX Runtime EPs) later. A back end that cannot run here says why
// instead of failing the build or falling back silently.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hardware_config.h"
#include "program.h"
#include "simulator.h"

namespace npu::runtime {

struct DeviceAvailability {
  bool available = false;
  std::string reason;  // why not, when not available
};

struct DeviceRunOptions {
  bool timing_only = false;
  bool record_trace = false;
};

class Device {
 public:
  virtual ~Device() = default;
  virtual std::string name() const = 0;
  virtual DeviceAvailability availability() const = 0;
  // Once per program, before any run: constant data (weights, tables) into device memory.
  virtual void load(const isa::Program& program) = 0;
  virtual void write_tensor(const isa::TensorEntry& tensor, const std::vector<std::uint8_t>& bytes) = 0;
  virtual std::vector<std::uint8_t> read_tensor(const isa::TensorEntry& tensor) const = 0;
  // Runs code[first_instruction, end_instruction) of the loaded program (the range ends in
  // halt). Instruction indices in the result are relative to first_instruction. Real devices
  // fill what they can measure (cycles, latency) and leave the rest zero.
  virtual sim::SimResult run(std::uint32_t first_instruction, std::uint32_t end_instruction,
                             const DeviceRunOptions& options) = 0;
};

// Names that make_device accepts, and the factory. Throws naming the device and the reason
// when it is unknown or not available.
std::vector<std::string> device_names();
std::unique_ptr<Device> make_device(const std::string& name, const HardwareConfig& config);

}  // namespace npu::runtime
