// openvino:NPU, openvino:CPU, openvino:GPU — OpenVINO's runtime through its C API, loaded at
// run time (openvino_library.h). The three differ only in the device name handed to
// ov_core_compile_model, so tests on openvino:CPU exercise the NPU's code path.
//
// The model is compiled for exactly the requested device, never "AUTO" or "HETERO:NPU,CPU":
// OpenVINO then either places every layer there or fails naming the layer, so nothing can
// move to the CPU silently and --strict holds by construction. The execution graph (layer,
// type, execType, runtime precision) comes from per-layer profiling (PERF_COUNT), the C API's
// view of the runtime model; the device from the compiled model's EXECUTION_DEVICES.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>

#include "backends/backend_factories.h"
#include "backends/openvino_layer_times.h"
#include "backends/openvino_library.h"

namespace fs = std::filesystem;

namespace npu::backends {

namespace {

// A handle freed by the library's own function.
template <typename T>
struct Owned {
  T* ptr = nullptr;
  void (*release)(T*) = nullptr;
  Owned() = default;
  Owned(T* p, void (*r)(T*)) : ptr(p), release(r) {}
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  Owned(Owned&& o) noexcept : ptr(o.ptr), release(o.release) { o.ptr = nullptr; }
  Owned& operator=(Owned&& o) noexcept {
    std::swap(ptr, o.ptr);
    std::swap(release, o.release);
    return *this;
  }
  ~Owned() {
    if (ptr && release) release(ptr);
  }
};

struct TypePair {
  runtime::ElementType ours;
  ov::ElementType theirs;
};
constexpr TypePair kTypes[] = {
    {runtime::ElementType::Float32, ov::ElementType::F32}, {runtime::ElementType::Float16, ov::ElementType::F16},
    {runtime::ElementType::Float64, ov::ElementType::F64}, {runtime::ElementType::Int8, ov::ElementType::I8},
    {runtime::ElementType::UInt8, ov::ElementType::U8},    {runtime::ElementType::Int16, ov::ElementType::I16},
    {runtime::ElementType::UInt16, ov::ElementType::U16},  {runtime::ElementType::Int32, ov::ElementType::I32},
    {runtime::ElementType::UInt32, ov::ElementType::U32},  {runtime::ElementType::Int64, ov::ElementType::I64},
    {runtime::ElementType::UInt64, ov::ElementType::U64},  {runtime::ElementType::Bool, ov::ElementType::Boolean},
};

std::optional<runtime::ElementType> ours_from(ov::ElementType t) {
  for (const auto& p : kTypes)
    if (p.theirs == t) return p.ours;
  return std::nullopt;
}
ov::ElementType theirs_from(runtime::ElementType t) {
  for (const auto& p : kTypes)
    if (p.ours == t) return p.theirs;
  return ov::ElementType::Undefined;
}

// The precision token of a CPU execType ("brgconv_avx512_bf16" -> "bf16", "jit_uni_f32" -> "f32").
std::string precision_of(const std::string& exec_type) {
  std::string lower = exec_type;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* token : {"bf16", "fp16", "f16", "fp32", "f32", "i8", "u8", "i32", "i64"}) {
    const auto at = lower.rfind(token);
    if (at != std::string::npos && at + std::string(token).size() == lower.size()) return token;
  }
  return "";
}

// Device node the kernel driver creates for the device; empty when none is needed.
std::string missing_device_node(const std::string& device) {
  auto any_with_prefix = [](const fs::path& dir, const std::string& prefix) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
      if (e.path().filename().string().rfind(prefix, 0) == 0) return true;
    return false;
  };
  if (device == "NPU" && !any_with_prefix("/dev/accel", "accel"))
    return "no device node /dev/accel/accel0 (the Intel NPU kernel driver intel_vpu is not loaded or there is no NPU)";
  if (device == "GPU" && !any_with_prefix("/dev/dri", "renderD"))
    return "no device node /dev/dri/renderD* (no Intel GPU or its i915/xe driver is not loaded)";
  return "";
}

