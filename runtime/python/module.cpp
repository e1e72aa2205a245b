// npusim._core: the C++ runtime as a Python extension. The Python package around it
// (runtime/python/npusim) adds numpy conversion, the report dict and the sweep tools.
#include "runtime/python/bindings.h"

PYBIND11_MODULE(_core, m) {
  m.doc() = "npusim C++ core: hardware configs, the compiler and simulation sessions";
  npu::python::bind_errors(m);
  npu::python::bind_config(m);
  npu::python::bind_session(m);
}
