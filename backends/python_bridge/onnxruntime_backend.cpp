// ort:cpu, ort:qnn, ort:openvino — ONNX Runtime with one execution provider each, driven
// through Python (the bridge's interpreter, python_interpreter.h).
//
// Why Python and not ORT's C API: ONNX Runtime's stable C ABI needs onnxruntime_c_api.h, and
// no package registry reachable for this project ships it (the PyPI wheels carry
// libonnxruntime but no headers; the QNN and OpenVINO execution providers are published as
// Python packages: onnxruntime-qnn, onnxruntime-ep-openvino). Declaring the ~300-entry OrtApi
// function table by hand would be guesswork about its layout, so this back end goes through
// the `onnxruntime` Python package instead. OpenVINO does ship C headers, and its back end
// (openvino_backend.cpp) uses the C API.
//
// The three differ only in which execution provider the session gets: tests on ort:cpu run
// the code path that ort:qnn uses. Plugin providers (ORT >= 1.23) are registered from their
// package's library and bound to one of the devices they offer; an ORT build that has the
// provider compiled in is used directly.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <pybind11/embed.h>

#include "backends/onnx_graph_names.h"
#include "backends/python_bridge/bridge.h"
#include "backends/python_bridge/numpy_bridge.h"
#include "backends/python_bridge/python_interpreter.h"

namespace py = pybind11;
using namespace pybind11::literals;

namespace npu::python_bridge {

using backends::BackendAvailability;
using backends::BackendOptions;
using backends::BackendRun;
using backends::InferenceBackend;
using backends::NodePlacement;
using backends::LayerTime;

namespace {

struct Provider {
  const char* device;         // "cpu" | "qnn" | "openvino"
  const char* ep_name;
  const char* plugin_module;  // Python module of the plugin package ("" for CPU)
  const char* plugin_package; // its distribution name, for versions and install hints
};

constexpr Provider kProviders[] = {
    {"cpu", "CPUExecutionProvider", "", ""},
    {"qnn", "QNNExecutionProvider", "onnxruntime_qnn", "onnxruntime-qnn"},
    {"openvino", "OpenVINOExecutionProvider", "onnxruntime_ep_openvino", "onnxruntime-ep-openvino"},
};

std::string package_version(const std::string& package) {
  try {
    return py::str(py::module_::import("importlib.metadata").attr("version")(package));
  } catch (const py::error_already_set&) {
    return "?";
  }
}

// What the plugin package says it needs from onnxruntime, e.g. "onnxruntime>=1.24.2".
std::string onnxruntime_requirement(const std::string& package) {
  try {
    const py::object reqs = py::module_::import("importlib.metadata").attr("requires")(package);
    if (!reqs.is_none())
      for (const auto& r : reqs) {
        const std::string text = py::str(r);
        if (text.rfind("onnxruntime", 0) == 0 && text.find("onnxruntime-") != 0) return text;
      }
  } catch (const py::error_already_set&) {
  }
  return "a newer onnxruntime";
}

// Vendor libraries print banners on stdout while a session loads them (QNN's HTP backend
// does), which would land in the middle of npusim's table or piped JSON: for that span,
// stdout goes to stderr.
class StdoutToStderr {
 public:
  StdoutToStderr() {
    std::fflush(stdout);
    saved_ = ::dup(STDOUT_FILENO);
    if (saved_ >= 0) ::dup2(STDERR_FILENO, STDOUT_FILENO);
  }
  ~StdoutToStderr() {
    if (saved_ < 0) return;
    std::fflush(stdout);
    ::dup2(saved_, STDOUT_FILENO);
    ::close(saved_);
  }
  StdoutToStderr(const StdoutToStderr&) = delete;
  StdoutToStderr& operator=(const StdoutToStderr&) = delete;

 private:
  int saved_ = -1;
};

// Plugin libraries register once per process, whichever backend object asks first.
std::set<std::string>& registered_plugins() {
  static std::set<std::string> names;
  return names;
}

class OnnxRuntimeBackend : public InferenceBackend {
 public:
  explicit OnnxRuntimeBackend(const Provider& p) : provider_(p) {}
  ~OnnxRuntimeBackend() override {
    if (!Py_IsInitialized()) return;
    py::gil_scoped_acquire gil;
    session_ = py::object();
    ep_device_ = py::object();
    last_feed_ = py::object();
  }