class OpenVinoBackend : public InferenceBackend {
 public:
  explicit OpenVinoBackend(std::string device) : device_(std::move(device)) {}

  std::string name() const override { return "openvino:" + device_; }

  BackendAvailability availability() override {
    BackendAvailability a;
    const OpenVinoLibrary* lib = nullptr;
    try {
      lib = &OpenVinoLibrary::get();
    } catch (const std::exception& e) {
      a.reason = e.what();
      return a;
    }
    a.versions.push_back(fmt::format("openvino {} ({})", lib->version(), lib->path()));
    std::string lower = device_;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    const auto plugin = fs::path(lib->path()).parent_path() / fmt::format("libopenvino_intel_{}_plugin.so", lower);
    if (std::error_code ec; !fs::exists(plugin, ec)) {
      a.reason = fmt::format("plugin missing: no {} beside {}", plugin.filename().string(), lib->path());
      return a;
    }
    try {
      Core& core = core_handle();
      const auto& api = lib->api();
      ov::CoreVersionList versions{};
      if (api.core_get_versions_by_device_name(core.ptr, device_.c_str(), &versions) == ov::kOk) {
        for (std::size_t i = 0; i < versions.size; ++i) {
          const auto& v = versions.versions[i];
          const std::string build = v.version.build_number ? v.version.build_number : "?";
          a.versions.push_back(fmt::format("{} plugin {}", v.device_name ? v.device_name : device_, build));
          // A plugin from another release than the runtime is the classic half-upgraded install.
          if (build.substr(0, build.find('-')) != lib->version().substr(0, lib->version().find('-')))
            a.reason = fmt::format("version mismatch: {} plugin {} but OpenVINO runtime {}", device_, build, lib->version());
        }
        api.core_versions_free(&versions);
      }
      if (!a.reason.empty()) return a;
      const auto seen = available_devices();
      std::string listed;
      bool found = false;
      for (const auto& d : seen) {
        listed += (listed.empty() ? "" : ", ") + d;
        found = found || d == device_ || d.rfind(device_ + ".", 0) == 0;
      }
      if (!found) {
        const auto node = missing_device_node(device_);
        a.reason = node.empty()
                       ? fmt::format("OpenVINO {} sees devices [{}] but no {}: its plugin found no usable device "
                                     "(driver or firmware older than the plugin needs?)",
                                     lib->version(), listed, device_)
                       : fmt::format("{}; OpenVINO {} sees devices [{}]", node, lib->version(), listed);
        return a;
      }
    } catch (const std::exception& e) {
      a.reason = e.what();
      return a;
    }
    a.available = true;
    return a;
  }

  void load(const std::string& onnx_path, const BackendOptions&) override {
    const auto& api = OpenVinoLibrary::get().api();
    compiled_ = compile(onnx_path);
    model_path_ = onnx_path;
    last_inputs_.clear();
    execution_devices_ = property("EXECUTION_DEVICES");
    request_ = create_request(compiled_);
    input_types_.clear();
    input_names_ = port_names(api.compiled_model_inputs_size, api.compiled_model_input_by_index, &input_types_);
    output_names_ = port_names(api.compiled_model_outputs_size, api.compiled_model_output_by_index, nullptr);
  }

  BackendRun run(const std::vector<std::pair<std::string, runtime::HostTensor>>& inputs) override {
    const auto& lib = OpenVinoLibrary::get();
    const auto& api = lib.api();
    if (!request_.ptr) throw std::runtime_error(name() + ": run before load");
    set_inputs(request_, inputs);
    BackendRun result;
    const auto start = std::chrono::steady_clock::now();
    if (auto s = api.infer_request_infer(request_.ptr); s != ov::kOk)
      throw std::runtime_error(fmt::format("{}: inference failed: {}", name(), lib.error_text(s)));
    result.latency_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    for (std::size_t i = 0; i < output_names_.size(); ++i) result.outputs.emplace_back(output_names_[i], output(i));
    last_inputs_ = inputs;
    return result;
  }

