// Everything in npusim that calls Python (ONNX Runtime for CPU steps our FP32 evaluator does
// not cover, the ort:* back ends, finding the openvino wheel) lives in one shared library,
// libnpusim_python_bridge.so (backends/python_bridge/). The runtime loads it with dlopen the
// first time something needs it, so a run that needs no Python never loads libpython. The
// Python extension module carries the bridge itself and hands it over with
// provide_python_bridge: it runs inside the host interpreter and loads no second libpython.
//
// Entry points are C functions looked up by name; each layer that calls one declares its
// type beside the name (below for the runtime, backends/python_backends.h for the back ends)
// and the bridge checks its definitions against those declarations at compile time.
#pragma once
#include <string>

namespace npu::runtime {

class CpuExecutor;

// The bridge's table: symbol name -> function, nullptr for an unknown name.
using PythonBridgeLookup = void* (*)(const char* symbol);

// Loads the bridge on first use and returns the entry point `symbol` as a function pointer of
// type F. Throws one line naming the library and what failed (not found, libpython missing).
void* python_bridge_symbol(const char* symbol);
template <typename F>
F* python_bridge_function(const char* symbol) {
  return reinterpret_cast<F*>(python_bridge_symbol(symbol));
}

// For a process that carries the bridge itself (the extension module): entry points come from
// `lookup` and no library is loaded.
void provide_python_bridge(PythonBridgeLookup lookup);

// Where the library is looked for, in order: $NPUSIM_PYTHON_BRIDGE, then beside the running
// executable and in ../lib from it (build/bin/npusim -> build/lib/).
constexpr const char* kPythonBridgeLibrary = "libnpusim_python_bridge.so";
constexpr const char* kPythonBridgeEnvVar = "NPUSIM_PYTHON_BRIDGE";

// ONNX Runtime's CPU provider as a CpuExecutor; the caller owns the result.
using MakeOnnxRuntimeExecutorFn = CpuExecutor*();
constexpr const char* kMakeOnnxRuntimeExecutor = "npusim_make_onnxruntime_executor";

}  // namespace npu::runtime
