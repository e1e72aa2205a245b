// The constructors behind make_backend, one per file that implements backends.
#pragma once
#include <memory>
#include <string>

#include "backends/inference_backend.h"

namespace npu::backends {

std::unique_ptr<InferenceBackend> make_openvino_backend(const std::string& device);  // "NPU", "CPU", "GPU"
// `device` is "cpu", "qnn" or "openvino".
std::unique_ptr<InferenceBackend> make_onnxruntime_backend(const std::string& device);
std::unique_ptr<InferenceBackend> make_litert_backend();  // litert:cpu, for .tflite files
std::unique_ptr<InferenceBackend> make_simulator_backend(const HardwareConfig& config);

}  // namespace npu::backends