  // A model compiled afresh, so that its counters hold nothing but these runs (they are
  // running means since compile: openvino_layer_times.h); the first runs warm it up.
  std::vector<LayerTime> layer_times(int runs) override {
    const auto& lib = OpenVinoLibrary::get();
    const auto& api = lib.api();
    if (!request_.ptr || last_inputs_.empty() || runs < 1) return {};
    const auto compiled = compile(model_path_);
    const auto request = create_request(compiled);
    set_inputs(request, last_inputs_);
    constexpr int kWarmupRuns = 2;
    std::vector<OpenVinoCounter> before;
    for (int i = 0; i < kWarmupRuns + runs; ++i) {
      if (auto s = api.infer_request_infer(request.ptr); s != ov::kOk)
        throw std::runtime_error(fmt::format("{}: profiled inference failed: {}", name(), lib.error_text(s)));
      if (i + 1 == kWarmupRuns) before = counters(request);
    }
    return openvino_layer_times(before, kWarmupRuns, counters(request), kWarmupRuns + runs,
                                read_onnx_graph_names(model_path_));
  }

 private:
  void set_inputs(const Owned<ov::InferRequest>& request,
                  const std::vector<std::pair<std::string, runtime::HostTensor>>& inputs) const {
    const auto& lib = OpenVinoLibrary::get();
    const auto& api = lib.api();
    for (std::size_t i = 0; i < input_names_.size(); ++i) {
      auto it = std::find_if(inputs.begin(), inputs.end(), [&](const auto& p) { return p.first == input_names_[i]; });
      if (it == inputs.end()) throw std::runtime_error(fmt::format("{}: no value for input {}", name(), input_names_[i]));
      const runtime::HostTensor& t = it->second;
      if (theirs_from(t.dtype) != input_types_[i])
        throw std::runtime_error(fmt::format("{}: input {} is {}, the compiled model takes another element type",
                                             name(), input_names_[i], runtime::element_type_name(t.dtype)));
      ov::Shape shape{};
      api.shape_create(static_cast<std::int64_t>(t.shape.size()), t.shape.data(), &shape);
      ov::Tensor* raw = nullptr;
      // The tensor wraps our bytes without copying; `inputs` outlives the inference below.
      const auto s = api.tensor_create_from_host_ptr(lib.element_type_code(input_types_[i]), shape,
                                                     const_cast<std::uint8_t*>(t.bytes.data()), &raw);
      api.shape_free(&shape);
      if (s != ov::kOk) throw std::runtime_error(fmt::format("{}: input {}: {}", name(), input_names_[i], lib.error_text(s)));
      Owned<ov::Tensor> tensor(raw, api.tensor_free);
      if (auto s2 = api.infer_request_set_input_tensor_by_index(request.ptr, i, tensor.ptr); s2 != ov::kOk)
        throw std::runtime_error(fmt::format("{}: input {}: {}", name(), input_names_[i], lib.error_text(s2)));
    }
  }

  std::vector<OpenVinoCounter> counters(const Owned<ov::InferRequest>& request) const {
    const auto& lib = OpenVinoLibrary::get();
    const auto& api = lib.api();
    ov::ProfilingInfoList list{};
    if (auto s = api.infer_request_get_profiling_info(request.ptr, &list); s != ov::kOk)
      throw std::runtime_error(fmt::format("{}: no per-layer counters: {}", name(), lib.error_text(s)));
    std::vector<OpenVinoCounter> out;
    for (std::size_t i = 0; i < list.size; ++i) {
      const auto& info = list.infos[i];
      OpenVinoCounter c;
      c.node = info.node_name ? info.node_name : "";
      c.node_type = info.node_type ? info.node_type : "";
      c.exec_type = info.exec_type ? info.exec_type : "";
      c.executed = info.status == ov::ProfilingInfo::State::Executed;
      c.mean_us = static_cast<double>(info.real_time_us);
      out.push_back(std::move(c));
    }
    api.profiling_info_list_free(&list);
    return out;
  }

