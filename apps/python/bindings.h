// The pieces of the npusim._core extension, each registering its part of the module.
#pragma once
#include <pybind11/pybind11.h>

namespace npu::python {

void bind_errors(pybind11::module_& m);   // C++ exceptions -> npusim.errors classes
void bind_config(pybind11::module_& m);   // Config, load/parse, the key table
void bind_session(pybind11::module_& m);  // CompiledModel, compile, Session

}  // namespace npu::python