  std::string name() const override { return std::string("ort:") + provider_.device; }

  BackendAvailability availability() override {
    ensure_python_interpreter();
    py::gil_scoped_acquire gil;
    BackendAvailability a;
    py::module_ ort;
    try {
      ort = py::module_::import("onnxruntime");
    } catch (const py::error_already_set& e) {
      a.reason = fmt::format("the Python package onnxruntime cannot be imported: {}", one_line(e.what()));
      return a;
    }
    const std::string ort_version = py::str(ort.attr("__version__"));
    a.versions.push_back("onnxruntime " + ort_version);
    const std::string ep = provider_.ep_name;
    const py::list built_in = ort.attr("get_available_providers")();
    for (const auto& p : built_in)
      if (py::str(p).cast<std::string>() == ep) {
        a.available = true;  // compiled into this onnxruntime build (e.g. onnxruntime-openvino)
        return a;
      }
    const std::string module = provider_.plugin_module;
    const std::string package = provider_.plugin_package;
    if (module.empty()) {
      a.reason = fmt::format("onnxruntime {} has no {}", ort_version, ep);
      return a;
    }
    py::module_ plugin;
    try {
      plugin = py::module_::import(module.c_str());
    } catch (const py::error_already_set& e) {
      a.reason = fmt::format("the Python package {} is not installed (pip install -r scripts/requirements.txt): {}",
                             package, one_line(e.what()));
      return a;
    }
    const std::string plugin_version = package_version(package);
    a.versions.push_back(fmt::format("{} {}", package, plugin_version));
    if (!py::hasattr(ort, "register_execution_provider_library")) {
      a.reason = fmt::format("version mismatch: onnxruntime {} cannot load plugin execution providers; {} {} needs {}",
                             ort_version, package, plugin_version, onnxruntime_requirement(package));
      return a;
    }
    std::string library;
    try {
      library = py::str(plugin.attr("get_library_path")());
    } catch (const py::error_already_set& e) {
      a.reason = fmt::format("{} {}: no provider library: {}", package, plugin_version, one_line(e.what()));
      return a;
    }
    if (std::error_code ec; !std::filesystem::exists(library, ec)) {
      a.reason = fmt::format("{} {}: provider library {} does not exist", package, plugin_version, library);
      return a;
    }
    if (!registered_plugins().count(ep)) {
      try {
        ort.attr("register_execution_provider_library")(ep, library);
        registered_plugins().insert(ep);
      } catch (const py::error_already_set& e) {
        a.reason = fmt::format("onnxruntime {} could not load {} {} ({}): {}", ort_version, package, plugin_version,
                               library, one_line(e.what()));
        return a;
      }
    }
    // One device per piece of hardware the plugin claims; prefer an NPU where there is one.
    py::object chosen, host_vendor = py::str("?");
    for (const auto& d : ort.attr("get_ep_devices")()) {
      if (py::str(d.attr("ep_name")).cast<std::string>() == "CPUExecutionProvider") host_vendor = d.attr("device").attr("vendor");
      if (py::str(d.attr("ep_name")).cast<std::string>() != ep) continue;
      const std::string type = py::str(d.attr("device").attr("type"));
      if (!chosen || type.find("NPU") != std::string::npos) chosen = py::reinterpret_borrow<py::object>(d);
    }
    if (!chosen) {
      a.reason = fmt::format("{} {} offers no device on this machine (host CPU vendor {}; it claims only hardware it supports)",
                             package, plugin_version, py::str(host_vendor).cast<std::string>());
      return a;
    }
    ep_device_ = chosen;
    const std::string type = py::str(chosen.attr("device").attr("type"));
    const std::string kind = type.substr(type.rfind('.') + 1);
    // On a PC, onnxruntime-qnn's HTP backend is Qualcomm's emulator running on the host CPU.
    const bool emulated = ep == "QNNExecutionProvider" && kind == "CPU";
    a.versions.push_back(fmt::format("{} device: {} ({}){}", ep, kind,
                                     py::str(chosen.attr("device").attr("vendor")).cast<std::string>(),
                                     emulated ? ", HTP emulator: outputs are the HTP's, latency is not a phone's" : ""));
    a.available = true;
    return a;
  }

