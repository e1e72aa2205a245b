#include "runtime/npu_step_executor.h"

#include <functional>
#include <stdexcept>

#include <fmt/format.h>

#include "runtime/sim_step_executor.h"

namespace npu::runtime {

namespace {

struct ExecutorFactory {
  const char* name;
  std::function<std::unique_ptr<NpuStepExecutor>(const HardwareConfig&)> make;
};

// An explicit table rather than self-registration: npusim_runtime is a static library, and
// the linker would drop a back end's object file that nothing else references.
const std::vector<ExecutorFactory>& factories() {
  static const std::vector<ExecutorFactory> table = {
      {"sim", [](const HardwareConfig& c) { return std::make_unique<SimStepExecutor>(c); }},
  };
  return table;
}

}  // namespace

std::vector<std::string> npu_step_executor_names() {
  std::vector<std::string> names;
  for (const auto& f : factories()) names.emplace_back(f.name);
  return names;
}

std::unique_ptr<NpuStepExecutor> make_npu_step_executor(const std::string& name, const HardwareConfig& config) {
  for (const auto& f : factories()) {
    if (name != f.name) continue;
    auto device = f.make(config);
    const auto availability = device->availability();
    if (!availability.available)
      throw std::runtime_error(fmt::format("device {} is not available: {}", name, availability.reason));
    return device;
  }
  std::string known;
  for (const auto& n : npu_step_executor_names()) known += (known.empty() ? "" : ", ") + n;
  throw std::runtime_error(fmt::format("unknown device '{}' (devices: {})", name, known));
}

}  // namespace npu::runtime
