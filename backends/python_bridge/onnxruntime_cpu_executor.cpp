// CPU steps on ONNX Runtime's CPU provider, through the `onnxruntime` Python package (what
// scripts/requirements.txt installs; no registry reachable here ships ORT's C headers), and a
// step that is one TFLite operator with no ONNX equivalent on LiteRT (ai-edge-litert).
#include <algorithm>
#include <map>
#include <stdexcept>

#include <fmt/format.h>
#include <pybind11/embed.h>

#include "backends/python_bridge/bridge.h"
#include "backends/python_bridge/numpy_bridge.h"
#include "backends/python_bridge/python_interpreter.h"
#include "runtime/onnx_model_info.h"

namespace py = pybind11;

namespace npu::python_bridge {

using runtime::HostTensor;

namespace {

class OnnxRuntimeExecutor : public runtime::CpuExecutor {
 public:
  ~OnnxRuntimeExecutor() override {
    if (sessions_.empty() && interpreters_.empty()) return;
    py::gil_scoped_acquire gil;
    sessions_.clear();
    interpreters_.clear();
  }

  std::string name() const override { return "onnxruntime"; }

  // A TFLite operator with no ONNX equivalent: LiteRT's Interpreter on the operator alone. The
  // step's values are float where the operator's tensors are quantised: quantised on the way
  // in with the tensor's scale and zero point, dequantised on the way out.
  std::vector<HostTensor> run_on_litert(std::size_t step_index, const container::CpuStep& step,
                                        const std::vector<HostTensor>& inputs, const std::string& model) {
    try {
      auto it = interpreters_.find(step_index);
      if (it == interpreters_.end()) {
        py::object interpreter = py::module_::import("ai_edge_litert.interpreter")
                                     .attr("Interpreter")(py::arg("model_content") = py::bytes(model));
        interpreter.attr("allocate_tensors")();
        it = interpreters_.emplace(step_index, std::move(interpreter)).first;
      }
      py::object& interpreter = it->second;
      const py::module_ np = py::module_::import("numpy");
      const py::list in_details = interpreter.attr("get_input_details")();
      if (in_details.size() != inputs.size())
        throw std::runtime_error(fmt::format("the operator takes {} inputs, the step gives {}", in_details.size(), inputs.size()));
      for (std::size_t i = 0; i < inputs.size(); ++i) {
        const py::dict d = in_details[i];
        py::object x = to_numpy_array(inputs[i]);
        const py::tuple q = d["quantization"];
        const float scale = q[0].cast<float>();
        if (scale > 0.0f) {
          const py::object info = np.attr("iinfo")(d["dtype"]);
          x = np.attr("clip")(np.attr("round")(x / py::float_(scale)) + q[1], info.attr("min"), info.attr("max"));
        }
        interpreter.attr("set_tensor")(d["index"], x.attr("astype")(d["dtype"]).attr("reshape")(d["shape"]));
      }
      interpreter.attr("invoke")();
      const py::list out_details = interpreter.attr("get_output_details")();
      // The step gives back the operator's outputs read later: each is found by its position among
      // the operator's own.
      const auto names = runtime::tflite_operator_outputs(step.onnx_model);
      std::vector<HostTensor> outputs;
      for (std::size_t i = 0; i < step.outputs.size(); ++i) {
        const auto at = std::find(names.begin(), names.end(), step.outputs[i]);
        const std::size_t k = at == names.end() ? i : static_cast<std::size_t>(at - names.begin());
        if (k >= out_details.size())
          throw std::runtime_error(fmt::format("the operator has {} outputs, the step reads output {} ('{}')", out_details.size(),
                                               k, step.outputs[i]));
        const py::dict d = out_details[k];
        py::object y = interpreter.attr("get_tensor")(d["index"]);
        const py::tuple q = d["quantization"];
        if (q[0].cast<float>() > 0.0f)
          y = ((y.attr("astype")(np.attr("float32")) - q[1]) * q[0]).attr("astype")(np.attr("float32"));
        outputs.push_back(from_numpy_array(y, "CPU step output " + step.outputs[i]));
      }
      return outputs;
    } catch (const py::error_already_set& e) {
      throw std::runtime_error(
          fmt::format("CPU step {} (nodes {}): LiteRT failed: {}", step_index, nodes_text(step), one_line(e.what())));
    }
  }

  std::vector<HostTensor> run(std::size_t step_index, const container::CpuStep& step,
                              const std::vector<HostTensor>& inputs) override {
    ensure_python_interpreter();
    py::gil_scoped_acquire gil;
    if (const std::string tflite = runtime::tflite_operator_model(step.onnx_model); !tflite.empty())
      return run_on_litert(step_index, step, inputs, tflite);
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
      throw std::runtime_error(fmt::format("CPU step {} (nodes {}): onnxruntime failed: {}", step_index,
                                           nodes_text(step), one_line(e.what())));
    }
  }

 private:
  std::map<std::size_t, py::object> sessions_;
  std::map<std::size_t, py::object> interpreters_;

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
