// Host tensors to and from numpy arrays, for everything in the bridge (the CPU-step executor,
// the ONNX Runtime back ends). Callers hold the GIL.
#pragma once
#include <string>

#include <pybind11/embed.h>

#include "runtime/tensor.h"

namespace npu::python_bridge {

pybind11::object to_numpy_array(const runtime::HostTensor& t);
// `what` names the value in errors, e.g. "CPU step output y".
runtime::HostTensor from_numpy_array(const pybind11::handle& value, const std::string& what);

}  // namespace npu::python_bridge