  void load(const std::string& onnx_path, const BackendOptions& options) override {
    if (const auto a = availability(); !a.available)
      throw std::runtime_error(fmt::format("device {} is not available: {}", name(), a.reason));
    py::gil_scoped_acquire gil;
    const bool strict = options.strict && std::string(provider_.device) != "cpu";
    try {
      session_ = make_session(onnx_path, strict);
    } catch (const py::error_already_set& e) {
      std::string message = one_line(e.what());
      if (strict) {
        // ORT's message says only that something fell back; a relaxed session says what.
        try {
          session_ = make_session(onnx_path, false);
          std::string nodes;
          std::size_t count = 0;
          for (const auto& p : collect_placement())
            if (p.fallback) nodes += fmt::format("{}{} ({}) on {}", count++ ? ", " : "", p.node, p.op_type, p.device);
          session_ = py::object();
          if (count)
            throw std::runtime_error(fmt::format("{} --strict: {} node(s) would fall back from {}: {}", name(), count,
                                                 provider_.ep_name, nodes));
        } catch (const py::error_already_set&) {
        }
      }
      throw std::runtime_error(fmt::format("{}: cannot create a session for {}: {}", name(), onnx_path, message));
    }
    model_path_ = onnx_path;
    input_names_.clear();
    output_names_.clear();
    for (const auto& i : session_.attr("get_inputs")()) input_names_.push_back(py::str(i.attr("name")));
    for (const auto& o : session_.attr("get_outputs")()) output_names_.push_back(py::str(o.attr("name")));
  }

  BackendRun run(const std::vector<std::pair<std::string, runtime::HostTensor>>& inputs) override {
    py::gil_scoped_acquire gil;
    if (!session_) throw std::runtime_error(name() + ": run before load");
    py::dict feed;
    for (const auto& [n, t] : inputs) feed[py::str(n)] = to_numpy_array(t);
    py::list names;
    for (const auto& n : output_names_) names.append(n);
    BackendRun result;
    py::list values;
    try {
      // Only the inference is timed; the numpy conversions around it are npusim's, not the device's.
      const auto start = std::chrono::steady_clock::now();
      values = session_.attr("run")(names, feed);
      result.latency_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    } catch (const py::error_already_set& e) {
      throw std::runtime_error(fmt::format("{}: inference failed: {}", name(), one_line(e.what())));
    }
    for (std::size_t i = 0; i < output_names_.size(); ++i)
      result.outputs.emplace_back(output_names_[i], from_numpy_array(values[i], "output " + output_names_[i]));
    last_feed_ = feed;
    return result;
  }

