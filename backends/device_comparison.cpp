#include "compiler/frontend/model_import.h"
#include "compiler/frontend/onnx_io.h"
#include "compiler/frontend/passes.h"
#include "isa/whole_file.h"
#include "backends/device_comparison.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "runtime/input_check.h"
#include "runtime/onnx_model_info.h"
#include "runtime/tensor_conversion.h"

namespace npu::backends {

std::size_t DeviceComparison::fallback_nodes() const {
  return static_cast<std::size_t>(std::count_if(placement.begin(), placement.end(), [](const auto& p) { return p.fallback; }));
}

namespace {

using NamedTensors = std::vector<std::pair<std::string, runtime::HostTensor>>;

// A one-element tensor of `desc`'s type holding `value` (--input-value), as the real devices are
// fed what the simulator's compiler folded.
runtime::HostTensor value_tensor(const runtime::TensorDesc& desc, double value) {
  runtime::HostTensor t = runtime::make_host_tensor(runtime::ElementType::Float64, desc.shape);
  if (t.element_count() != 1)
    throw std::runtime_error(fmt::format("--input-value {}: the input has {} elements, not one", desc.name, t.element_count()));
  *t.data<double>() = value;
  return runtime::cast(t, desc.dtype);
}

NamedTensors model_inputs(const std::string& model_path, const CompareOptions& options, std::vector<std::string>* notes) {
  const auto info = runtime::read_onnx_model_file_info(model_path);
  auto declared = info.inputs;
  const auto find = [&](const std::string& name, const std::string& option) -> runtime::TensorDesc& {
    for (auto& desc : declared)
      if (desc.name == name) return desc;
    throw std::runtime_error(fmt::format("{} {}: the model has no such input", option, name));
  };
  for (const auto& spec : options.input_shapes) {
    auto [name, dims] = compiler::parse_input_shape(spec, model_path);
    find(name, "--input-shape").shape = std::move(dims);
  }
  std::map<std::string, double> values;
  for (const auto& spec : options.input_values) {
    const auto [name, value] = compiler::parse_input_value(spec, model_path);
    find(name, "--input-value");
    values[name] = value;
  }
  for (auto& desc : declared)
    for (auto& d : desc.shape)
      if (d < 0) d = 1;  // dynamic dims left: batch 1, the common case; --input-shape for others
  // The engine's inputs for this seed, as every back end gets the same ones.
  auto generated = runtime::generate_inputs(declared, options.seed);
  NamedTensors inputs;
  for (std::size_t i = 0; i < declared.size(); ++i) {
    const auto& desc = declared[i];
    if (auto it = options.inputs.find(desc.name); it != options.inputs.end()) {
      inputs.emplace_back(desc.name, it->second);
      notes->push_back(fmt::format("input {}: given", desc.name));
      continue;
    }
    if (auto it = values.find(desc.name); it != values.end()) {
      inputs.emplace_back(desc.name, value_tensor(desc, it->second));
      notes->push_back(fmt::format("input {}: {} (--input-value)", desc.name, it->second));
      continue;
    }
    if (auto it = info.initial_values.find(desc.name); it != info.initial_values.end()) {
      // A streaming model's state: where LiteRT starts, so both sides compute the same first call.
      inputs.emplace_back(desc.name, it->second);
      notes->push_back(fmt::format("input {}: its value before the first call (the file's CALL_ONCE)", desc.name));
      continue;
    }
    inputs.emplace_back(desc.name, std::move(generated.at(desc.name)));
    notes->push_back(fmt::format("input {}: random {} (seed {})", desc.name, runtime::describe(desc), options.seed + i));
  }
  for (const auto& given : options.inputs)  // not a structured binding: lambdas capture it (clang 14)
    if (std::none_of(declared.begin(), declared.end(), [&](const auto& d) { return d.name == given.first; }))
      throw std::runtime_error(fmt::format("--input {}: the model has no such input", given.first));
  return inputs;
}

std::vector<OutputMatch> match_outputs(const NamedTensors& reference, const NamedTensors& outputs) {
  std::vector<OutputMatch> matches;
  for (const auto& [name, value] : outputs) {
    const std::string& wanted = name;  // lambdas cannot capture structured bindings before C++20
    auto it = std::find_if(reference.begin(), reference.end(), [&](const auto& r) { return r.first == wanted; });
    if (it == reference.end()) continue;  // e.g. an extra output a stack adds
    matches.push_back(match_output(name, it->second, value));
  }
  return matches;
}

}  // namespace

Comparison compare_on_devices(const std::string& model_path, const HardwareConfig& config, const CompareOptions& options) {
  if (options.runs < 1) throw std::runtime_error("--runs must be at least 1");
  if (options.warmup < 0) throw std::runtime_error("--warmup must not be negative");
  Comparison c;
  c.model = model_path;
  c.config = config.name;
  c.runs = options.runs;
  c.warmup = options.warmup;
  c.strict = options.strict;

  // Every requested device must be usable before anything runs: one line saying which is not.
  std::vector<std::unique_ptr<InferenceBackend>> backends;
  backends.push_back(make_backend("sim", config));
  for (const auto& name : options.devices) {
    auto backend = make_backend(name, config);
    if (std::any_of(backends.begin(), backends.end(), [&](const auto& b) { return b->name() == backend->name(); }))
      continue;
    const auto a = backend->availability();
    if (!a.available) throw std::runtime_error(fmt::format("device {} is not available: {}", backend->name(), a.reason));
    backends.push_back(std::move(backend));
  }

  const auto inputs = model_inputs(model_path, options, &c.input_notes);
  // Every device loads (the simulator compiles) before anything runs: a model one of them
  // refuses is its one line, not a reference run's error about inputs it was never meant for.
  for (auto& backend : backends) {
    BackendOptions bo;
    // --strict is about the real stacks: the simulator's own CPU steps show in its placement.
    bo.strict = options.strict && !backend->simulated();
    bo.timing_only = options.sim_timing_only;
    bo.sim_precision = options.sim_precision;
    bo.input_shapes = options.input_shapes;
    bo.input_values = options.input_values;
    backend->load(model_path, bo);
  }

  NamedTensors reference;
  if (const auto bytes = isa::read_whole_file(model_path);
      bytes && compiler::model_format(*bytes) == compiler::ModelFormat::Tflite)
    c.reference = "litert:cpu";  // TFLite's own runtime, as ONNX Runtime is ONNX's
  auto ref = make_backend(c.reference, config);
  if (const auto a = ref->availability(); !a.available) {
    c.reference_problem = fmt::format("{} is not available: {}", c.reference, a.reason);
  } else {
    ref->load(model_path, BackendOptions{});
    reference = ref->run(inputs).outputs;
  }

  for (auto& backend : backends) {
    DeviceComparison d;
    d.device = backend->name();
    d.simulated = backend->simulated();
    d.versions = backend->availability().versions;
    // The simulator is deterministic: one run is its latency. Real devices warm up (caches,
    // clocks, lazy allocation) and then are timed run by run.
    const int warmup = d.simulated ? 0 : options.warmup;
    const int runs = d.simulated ? 1 : options.runs;
    for (int i = 0; i < warmup; ++i) backend->run(inputs);
    std::vector<double> times;
    BackendRun last;
    for (int i = 0; i < runs; ++i) {
      last = backend->run(inputs);
      times.push_back(last.latency_us);
    }
    d.latency = latency_stats(times);
    if (!reference.empty()) d.outputs = match_outputs(reference, last.outputs);
    d.placement = backend->placement();
    if (options.layer_runs > 0 && !d.simulated) {
      d.layer_times = backend->layer_times(options.layer_runs);
      if (d.layer_times.empty())
        throw std::runtime_error(fmt::format("--per-layer: {} gives no per-node times (its runtime has no profiler "
                                             "npusim reads)", d.device));
    }
    c.devices.push_back(std::move(d));
  }
  return c;
}

}  // namespace npu::backends
