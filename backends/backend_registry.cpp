// Names → back ends. An explicit list, like device.cpp's: the runtime is a static library and
// self-registering objects that nothing references would be dropped by the linker.
#include <algorithm>
#include <cctype>
#include <stdexcept>

#include <fmt/format.h>

#include "backends/backend_factories.h"

namespace npu::backends {

std::vector<std::string> backend_names() {
  return {"sim", "openvino:NPU", "openvino:GPU", "openvino:CPU", "ort:cpu", "ort:qnn", "ort:openvino", "litert:cpu"};
}

std::unique_ptr<InferenceBackend> make_backend(const std::string& name, const HardwareConfig& config) {
  const auto colon = name.find(':');
  const std::string stack = name.substr(0, colon);
  std::string device = colon == std::string::npos ? "" : name.substr(colon + 1);
  if (name == "sim") return make_simulator_backend(config);
  if (stack == "openvino" && !device.empty()) {
    std::transform(device.begin(), device.end(), device.begin(), [](unsigned char c) { return std::toupper(c); });
    if (device == "NPU" || device == "GPU" || device == "CPU") return make_openvino_backend(device);
  }
  if (stack == "ort" && !device.empty()) {
    std::transform(device.begin(), device.end(), device.begin(), [](unsigned char c) { return std::tolower(c); });
    if (device == "cpu" || device == "qnn" || device == "openvino") return make_onnxruntime_backend(device);
  }
  if (name == "litert:cpu" || name == "litert") return make_litert_backend();
  std::string known;
  for (const auto& n : backend_names()) known += (known.empty() ? "" : ", ") + n;
  throw std::runtime_error(fmt::format("unknown device '{}' (devices: {})", name, known));
}

}  // namespace npu::backends
