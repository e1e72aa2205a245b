// The back ends' entry points into the Python bridge (runtime/python_bridge.h explains it).
#pragma once
#include <string>

#include "backends/inference_backend.h"

namespace npu::backends {

// ort:<device> ("cpu", "qnn", "openvino"); the caller owns the result.
using MakeOnnxRuntimeBackendFn = InferenceBackend*(const char* device);
constexpr const char* kMakeOnnxRuntimeBackend = "npusim_make_onnxruntime_backend";

// litert:cpu; the caller owns the result.
using MakeLiteRtBackendFn = InferenceBackend*();
constexpr const char* kMakeLiteRtBackend = "npusim_make_litert_backend";

// The openvino wheel's libs/ directory: true and `dir`, or false and the reason.
using OpenVinoPackageLibDirFn = bool(std::string* dir, std::string* why_not);
constexpr const char* kOpenVinoPackageLibDir = "npusim_openvino_package_lib_dir";

}  // namespace npu::backends
