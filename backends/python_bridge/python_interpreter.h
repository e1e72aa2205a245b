// The one Python interpreter of the process, shared by everything in the bridge.
#pragma once
#include <string>

namespace npu::python_bridge {

// Starts the interpreter unless one is already running (the runtime may itself be loaded
// into Python as a module) and leaves the GIL released, so callers take it with
// pybind11::gil_scoped_acquire. Never finalizes: extension modules such as onnxruntime do not
// survive Py_Finalize cleanly, and the process is ending anyway.
void ensure_python_interpreter();

// A Python error's text on one line (the CLI promises one-line errors; tracebacks span several).
std::string one_line(std::string text);

}  // namespace npu::python_bridge