 public:
  std::vector<NodePlacement> placement() override {
    const auto& lib = OpenVinoLibrary::get();
    const auto& api = lib.api();
    std::vector<NodePlacement> layers;
    if (!request_.ptr) return layers;
    ov::ProfilingInfoList list{};
    if (auto s = api.infer_request_get_profiling_info(request_.ptr, &list); s != ov::kOk)
      throw std::runtime_error(fmt::format("{}: no execution info: {}", name(), lib.error_text(s)));
    const std::string device = execution_devices_.empty() ? device_ : execution_devices_;
    for (std::size_t i = 0; i < list.size; ++i) {
      const auto& info = list.infos[i];
      if (info.status != ov::ProfilingInfo::State::Executed) continue;  // folded into another layer
      NodePlacement p;
      p.node = info.node_name ? info.node_name : "";
      p.op_type = info.node_type ? info.node_type : "";
      p.exec_type = info.exec_type ? info.exec_type : "";
      p.precision = precision_of(p.exec_type);
      p.device = device;
      p.fallback = device_ != "CPU" && device.find("CPU") != std::string::npos;
      layers.push_back(std::move(p));
    }
    api.profiling_info_list_free(&list);
    return layers;
  }

 private:
  using Core = Owned<ov::Core>;
  std::string device_;
  Core core_;
  Owned<ov::CompiledModel> compiled_;
  Owned<ov::InferRequest> request_;
  std::string execution_devices_;
  std::string model_path_;
  std::vector<std::pair<std::string, runtime::HostTensor>> last_inputs_;  // of the last run, for layer_times
  std::vector<std::string> input_names_, output_names_;
  std::vector<ov::ElementType> input_types_;

  Core& core_handle() {
    if (core_.ptr) return core_;
    const auto& lib = OpenVinoLibrary::get();
    ov::Core* raw = nullptr;
    if (auto s = lib.api().core_create(&raw); s != ov::kOk)
      throw std::runtime_error(fmt::format("OpenVINO {}: cannot create a core: {}", lib.version(), lib.error_text(s)));
    core_ = Core(raw, lib.api().core_free);
    return core_;
  }

  // PERF_COUNT: per-layer counters after each inference (the execution graph, placement()).
  Owned<ov::CompiledModel> compile(const std::string& onnx_path) {
    const auto& lib = OpenVinoLibrary::get();
    const auto& api = lib.api();
    Core& core = core_handle();
    ov::Model* raw_model = nullptr;
    if (auto s = api.core_read_model(core.ptr, onnx_path.c_str(), nullptr, &raw_model); s != ov::kOk)
      throw std::runtime_error(fmt::format("{}: cannot read {}: {}", name(), onnx_path, lib.error_text(s)));
    Owned<ov::Model> model(raw_model, api.model_free);
    ov::CompiledModel* raw_compiled = nullptr;
    if (auto s = api.core_compile_model(core.ptr, model.ptr, device_.c_str(), 2, &raw_compiled, "PERF_COUNT", "YES");
        s != ov::kOk)
      throw std::runtime_error(fmt::format("{}: compile failed: {}", name(), lib.error_text(s)));
    return Owned<ov::CompiledModel>(raw_compiled, api.compiled_model_free);
  }

  Owned<ov::InferRequest> create_request(const Owned<ov::CompiledModel>& compiled) const {
    const auto& lib = OpenVinoLibrary::get();
    ov::InferRequest* raw = nullptr;
    if (auto s = lib.api().compiled_model_create_infer_request(compiled.ptr, &raw); s != ov::kOk)
      throw std::runtime_error(fmt::format("{}: cannot create an infer request: {}", name(), lib.error_text(s)));
    return Owned<ov::InferRequest>(raw, lib.api().infer_request_free);
  }

