// The bridge's C entry points and the table the runtime looks them up in
// (runtime/python_bridge.h). Each definition is checked against the type its caller declares.
#include <cstring>
#include <type_traits>

#include "backends/python_backends.h"
#include "backends/python_bridge/bridge.h"
#include "runtime/python_bridge.h"

using namespace npu;

extern "C" {

runtime::CpuExecutor* npusim_make_onnxruntime_executor() {
  return python_bridge::make_onnxruntime_cpu_executor().release();
}

backends::InferenceBackend* npusim_make_onnxruntime_backend(const char* device) {
  return python_bridge::make_onnxruntime_backend(device).release();
}

backends::InferenceBackend* npusim_make_litert_backend() { return python_bridge::make_litert_backend().release(); }

bool npusim_openvino_package_lib_dir(std::string* dir, std::string* why_not) {
  return python_bridge::openvino_package_lib_dir(dir, why_not);
}

__attribute__((visibility("default"))) void* npusim_python_bridge_lookup(const char* symbol) {
  struct Entry {
    const char* name;
    void* function;
  };
  static const Entry entries[] = {
      {runtime::kMakeOnnxRuntimeExecutor, reinterpret_cast<void*>(&npusim_make_onnxruntime_executor)},
      {backends::kMakeOnnxRuntimeBackend, reinterpret_cast<void*>(&npusim_make_onnxruntime_backend)},
      {backends::kMakeLiteRtBackend, reinterpret_cast<void*>(&npusim_make_litert_backend)},
      {backends::kOpenVinoPackageLibDir, reinterpret_cast<void*>(&npusim_openvino_package_lib_dir)},
  };
  for (const auto& e : entries)
    if (std::strcmp(e.name, symbol) == 0) return e.function;
  return nullptr;
}

}  // extern "C"

static_assert(std::is_same_v<decltype(npusim_make_onnxruntime_executor), runtime::MakeOnnxRuntimeExecutorFn>);
static_assert(std::is_same_v<decltype(npusim_make_onnxruntime_backend), backends::MakeOnnxRuntimeBackendFn>);
static_assert(std::is_same_v<decltype(npusim_make_litert_backend), backends::MakeLiteRtBackendFn>);
static_assert(std::is_same_v<decltype(npusim_openvino_package_lib_dir), backends::OpenVinoPackageLibDirFn>);
