// The bridge's implementations, behind the C entry points of entry_points.cpp.
#pragma once
#include <memory>
#include <string>

#include "backends/inference_backend.h"
#include "runtime/cpu_executor.h"

namespace npu::python_bridge {

// ONNX Runtime's CPUExecutionProvider for CPU steps. Throws on first use, naming what is
// missing, when the package cannot be imported.
std::unique_ptr<runtime::CpuExecutor> make_onnxruntime_cpu_executor();

// ort:cpu, ort:qnn, ort:openvino; `device` is "cpu", "qnn" or "openvino".
std::unique_ptr<backends::InferenceBackend> make_onnxruntime_backend(const std::string& device);

// litert:cpu: LiteRT's Interpreter on a .tflite file.
std::unique_ptr<backends::InferenceBackend> make_litert_backend();

// The installed openvino wheel's libs/ directory, found without importing the package (its
// import would load a second copy of the runtime through the Python bindings). False, with
// the reason in `why_not`, when there is none.
bool openvino_package_lib_dir(std::string* dir, std::string* why_not);

}  // namespace npu::python_bridge

// The entry-point table (runtime/python_bridge.h); exported by the library, and handed to
// runtime::provide_python_bridge by the extension module, which carries the bridge itself.
extern "C" void* npusim_python_bridge_lookup(const char* symbol);