  // ORT's profiler: one "<node>_kernel_time" event per node and run, durations in us. The
  // first profiled run is a warm-up (the profiled session is new) and not counted. Nodes its
  // graph passes renamed are traced to their ONNX node (onnx_graph_names.h); those with no
  // ONNX origin (the NCHWc pass's ReorderInput/ReorderOutput) come back `internal`.
  std::vector<LayerTime> layer_times(int runs) override {
    py::gil_scoped_acquire gil;
    if (!last_feed_ || model_path_.empty()) return {};
    py::object session = make_session(model_path_, false, true);
    for (int i = 0; i <= runs; ++i) session.attr("run")(py::none(), last_feed_);
    const std::string file = py::str(session.attr("end_profiling")());
    std::ifstream in(file);
    const auto events = nlohmann::json::parse(in, nullptr, false);
    std::remove(file.c_str());
    if (!events.is_array()) return {};
    const auto onnx = backends::read_onnx_graph_names(model_path_);
    const std::string suffix = "_kernel_time";
    std::vector<LayerTime> out;
    std::map<std::string, std::size_t> index;
    std::map<std::string, int> seen;
    for (const auto& e : events) {
      if (e.value("cat", "") != "Node") continue;
      std::string node = e.value("name", "");
      if (node.size() <= suffix.size() || node.compare(node.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
      node.resize(node.size() - suffix.size());
      if (seen[node]++ == 0) continue;  // the warm-up run
      if (!index.count(node)) {
        index[node] = out.size();
        const auto& args = e.value("args", nlohmann::json::object());
        LayerTime t;
        t.node = node;
        t.op_type = args.value("op_name", "");
        t.onnx_node = backends::onnx_node_of(node, onnx);
        t.internal = t.onnx_node.empty();
        out.push_back(t);
      }
      out[index[node]].time_us += e.value("dur", 0.0) / runs;
    }
    return out;
  }

  std::vector<NodePlacement> placement() override {
    py::gil_scoped_acquire gil;
    if (!session_) return {};
    return collect_placement();
  }

 private:
  Provider provider_;
  py::object ep_device_;  // the plugin device the session is bound to
  py::object session_;
  py::object last_feed_;
  std::string model_path_;
  std::vector<std::string> input_names_, output_names_;

  // Graph assignment info (ORT >= 1.24) names every original node with its provider.
  static bool has_assignment_info(const py::module_& ort) {
    return py::hasattr(ort.attr("InferenceSession"), "get_provider_graph_assignment_info");
  }

  py::object make_session(const std::string& path, bool strict, bool profile = false) {
    const StdoutToStderr quiet;
    const auto ort = py::module_::import("onnxruntime");
    py::object so = ort.attr("SessionOptions")();
    so.attr("log_severity_level") = 4;  // npusim reports failures itself, in one line
    if (has_assignment_info(ort)) so.attr("add_session_config_entry")("session.record_ep_graph_assignment_info", "1");
    if (strict) so.attr("add_session_config_entry")("session.disable_cpu_ep_fallback", "1");
    if (profile) {
      so.attr("enable_profiling") = true;
      so.attr("profile_file_prefix") =
          (std::filesystem::temp_directory_path() / fmt::format("npusim_ort_{}", provider_.device)).string();
    }
    const std::string ep = provider_.ep_name;
    if (ep == "CPUExecutionProvider")
      return ort.attr("InferenceSession")(path, "sess_options"_a = so, "providers"_a = py::make_tuple(ep));
    if (ep_device_ && !ep_device_.is_none()) {
      py::dict provider_options;
      if (ep == "QNNExecutionProvider") provider_options["backend_type"] = "htp";  // the Hexagon NPU
      so.attr("add_provider_for_devices")(py::make_tuple(ep_device_), provider_options);
      return ort.attr("InferenceSession")(path, "sess_options"_a = so);
    }
    return ort.attr("InferenceSession")(path, "sess_options"_a = so,
                                        "providers"_a = py::make_tuple(ep, "CPUExecutionProvider"));
  }

  NodePlacement placed(const std::string& node, const std::string& op, const std::string& ep) const {
    NodePlacement p;
    p.node = node;
    p.op_type = op;
    p.device = ep;
    p.fallback = ep != provider_.ep_name;
    return p;
  }

  std::vector<NodePlacement> collect_placement() {
    std::vector<NodePlacement> out;
    const auto ort = py::module_::import("onnxruntime");
    if (has_assignment_info(ort)) {
      for (const auto& subgraph : session_.attr("get_provider_graph_assignment_info")()) {
        const std::string ep = py::str(subgraph.attr("ep_name"));
        for (const auto& n : subgraph.attr("get_nodes")())
          out.push_back(placed(py::str(n.attr("name")), py::str(n.attr("op_type")), ep));
      }
      return out;
    }
    return profiled_placement();
  }

  // Older ORT: one profiled run; each kernel event names its node and provider. Nodes fused
  // into a compiled partition appear under the partition's name.
  std::vector<NodePlacement> profiled_placement() {
    std::vector<NodePlacement> out;
    if (!last_feed_ || model_path_.empty()) return out;
    py::object session = make_session(model_path_, false, true);
    session.attr("run")(py::none(), last_feed_);
    const std::string file = py::str(session.attr("end_profiling")());
    std::ifstream in(file);
    const auto events = nlohmann::json::parse(in, nullptr, false);
    std::remove(file.c_str());
    std::set<std::string> seen;
    const std::string suffix = "_kernel_time";
    if (!events.is_array()) return out;
    for (const auto& e : events) {
      if (e.value("cat", "") != "Node") continue;
      std::string node = e.value("name", "");
      if (node.size() <= suffix.size() || node.compare(node.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
      node.resize(node.size() - suffix.size());
      if (!seen.insert(node).second) continue;
      const auto& args = e.value("args", nlohmann::json::object());
      out.push_back(placed(node, args.value("op_name", ""), args.value("provider", "")));
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<InferenceBackend> make_onnxruntime_backend(const std::string& device) {
  for (const auto& p : kProviders)
    if (device == p.device) return std::make_unique<OnnxRuntimeBackend>(p);
  throw std::runtime_error(fmt::format("unknown ONNX Runtime device '{}' (cpu, qnn, openvino)", device));
}

}  // namespace npu::python_bridge
