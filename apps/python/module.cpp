// npusim._core: the C++ runtime as a Python extension. The Python package around it
// (apps/python/npusim) adds numpy conversion, the report dict and the sweep tools.
#include "apps/python/bindings.h"
#include "backends/python_bridge/bridge.h"
#include "runtime/python_bridge.h"

PYBIND11_MODULE(_core, m) {
  m.doc() = "npusim C++ core: hardware configs, the compiler and simulation sessions";
  // The module carries the Python bridge itself (runtime/python_bridge.h): inside Python it
  // uses the host interpreter and never loads a library of its own.
  npu::runtime::provide_python_bridge(&npusim_python_bridge_lookup);
  npu::python::bind_errors(m);
  npu::python::bind_config(m);
  npu::python::bind_session(m);
}
