// litert:cpu — LiteRT (the ai-edge-litert package's Interpreter) running a .tflite file on the
// host CPU: the reference `npusim compare` checks TFLite models' outputs against, as ort:cpu is
// for ONNX. Through Python for the reason onnxruntime_backend.cpp gives: the wheel ships no C
// headers.
#include <chrono>

#include <fmt/format.h>
#include <pybind11/embed.h>

#include "backends/python_bridge/bridge.h"
#include "backends/python_bridge/numpy_bridge.h"
#include "backends/python_bridge/python_interpreter.h"

namespace py = pybind11;
using namespace pybind11::literals;

namespace npu::python_bridge {
namespace {

class LiteRtBackend : public backends::InferenceBackend {
 public:
  ~LiteRtBackend() override {
    if (!Py_IsInitialized()) return;
    py::gil_scoped_acquire gil;
    interpreter_ = py::object();
  }

  std::string name() const override { return "litert:cpu"; }

  backends::BackendAvailability availability() override {
    ensure_python_interpreter();
    py::gil_scoped_acquire gil;
    backends::BackendAvailability a;
    try {
      py::module_::import("ai_edge_litert.interpreter");
      a.versions.push_back("ai-edge-litert " + py::str(py::module_::import("importlib.metadata").attr("version")("ai-edge-litert")).cast<std::string>());
      a.available = true;
    } catch (const py::error_already_set& e) {
      a.reason = fmt::format("the Python package ai-edge-litert cannot be imported (pip install -r scripts/requirements.txt): {}",
                             one_line(e.what()));
    }
    return a;
  }

  void load(const std::string& path, const backends::BackendOptions&) override {
    if (const auto a = availability(); !a.available) throw std::runtime_error("device litert:cpu is not available: " + a.reason);
    py::gil_scoped_acquire gil;
    try {
      interpreter_ = py::module_::import("ai_edge_litert.interpreter").attr("Interpreter")("model_path"_a = path);
      interpreter_.attr("allocate_tensors")();
    } catch (const py::error_already_set& e) {
      throw std::runtime_error(fmt::format("litert:cpu: cannot load {}: {}", path, one_line(e.what())));
    }
    inputs_.clear();
    outputs_.clear();
    for (const auto& d : interpreter_.attr("get_input_details")())
      inputs_.emplace_back(py::str(d["name"]), d["index"].cast<int>());
    for (const auto& d : interpreter_.attr("get_output_details")())
      outputs_.emplace_back(py::str(d["name"]), d["index"].cast<int>());
  }

  // Inputs LiteRT does not take (a resource variable's `state/<name>`: LiteRT keeps the state
  // inside the interpreter, zero at first) are left out.
  backends::BackendRun run(const std::vector<std::pair<std::string, runtime::HostTensor>>& inputs) override {
    py::gil_scoped_acquire gil;
    if (!interpreter_) throw std::runtime_error("litert:cpu: run before load");
    backends::BackendRun result;
    try {
      for (const auto& [n, t] : inputs)
        for (const auto& [name, index] : inputs_)
          if (name == n) interpreter_.attr("set_tensor")(index, to_numpy_array(t));
      const auto start = std::chrono::steady_clock::now();
      interpreter_.attr("invoke")();
      result.latency_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
      for (const auto& [name, index] : outputs_)
        result.outputs.emplace_back(name, from_numpy_array(interpreter_.attr("get_tensor")(index), "output " + name));
    } catch (const py::error_already_set& e) {
      throw std::runtime_error(fmt::format("litert:cpu: inference failed: {}", one_line(e.what())));
    }
    return result;
  }

  std::vector<backends::NodePlacement> placement() override { return {}; }

 private:
  py::object interpreter_;
  std::vector<std::pair<std::string, int>> inputs_, outputs_;
};

}  // namespace

std::unique_ptr<backends::InferenceBackend> make_litert_backend() { return std::make_unique<LiteRtBackend>(); }

}  // namespace npu::python_bridge
