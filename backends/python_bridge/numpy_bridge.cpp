#include "backends/python_bridge/numpy_bridge.h"

#include <stdexcept>

#include <fmt/format.h>

namespace py = pybind11;

namespace npu::python_bridge {

using runtime::HostTensor;
using runtime::element_type_from_npy;
using runtime::npy_descr;

// Through numpy's Python API (frombuffer, tobytes), not pybind11/numpy.h: the Debian pybind11
// reads numpy's C structs with the pre-2.0 layout and gets item sizes wrong under numpy 2.
py::object to_numpy_array(const HostTensor& t) {
  const auto numpy = py::module_::import("numpy");
  const py::bytes data(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size());
  py::tuple shape(t.shape.size());
  for (std::size_t i = 0; i < t.shape.size(); ++i) shape[i] = py::int_(t.shape[i]);
  // frombuffer gives a read-only view of the bytes object; copy so the consumer may own it.
  return numpy.attr("frombuffer")(data, py::arg("dtype") = npy_descr(t.dtype)).attr("reshape")(shape).attr("copy")();
}

HostTensor from_numpy_array(const py::handle& value, const std::string& what) {
  const auto numpy = py::module_::import("numpy");
  // asarray(order="C"), not ascontiguousarray: the latter turns 0-d scalars into shape (1,).
  const py::object array = numpy.attr("asarray")(value, py::arg("order") = "C");
  const std::string kind = py::str(array.attr("dtype").attr("str"));  // e.g. "<f4"
  const auto dtype = element_type_from_npy(kind.substr(1));
  if (!dtype || kind[0] == '>') throw std::runtime_error(fmt::format("{}: numpy dtype {} is not supported", what, kind));
  HostTensor t;
  t.dtype = *dtype;
  for (const auto& d : py::tuple(array.attr("shape"))) t.shape.push_back(d.cast<std::int64_t>());
  const std::string bytes = py::bytes(array.attr("tobytes")());
  t.bytes.assign(bytes.begin(), bytes.end());
  return t;
}

}  // namespace npu::python_bridge
