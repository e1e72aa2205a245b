// Compiling and running models from Python. Arrays cross as raw bytes plus a numpy dtype
// string (buffer protocol both ways), never through pybind11/numpy.h: the Debian pybind11
// 2.10 reads numpy's C structs with the pre-2.0 layout and gets item sizes wrong under
// numpy 2. Outputs are handed over without a copy: numpy views the bytes of a TensorBuffer
// that owns the runtime's HostTensor.
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>

#include <fmt/format.h>
#include <pybind11/stl.h>

#include "apps/python/bindings.h"
#include "compiler/host_flops.h"
#include "compiler/quant/quant_spelling.h"
#include "container/compiled_model.h"
#include "isa/program.h"
#include "report/concurrent_report.h"
#include "report/generation_report.h"
#include "report/model_report.h"
#include "report/stream_report.h"
#include "runtime/concurrent.h"
#include "runtime/engine.h"
#include "runtime/generation.h"
#include "runtime/host_time_model.h"

namespace py = pybind11;

namespace npu::python {
namespace {

using container::CompiledModel;

// simulate() may not overlap with itself (one SystemC kernel per process); Python threads
// may call run() concurrently once the GIL is released, so runs take turns here.
std::mutex& simulation_mutex() {
  static std::mutex m;
  return m;
}

std::shared_ptr<CompiledModel> compile_model(const std::string& path, const HardwareConfig& config,
                                             const compiler::QuantSpelling& quant, const std::string& calib, bool strict,
                                             const std::vector<std::string>& input_shapes,
                                             const std::vector<std::string>& input_values, bool* from_onnx) {
  compiler::CompileOptions options;
  compiler::apply_quant_spelling(quant, options);
  options.calibration_dir = calib;
  options.strict = strict;
  options.input_shapes = input_shapes;
  options.input_values = input_values;
  return std::make_shared<CompiledModel>(runtime::load_or_compile(path, config, options, from_onnx));
}

py::bytes program_bytes(const CompiledModel& model) {
  std::vector<std::uint8_t> bytes;
  {
    py::gil_scoped_release release;
    CompiledModel copy = model;  // attach_plan writes into the program
    container::attach_plan(copy);
    bytes = isa::serialize(copy.program);
  }
  return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

std::shared_ptr<CompiledModel> model_from_bytes(const py::bytes& data, const std::string& origin) {
  std::string_view view = data;
  py::gil_scoped_release release;
  return std::make_shared<CompiledModel>(container::plan_from_program(
      isa::deserialize(reinterpret_cast<const std::uint8_t*>(view.data()), view.size(), origin), origin));
}

py::dict describe_tensor(const runtime::TensorDesc& d) {
  py::dict out;
  out["name"] = d.name;
  out["dtype"] = std::string(runtime::element_type_name(d.dtype));
  out["shape"] = d.shape;
  out["layout"] = d.layout;
  return out;
}

// One input from Python: (name, numpy dtype.str such as "<f4", shape, C-contiguous buffer).
runtime::HostTensor host_tensor_from(const std::string& name, const std::string& dtype,
                                     const std::vector<std::int64_t>& shape, const py::buffer& data) {
  const auto type = dtype.size() > 1 && dtype[0] != '>' ? runtime::element_type_from_npy(dtype.substr(1)) : std::nullopt;
  if (!type) throw std::runtime_error(fmt::format("input {}: numpy dtype {} is not supported", name, dtype));
  runtime::HostTensor t = runtime::make_host_tensor(*type, shape);
  const py::buffer_info info = data.request();
  const auto given = static_cast<std::size_t>(info.size * info.itemsize);
  if (given != t.bytes.size())
    throw std::runtime_error(fmt::format("input {}: {} bytes for shape {} of {}", name, given,
                                         runtime::shape_text(shape), dtype));
  if (given) std::memcpy(t.bytes.data(), info.ptr, given);
  return t;
}

// A placed model (runtime::Engine) as Python sees it: numpy-ready outputs and the report as
// JSON text.
class PySession {
 public:
  // `declared`: the ONNX file's own input/output declarations, which refine the boundary as
  // `npusim run` does for ONNX files; read once per file by the caller (parsing a large
  // model costs more than a timing-only run) and shared by every session of that model.
  PySession(std::shared_ptr<CompiledModel> model, HardwareConfig config, std::string model_path,
            std::shared_ptr<runtime::OnnxModelInfo> declared, std::string device,
            std::uint64_t input_misalignment_bytes)
      : model_(model), engine_(loaded(model, std::move(model_path), std::move(declared)), std::move(config),
                               place(std::move(device), input_misalignment_bytes)) {}

  const HardwareConfig& config() const { return engine_.config(); }
  const std::shared_ptr<CompiledModel>& model() const { return model_; }

  py::list inputs() {
    py::list out;
    for (const auto& d : engine_.inputs()) out.append(describe_tensor(d));
    return out;
  }
  py::list outputs() {
    py::list out;
    for (const auto& d : engine_.outputs()) out.append(describe_tensor(d));
    return out;
  }

  // Returns ([(name, dtype, shape, TensorBuffer)], report JSON text).
  py::tuple run(const py::list& inputs, bool timing_only, std::uint64_t seed) {
    runtime::RunRequest request;
    request.timing_only = timing_only;
    request.seed = seed;
    request.notes.given_from = "a numpy array";
    request.notes.how_to_give = [](const std::string& input) {
      return fmt::format("pass inputs={{'{}': array}} for real data", input);
    };
    for (const auto& item : inputs) {
      const auto t = item.cast<py::tuple>();
      const auto name = t[0].cast<std::string>();
      if (request.inputs.count(name)) throw std::runtime_error(fmt::format("input {}: given twice", name));
      request.inputs[name] = host_tensor_from(name, t[1].cast<std::string>(), t[2].cast<std::vector<std::int64_t>>(),
                                              t[3].cast<py::buffer>());
    }
    runtime::RunResult result;
    std::string report;
    {
      py::gil_scoped_release release;  // ONNX Runtime steps take the GIL back themselves
      std::lock_guard<std::mutex> lock(simulation_mutex());
      result = engine_.run(request);
      // The CLI's JSON (energy, area and leakage included).
      report = report::model_report_json(report::build_model_report(engine_.compiled(), engine_.config(),
                                                                    std::move(result.record)),
                                         engine_.config())
                   .dump();
    }
    py::list outputs;
    for (auto& [name, tensor] : result.outputs) {
      const std::string dtype(runtime::element_type_name(tensor.dtype));
      const auto shape = tensor.shape;
      outputs.append(py::make_tuple(name, dtype, shape, py::cast(std::move(tensor))));
    }
    return py::make_tuple(outputs, report);
  }

  // The stream report JSON text (report/stream_report.h); writes the Perfetto trace to
  // trace_path unless it is empty. A stage given as a model (path) is timed on the host.
  std::string stream(int frames, int depth, double pre_us, const std::string& pre_model, double post_us,
                     const std::string& post_model, std::uint64_t seed, const std::string& trace_path) {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(simulation_mutex());
    runtime::StreamOptions options;
    options.frames = frames;
    options.depth = depth;
    auto stage = [&](const std::string& name, double us, const std::string& path) {
      if (!path.empty()) return runtime::host_stage_from_model(name, path, engine_.config(), {});
      runtime::HostStage h;
      h.name = name;
      h.us = us;
      return h;
    };
    options.pre = stage("pre", pre_us, pre_model);
    options.post = stage("post", post_us, post_model);
    const auto result = engine_.stream(options, seed, !trace_path.empty());
    if (!trace_path.empty()) {
      std::ofstream out(trace_path);
      report::write_stream_trace(result, engine_.compiled(), engine_.config(), out);
      if (!out) throw std::runtime_error(trace_path + ": cannot write file");
    }
    return report::stream_report_json(result, engine_.compiled(), engine_.config()).dump();
  }

 private:
  std::shared_ptr<CompiledModel> model_;  // as Python handed it over (Session.compiled gives it back)
  runtime::Engine engine_;

  static runtime::LoadedModel loaded(std::shared_ptr<CompiledModel> model, std::string path,
                                     std::shared_ptr<runtime::OnnxModelInfo> declared) {
    runtime::LoadedModel m;
    m.path = std::move(path);
    m.compiled = std::move(model);
    m.declared = std::move(declared);
    return m;
  }
  static runtime::PlaceOptions place(std::string device, std::uint64_t input_misalignment_bytes) {
    runtime::PlaceOptions p;
    p.device = std::move(device);
    p.input_misalignment_bytes = input_misalignment_bytes;
    return p;
  }
};

}  // namespace

void bind_session(py::module_& m) {
  // A run's output bytes; numpy.frombuffer views them, keeping this object alive.
  py::class_<runtime::HostTensor>(m, "TensorBuffer", py::buffer_protocol())
      .def_buffer([](runtime::HostTensor& t) {
        return py::buffer_info(t.bytes.data(), 1, py::format_descriptor<std::uint8_t>::format(), 1,
                               {static_cast<py::ssize_t>(t.bytes.size())}, {1}, /*readonly=*/false);
      });

  py::class_<CompiledModel, std::shared_ptr<CompiledModel>>(m, "CompiledModel",
                                                             "A compiled program with its execution plan")
      .def_property_readonly("instructions", [](const CompiledModel& c) { return c.program.code.size(); })
      .def_property_readonly("precision", [](const CompiledModel& c) { return container::precision_name(c.precision); })
      .def_readonly("warnings", &CompiledModel::warnings)
      .def_readonly("model_inputs", &CompiledModel::model_inputs)
      .def_readonly("model_outputs", &CompiledModel::model_outputs)
      .def_property_readonly("fallbacks", [](const CompiledModel& c) {
        py::list out;
        for (const auto& f : c.fallbacks) out.append(py::dict(py::arg("node") = f.node, py::arg("op") = f.op,
                                                              py::arg("reason") = f.reason));
        return out;
      })
      .def("to_bytes", &program_bytes, "the .npuprog file contents (program + plan)")
      .def("save", [](CompiledModel& c, const std::string& path) {
        CompiledModel copy = c;
        runtime::save_compiled_model(copy, path);
      });

  m.def("compile_model",
        [](const std::string& path, const HardwareConfig& config, const std::string& precision,
           const std::string& calib, bool strict, const std::vector<std::string>& input_shapes,
           const std::string& calib_method, double calib_percentile, const std::string& activations,
           const std::string& accuracy_target, const std::string& keep_fp16, const std::string& weights,
           const std::string& group_size, const std::vector<std::string>& input_values) {
          compiler::QuantSpelling quant;
          quant.precision = precision;
          quant.calib_method = calib_method;
          quant.calib_percentile = calib_percentile;
          quant.activations = activations;
          quant.accuracy_target = accuracy_target;
          quant.keep_fp16 = keep_fp16;
          quant.weights = weights;
          quant.group_size = group_size;
          bool from_onnx = false;
          std::shared_ptr<CompiledModel> model;
          {
            py::gil_scoped_release release;
            model = compile_model(path, config, quant, calib, strict, input_shapes, input_values, &from_onnx);
          }
          return py::make_tuple(model, from_onnx);
        },
        py::arg("path"), py::arg("config"), py::arg("precision"), py::arg("calib"), py::arg("strict"),
        py::arg("input_shapes"), py::arg("calib_method") = compiler::QuantSpelling{}.calib_method,
        py::arg("calib_percentile") = compiler::QuantSpelling{}.calib_percentile,
        py::arg("activations") = compiler::QuantSpelling{}.activations, py::arg("accuracy_target") = "",
        py::arg("keep_fp16") = "", py::arg("weights") = "", py::arg("group_size") = "",
        py::arg("input_values") = std::vector<std::string>{});
  m.def("model_from_bytes", &model_from_bytes, py::arg("data"), py::arg("origin"));
  m.def("concurrent",
        [](const std::vector<std::string>& paths, const HardwareConfig& config, const std::string& engines,
           const std::string& precision) {
          std::string json;
          {
            py::gil_scoped_release release;
            compiler::CompileOptions options;
            options.precision = container::parse_precision(precision);
            const auto models = runtime::assign_engines(paths, engines, config.engines.count);
            json = report::concurrent_json(runtime::run_concurrent(models, config, options, false), config).dump();
          }
          return json;
        },
        py::arg("paths"), py::arg("config"), py::arg("engines"), py::arg("precision"));

  m.def("generate",
        [](const std::string& prefill, const std::string& decode, const HardwareConfig& config, int prompt, int tokens,
           const std::string& precision, const std::string& weights, const std::string& group_size, const std::string& calib,
           bool timing_only, std::uint64_t seed) {
          std::string json;
          {
            py::gil_scoped_release release;
            compiler::QuantSpelling quant;
            quant.precision = precision;
            quant.weights = weights;
            quant.group_size = group_size;
            compiler::CompileOptions options;
            compiler::apply_quant_spelling(quant, options);
            options.calibration_dir = calib;
            runtime::GenerationOptions generation;
            generation.prompt = prompt;
            generation.tokens = tokens;
            generation.timing_only = timing_only;
            generation.seed = seed;
            json = report::generation_json(runtime::generate(prefill, decode, config, options, generation)).dump();
          }
          return json;
        },
        py::arg("prefill"), py::arg("decode"), py::arg("config"), py::arg("prompt"), py::arg("tokens"), py::arg("precision"),
        py::arg("weights"), py::arg("group_size"), py::arg("calib"), py::arg("timing_only"), py::arg("seed"));

  py::class_<runtime::OnnxModelInfo, std::shared_ptr<runtime::OnnxModelInfo>>(m, "OnnxBoundary",
                                                                            "an ONNX file's declared inputs/outputs");
  m.def("read_onnx_boundary",
        [](const std::string& path) {
          py::gil_scoped_release release;
          return std::make_shared<runtime::OnnxModelInfo>(runtime::read_onnx_model_file_info(path));
        },
        py::arg("path"));

  py::class_<PySession>(m, "Session")
      .def(py::init<std::shared_ptr<CompiledModel>, HardwareConfig, std::string,
                    std::shared_ptr<runtime::OnnxModelInfo>, std::string, std::uint64_t>(),
           py::arg("model"), py::arg("config"), py::arg("model_path"), py::arg("declared").none(true),
           py::arg("device"), py::arg("input_misalignment_bytes") = 0)
      .def_property_readonly("config", &PySession::config)
      .def_property_readonly("model", &PySession::model)
      .def("inputs", &PySession::inputs)
      .def("outputs", &PySession::outputs)
      .def("run", &PySession::run, py::arg("inputs"), py::arg("timing_only"), py::arg("seed"))
      .def("stream", &PySession::stream, py::arg("frames"), py::arg("depth"), py::arg("pre_us"), py::arg("pre_model"),
           py::arg("post_us"), py::arg("post_model"), py::arg("seed"), py::arg("trace_path"));

  m.def("host_flops",
        [](const std::string& path, const std::vector<std::string>& input_shapes) {
          compiler::CompileOptions options;
          options.input_shapes = input_shapes;
          py::gil_scoped_release release;
          return compiler::model_host_flops(path, options);
        },
        py::arg("path"), py::arg("input_shapes"));
  m.def("host_compute_us",
        [](std::uint64_t flops, const HardwareConfig& config) { return runtime::cpu_compute_us(flops, config.host); },
        py::arg("flops"), py::arg("config"));
}

}  // namespace npu::python
