// Host tensors to and from numpy arrays, for everything driven through the embedded Python
// interpreter (the CPU-step executor, the ONNX Runtime device back ends). Callers hold the GIL.
#pragma once
#include <string>

#include <pybind11/embed.h>

#include "runtime/tensor.h"

namespace npu::runtime {

pybind11::object to_numpy_array(const HostTensor& t);
// `what` names the value in errors, e.g. "CPU step output y".
HostTensor from_numpy_array(const pybind11::handle& value, const std::string& what);

}  // namespace npu::runtime
