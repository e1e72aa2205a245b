#include "device.h"

#include <functional>
#include <stdexcept>

#include <fmt/format.h>

#include "sim_device.h"

namespace npu::runtime {

namespace {

struct DeviceFactory {
  const char* name;
  std::function<std::unique_ptr<Device>(const HardwareConfig&)> make;
};

// An explicit table rather than self-registration: npusim_runtime is a static library, and
// the linker would drop a back end's object file that nothing else references.
const std::vector<DeviceFactory>& factories() {
  static const std::vector<DeviceFactory> table = {
      {"sim", [](const HardwareConfig& c) { return std::make_unique<SimDevice>(c); }},
  };
  return table;
}

}  // namespace

std::vector<std::string> device_names() {
  std::vector<std::string> names;
  for (const auto& f : factories()) names.emplace_back(f.name);
  return names;
}

std::unique_ptr<Device> make_device(const std::string& name, const HardwareConfig& config) {
  for (const auto& f : factories()) {
    if (name != f.name) continue;
    auto device = f.make(config);
    const auto availability = device->availability();
    if (!availability.available)
      throw std::runtime_error(fmt::format("device {} is not available: {}", name, availability.reason));
    return device;
  }
  std::string known;
  for (const auto& n : device_names()) known += (known.empty() ? "" : ", ") + n;
  throw std::runtime_error(fmt::format("unknown device '{}' (devices: {})", name, known));
}

}  // namespace npu::runtime
