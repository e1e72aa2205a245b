// Host tensors to and from numpy arrays, for back ends driven through the embedded Python
// interpreter. Callers hold the GIL. (The CPU-step executor has the same two functions private
// to its file; these serve runtime/devices without touching it.)
#pragma once
#include <string>

#include <pybind11/embed.h>

#include "tensor.h"

namespace npu::runtime {

pybind11::object to_numpy_array(const HostTensor& t);
HostTensor from_numpy_array(const pybind11::handle& value, const std::string& name);

}  // namespace npu::runtime
