// C++ exceptions become the Python classes of npusim/errors.py, carrying the same one-line
// message the CLI prints after "npusim <command>: error: ". The classes live in Python so
// they can subclass both npusim.Error and ValueError (a bad config or model is a bad value).
#include <exception>
#include <stdexcept>

#include "apps/python/bindings.h"
#include "compiler/compile.h"
#include "container/compiled_model.h"
#include "hwconfig/hardware_config.h"

namespace py = pybind11;

namespace npu::python {
namespace {

void raise_as(const char* class_name, const char* message) {
  py::object cls = py::module_::import("npusim.errors").attr(class_name);
  PyErr_SetString(cls.ptr(), message);
}

}  // namespace

void bind_errors(py::module_&) {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ConfigError& e) {
      raise_as("ConfigError", e.what());
    } catch (const compiler::CompileError& e) {
      raise_as("CompileError", e.what());
    } catch (const container::ModelFileError& e) {
      raise_as("CompileError", e.what());
    } catch (const py::error_already_set&) {
      throw;  // a Python error raised inside a callback stays what it was
    } catch (const std::bad_alloc&) {
      throw;  // pybind11 turns it into MemoryError
    } catch (const std::exception& e) {
      raise_as("Error", e.what());
    }
  });
}

}  // namespace npu::python
