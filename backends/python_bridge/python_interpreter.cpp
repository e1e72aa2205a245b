#include "backends/python_bridge/python_interpreter.h"

#include <mutex>

#include <pybind11/embed.h>

namespace npu::python_bridge {

void ensure_python_interpreter() {
  static std::once_flag started;
  std::call_once(started, [] {
    if (Py_IsInitialized()) return;  // we live inside a Python process: use its interpreter
    // No Python signal handlers: Ctrl-C must keep stopping npusim the usual way.
    pybind11::initialize_interpreter(/*init_signal_handlers=*/false);
    PyEval_SaveThread();  // release the GIL taken by initialization; callers acquire it
  });
}

std::string one_line(std::string text) {
  for (auto& c : text)
    if (c == '\n') c = ' ';
  return text;
}

}  // namespace npu::python_bridge