  std::vector<std::string> available_devices() {
    const auto& api = OpenVinoLibrary::get().api();
    ov::AvailableDevices devices{};
    std::vector<std::string> names;
    if (api.core_get_available_devices(core_handle().ptr, &devices) != ov::kOk) return names;
    for (std::size_t i = 0; i < devices.size; ++i) names.emplace_back(devices.devices[i]);
    api.available_devices_free(&devices);
    return names;
  }

  std::string property(const char* key) const {
    const auto& api = OpenVinoLibrary::get().api();
    char* value = nullptr;
    if (api.compiled_model_get_property(compiled_.ptr, key, &value) != ov::kOk || !value) return "";
    std::string text = value;
    api.free_string(value);
    return text;
  }

  using SizeFn = ov::Status (*)(const ov::CompiledModel*, std::size_t*);
  using PortFn = ov::Status (*)(const ov::CompiledModel*, std::size_t, ov::ConstPort**);
  std::vector<std::string> port_names(SizeFn size_fn, PortFn port_fn, std::vector<ov::ElementType>* types) const {
    const auto& lib = OpenVinoLibrary::get();
    const auto& api = lib.api();
    std::size_t count = 0;
    size_fn(compiled_.ptr, &count);
    std::vector<std::string> names;
    for (std::size_t i = 0; i < count; ++i) {
      ov::ConstPort* raw = nullptr;
      if (auto s = port_fn(compiled_.ptr, i, &raw); s != ov::kOk)
        throw std::runtime_error(fmt::format("{}: port {}: {}", name(), i, lib.error_text(s)));
      Owned<ov::ConstPort> port(raw, api.output_const_port_free);
      char* text = nullptr;
      names.emplace_back(api.port_get_any_name(port.ptr, &text) == ov::kOk && text ? text : fmt::format("port{}", i));
      if (text) api.free_string(text);
      if (types) {
        int code = 0;
        api.port_get_element_type(port.ptr, &code);
        types->push_back(lib.element_type_from_code(code));
      }
    }
    return names;
  }

  runtime::HostTensor output(std::size_t index) const {
    const auto& lib = OpenVinoLibrary::get();
    const auto& api = lib.api();
    ov::Tensor* raw = nullptr;
    if (auto s = api.infer_request_get_output_tensor_by_index(request_.ptr, index, &raw); s != ov::kOk)
      throw std::runtime_error(fmt::format("{}: output {}: {}", name(), output_names_[index], lib.error_text(s)));
    Owned<ov::Tensor> tensor(raw, api.tensor_free);
    int code = 0;
    api.tensor_get_element_type(tensor.ptr, &code);
    const auto dtype = ours_from(lib.element_type_from_code(code));
    if (!dtype)
      throw std::runtime_error(fmt::format("{}: output {} has an element type npusim cannot hold (code {})", name(),
                                           output_names_[index], code));
    ov::Shape shape{};
    api.tensor_get_shape(tensor.ptr, &shape);
    std::vector<std::int64_t> dims(shape.dims, shape.dims + shape.rank);
    api.shape_free(&shape);
    runtime::HostTensor t = runtime::make_host_tensor(*dtype, dims);
    std::size_t bytes = 0;
    void* data = nullptr;
    api.tensor_get_byte_size(tensor.ptr, &bytes);
    api.tensor_data(tensor.ptr, &data);
    if (bytes != t.bytes.size())
      throw std::runtime_error(fmt::format("{}: output {}: {} bytes for {} elements", name(), output_names_[index], bytes,
                                           t.element_count()));
    std::copy_n(static_cast<const std::uint8_t*>(data), bytes, t.bytes.begin());
    return t;
  }
};

}  // namespace

std::unique_ptr<InferenceBackend> make_openvino_backend(const std::string& device) {
  return std::make_unique<OpenVinoBackend>(device);
}

}  // namespace npu::backends
