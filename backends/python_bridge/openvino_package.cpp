// Where pip put OpenVINO: backends/openvino_library.cpp loads libopenvino_c from there.
#include <filesystem>

#include <fmt/format.h>
#include <pybind11/embed.h>

#include "backends/python_bridge/bridge.h"
#include "backends/python_bridge/python_interpreter.h"

namespace fs = std::filesystem;
namespace py = pybind11;

namespace npu::python_bridge {

bool openvino_package_lib_dir(std::string* dir, std::string* why_not) {
  try {
    ensure_python_interpreter();
    py::gil_scoped_acquire gil;
    const py::object spec = py::module_::import("importlib.util").attr("find_spec")("openvino");
    if (spec.is_none()) {
      *why_not = "the Python package openvino is not installed (pip install -r scripts/requirements.txt)";
      return false;
    }
    const fs::path origin = py::str(spec.attr("origin")).cast<std::string>();
    *dir = (origin.parent_path() / "libs").string();
    return true;
  } catch (const std::exception& e) {
    *why_not = fmt::format("cannot ask Python for the openvino package: {}", e.what());
    return false;
  }
}

}  // namespace npu::python_bridge
