// ort:cpu, ort:qnn, ort:openvino and litert:cpu: implemented in the Python bridge (backends/python_bridge/
// onnxruntime_backend.cpp explains why through Python), which is loaded here on first use.
// When the bridge cannot load, the back end is still listed, as not available and why.
#include <stdexcept>

#include "backends/backend_factories.h"
#include "backends/python_backends.h"
#include "runtime/python_bridge.h"

namespace npu::backends {

namespace {

class UnavailableBackend : public InferenceBackend {
 public:
  UnavailableBackend(std::string name, std::string reason) : name_(std::move(name)), reason_(std::move(reason)) {}
  std::string name() const override { return name_; }
  BackendAvailability availability() override { return {false, reason_, {}}; }
  void load(const std::string&, const BackendOptions&) override {
    throw std::runtime_error("device " + name_ + " is not available: " + reason_);
  }
  BackendRun run(const std::vector<std::pair<std::string, runtime::HostTensor>>&) override {
    throw std::runtime_error(name_ + ": run before load");
  }
  std::vector<NodePlacement> placement() override { return {}; }

 private:
  std::string name_, reason_;
};

}  // namespace

std::unique_ptr<InferenceBackend> make_onnxruntime_backend(const std::string& device) {
  MakeOnnxRuntimeBackendFn* make = nullptr;
  try {
    make = runtime::python_bridge_function<MakeOnnxRuntimeBackendFn>(kMakeOnnxRuntimeBackend);
  } catch (const std::exception& e) {
    return std::make_unique<UnavailableBackend>("ort:" + device, e.what());
  }
  return std::unique_ptr<InferenceBackend>(make(device.c_str()));
}

std::unique_ptr<InferenceBackend> make_litert_backend() {
  MakeLiteRtBackendFn* make = nullptr;
  try {
    make = runtime::python_bridge_function<MakeLiteRtBackendFn>(kMakeLiteRtBackend);
  } catch (const std::exception& e) {
    return std::make_unique<UnavailableBackend>("litert:cpu", e.what());
  }
  return std::unique_ptr<InferenceBackend>(make());
}

}  // namespace npu::backends
