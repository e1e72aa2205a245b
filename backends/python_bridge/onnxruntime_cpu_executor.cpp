// CPU steps on ONNX Runtime's CPU provider, through the `onnxruntime` Python package (what
// scripts/requirements.txt installs; no registry reachable here ships ORT's C headers).
#include <map>
#include <stdexcept>

#include <fmt/format.h>
#include <pybind11/embed.h>

#include "backends/python_bridge/bridge.h"
#include "backends/python_bridge/numpy_bridge.h"
#include "backends/python_bridge/python_interpreter.h"

namespace py = pybind11;

namespace npu::python_bridge {

using runtime::HostTensor;

namespace {

class OnnxRuntimeExecutor : public runtime::CpuExecutor {
 public:
  ~OnnxRuntimeExecutor() override {
    if (sessions_.empty()) return;
    py::gil_scoped_acquire gil;
    sessions_.clear();
  }

  std::string name() const override { return "onnxruntime"; }

  std::vector<HostTensor> run(std::size_t step_index, const container::CpuStep& step,
                              const std::vector<HostTensor>& inputs) override {
    ensure_python_interpreter();
    py::gil_scoped_acquire gil;
    try {
      py::object& session = session_for(step_index, step);
      py::dict feed;
      for (std::size_t i = 0; i < inputs.size(); ++i) feed[py::str(step.inputs.at(i))] = to_numpy_array(inputs[i]);
      py::list names;
      for (const auto& n : step.outputs) names.append(n);
      const py::list results = session.attr("run")(names, feed);
      std::vector<HostTensor> outputs;
      for (std::size_t i = 0; i < step.outputs.size(); ++i)
        outputs.push_back(from_numpy_array(results[i], "CPU step output " + step.outputs[i]));
      return outputs;
    } catch (const py::error_already_set& e) {
      // Python's message can span lines; the CLI promises one.
      std::string what = e.what();
      for (auto& c : what)
        if (c == '\n') c = ' ';
      throw std::runtime_error(fmt::format("CPU step {} (nodes {}): onnxruntime failed: {}", step_index,
                                           nodes_text(step), what));
    }
  }

 private:
  std::map<std::size_t, py::object> sessions_;

  static std::string nodes_text(const container::CpuStep& step) {
    std::string s;
    for (std::size_t i = 0; i < step.node_names.size() && i < 3; ++i) s += (i ? ", " : "") + step.node_names[i];
    if (step.node_names.size() > 3) s += fmt::format(", … {} in all", step.node_names.size());
    return s;
  }

  py::object& session_for(std::size_t step_index, const container::CpuStep& step) {
    auto it = sessions_.find(step_index);
    if (it != sessions_.end()) return it->second;
    py::module_ ort;
    try {
      ort = py::module_::import("onnxruntime");
    } catch (const py::error_already_set& e) {
      throw std::runtime_error(fmt::format(
          "CPU fallback needs the Python package onnxruntime (pip install -r scripts/requirements.txt): {}",
          e.what()));
    }
    py::object options = ort.attr("SessionOptions")();
    // The runtime reports its own time model; one thread keeps runs reproducible and light.
    options.attr("intra_op_num_threads") = 1;
    options.attr("inter_op_num_threads") = 1;
    options.attr("log_severity_level") = 3;
    const py::bytes model(reinterpret_cast<const char*>(step.onnx_model.data()), step.onnx_model.size());
    py::list providers;
    providers.append("CPUExecutionProvider");
    py::object session = ort.attr("InferenceSession")(model, py::arg("sess_options") = options,
                                                       py::arg("providers") = providers);
    return sessions_.emplace(step_index, std::move(session)).first->second;
  }
};

}  // namespace

std::unique_ptr<runtime::CpuExecutor> make_onnxruntime_cpu_executor() { return std::make_unique<OnnxRuntimeExecutor>(); }

}  // namespace npu::python_bridge
