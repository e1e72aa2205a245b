#include "runtime/session.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "runtime/compiled_model_io.h"
#include "runtime/input_check.h"
#include "runtime/input_placement.h"
#include "runtime/sim_totals.h"
#include "runtime/tensor_conversion.h"

namespace npu::runtime {

namespace {

// Where each tensor of one run currently is, and what moving it cost.
class Run {
 public:
  Run(const container::CompiledModel& model, const HardwareConfig& config, const SessionOptions& options,
      const ModelBoundary& boundary, NpuStepExecutor& device, CpuExecutor& cpu, RunRecord& report)
      : model_(model), config_(config), options_(options), boundary_(boundary), device_(device), cpu_(cpu),
        report_(report) {}

  void add_model_inputs(const std::map<std::string, HostTensor>& inputs) {
    for (const auto& [name, tensor] : inputs) {
      host_[name] = tensor;
      model_inputs_.insert(name);
    }
  }

  void npu_step(std::size_t index, const container::NpuStep& step) {
    switch_to(StepKind::Npu);
    for (const auto& name : step.inputs) place_on_npu(index, name);
    sim::SimResult result;
    try {
      result = device_.run(step.first_instruction, step.end_instruction,
                           {options_.timing_only, options_.record_trace, step.engine_starts});
    } catch (const std::exception& e) {
      throw std::runtime_error(with_layer(e.what(), step.first_instruction));
    }
    add_step(report_.npu, result, step.first_instruction, timeline_cycle_);

    StepReport row{"npu", step.first_instruction, step.end_instruction, {}, result.cycles, 0.0, timeline_us()};
    report_.steps.push_back(row);
    timeline_cycle_ += result.cycles;
    for (const auto& name : step.outputs) {
      on_npu_.insert(name);
      host_.erase(name);  // the NPU's copy is now the current one
    }
  }

  // A run-time error of an instruction (a gather index outside its table) names the layer the
  // instruction belongs to: "layer 'wte' (Gather): instruction #3 (gather): ...".
  std::string with_layer(const std::string& message, std::uint32_t step_first) const {
    const std::string head = "instruction #";
    if (message.compare(0, head.size(), head) != 0) return message;
    std::uint64_t local = 0;
    std::size_t at = head.size();
    for (; at < message.size() && std::isdigit(static_cast<unsigned char>(message[at])); ++at)
      local = local * 10 + static_cast<std::uint64_t>(message[at] - '0');
    const std::uint64_t global = step_first + local;
    for (const auto& layer : model_.layers) {
      if (layer.device != "npu") continue;
      const auto own = container::owned_instructions(layer, model_.program.code.size());
      if (std::find(own.begin(), own.end(), global) != own.end())
        return fmt::format("layer '{}' ({}): {}", layer.name, layer.op, message);
    }
    return message;
  }

  void cpu_step(std::size_t index, const container::CpuStep& step) {
    // A step without inputs (outputs folded to constants) waits for nothing the NPU computes:
    // the host has them without handing over.
    if (!step.inputs.empty()) switch_to(StepKind::Cpu);
    std::vector<HostTensor> inputs;
    for (const auto& name : step.inputs) {
      const ElementType wanted = cpu_dtype(index, name);
      HostTensor tensor = fetch_to_host(name, "to cpu", wanted);
      if (!options_.timing_only && tensor.dtype != wanted) {
        // The CPU step's model declares another type (CPU steps compute in FP32 where the
        // model had float16): convert, and say so.
        Conversion record{name, "to cpu", std::string(element_type_name(tensor.dtype)),
                          std::string(element_type_name(wanted)), "cast", 0, true};
        tensor = cast(tensor, wanted);
        record.bytes = tensor.bytes.size();
        report_.conversions.push_back(record);
      }
      inputs.push_back(std::move(tensor));
    }
    const double compute_us = cpu_compute_us(step.flops, config_.host);
    report_.cpu_flops += step.flops;
    report_.host.compute_us += compute_us;
    report_.steps.push_back({"cpu", 0, 0, step.node_names, 0, compute_us, timeline_us()});
    add_host_trace_event("cpu", fmt::format("CPU step {}", index), compute_us);

    if (options_.timing_only) {
      for (const auto& name : step.outputs) host_[name] = HostTensor{};  // present, contents unknown
    } else {
      auto outputs = cpu_.run(index, step, inputs);
      for (std::size_t i = 0; i < step.outputs.size(); ++i) host_[step.outputs[i]] = std::move(outputs.at(i));
    }
    for (const auto& name : step.outputs) {
      on_npu_.erase(name);
      from_cpu_.insert(name);
    }
  }

  std::vector<std::pair<std::string, HostTensor>> collect_outputs() {
    std::vector<std::pair<std::string, HostTensor>> outputs;
    for (const auto& desc : boundary_.outputs) {
      if (!host_.count(desc.name) && !on_npu_.count(desc.name))
        throw std::runtime_error(fmt::format("model output '{}' is computed by no step of the compiled model",
                                             desc.name));
      auto tensor = fetch_to_host(desc.name, "output", desc.constrained ? desc.dtype : ElementType::Float32);
      if (options_.timing_only) continue;
      outputs.emplace_back(desc.name, as_declared(std::move(tensor), desc));
    }
    return outputs;
  }

  void finish() {
    report_.transitions = transitions_;
    report_.host.transition_us = transitions_ * config_.host.transition_us;
    report_.host.transfer_us = transfer_us(report_.transfer_bytes, config_.host);
    report_.host.launch_us = config_.host.launch_us;
    std::size_t npu_layers = 0;
    for (const auto& layer : model_.layers)
      if (layer.device == "npu" && layer.end_instruction > layer.first_instruction) ++npu_layers;
    report_.host.dispatch_us = static_cast<double>(npu_layers) * config_.host.layer_dispatch_us;
    finish_totals(report_.npu, config_);
  }

 private:
  enum class StepKind { None, Npu, Cpu };

  const container::CompiledModel& model_;
  const HardwareConfig& config_;
  const SessionOptions& options_;
  const ModelBoundary& boundary_;
  NpuStepExecutor& device_;
  CpuExecutor& cpu_;
  RunRecord& report_;

  std::map<std::string, HostTensor> host_;  // current host copies, by ONNX name
  std::set<std::string> on_npu_;            // current copies in the device's DDR
  std::set<std::string> model_inputs_;
  std::set<std::string> from_cpu_;          // written by a CPU step
  StepKind last_ = StepKind::None;
  std::uint32_t transitions_ = 0;
  std::uint64_t timeline_cycle_ = 0;

  // The declared ONNX type and shape, where the computed tensor only differs in how it is
  // described (an NPU output in float32 for a float16 model output, a scalar held as [1]).
  static HostTensor as_declared(HostTensor tensor, const TensorDesc& desc) {
    if (!desc.constrained) return tensor;
    if (tensor.dtype != desc.dtype) tensor = cast(tensor, desc.dtype);
    const bool static_shape = std::all_of(desc.shape.begin(), desc.shape.end(), [](std::int64_t d) { return d >= 0; });
    if (static_shape && tensor.shape != desc.shape && desc.element_count() == tensor.element_count())
      tensor.shape = desc.shape;
    return tensor;
  }

  double timeline_us() const { return static_cast<double>(timeline_cycle_) / config_.clock.frequency_mhz; }

  void add_host_trace_event(const std::string& track, const std::string& name, double us) {
    const auto cycles = static_cast<std::uint64_t>(std::llround(us * config_.clock.frequency_mhz));
    if (options_.record_trace) {
      sim::TraceEvent e;
      e.track = track;
      e.name = name;
      e.start_cycle = timeline_cycle_;
      e.duration_cycles = cycles;
      report_.npu.trace.push_back(std::move(e));
    }
    timeline_cycle_ += cycles;
  }

  void switch_to(StepKind kind) {
    if (last_ != StepKind::None && last_ != kind) {
      ++transitions_;
      add_host_trace_event("host", kind == StepKind::Npu ? "CPU→NPU" : "NPU→CPU", config_.host.transition_us);
    }
    last_ = kind;
  }

  ElementType cpu_dtype(std::size_t step_index, const std::string& name) const {
    for (const auto& d : boundary_.cpu_steps.at(step_index).inputs)
      if (d.name == name) return d.dtype;
    return ElementType::Float32;  // CPU steps are FP32 models
  }

  // A tensor crossing between the host and the NPU: model I/O or a CPU<->NPU transfer.
  void count_transfer(const std::string& name, std::uint64_t bytes) {
    if (model_inputs_.count(name)) report_.io_bytes += bytes;
    else report_.transfer_bytes += bytes;
    if (!model_inputs_.count(name)) add_host_trace_event("host", "copy " + name, transfer_us(bytes, config_.host));
  }

  void place_on_npu(std::size_t step_index, const std::string& name) {
    if (on_npu_.count(name)) return;
    const auto* entry = find_npu_tensor(model_.program, name);
    if (!entry) throw std::runtime_error(fmt::format("NPU step {} reads '{}', which the program's tensor table lacks",
                                                     step_index, name));
    if (entry->role == isa::TensorRole::Constant) return;  // placed with the program's data
    const auto it = host_.find(name);
    if (it == host_.end())
      throw std::runtime_error(fmt::format("NPU step {} reads '{}', which no input or earlier step provides",
                                           step_index, name));
    count_transfer(name, entry->size_bytes);
    if (!options_.timing_only) {
      Conversion record;
      const auto bytes = to_npu(it->second, *entry, model_inputs_.count(name) ? "input" : "to npu", &record);
      device_.write_tensor(*entry, bytes);
      report_.conversions.push_back(record);
    }
    on_npu_.insert(name);
  }

  HostTensor fetch_to_host(const std::string& name, const std::string& role, ElementType dtype) {
    if (const auto it = host_.find(name); it != host_.end()) return it->second;
    if (!on_npu_.count(name))
      throw std::runtime_error(fmt::format("'{}' is needed but no input or earlier step provides it", name));
    const auto* entry = find_npu_tensor(model_.program, name);
    if (!entry) throw std::runtime_error(fmt::format("'{}' is missing from the program's tensor table", name));
    if (role == "output") report_.io_bytes += entry->size_bytes;
    else count_transfer(name, entry->size_bytes);
    HostTensor tensor;
    if (!options_.timing_only) {
      Conversion record;
      tensor = from_npu(device_.read_tensor(*entry), *entry, dtype, role, &record);
      report_.conversions.push_back(record);
    }
    host_[name] = tensor;
    return tensor;
  }
};

}  // namespace

Session::Session(container::CompiledModel model, HardwareConfig config, SessionOptions options, std::string model_path)
    : model_(std::move(model)), config_(std::move(config)), options_(std::move(options)),
      model_path_(std::move(model_path)) {
  boundary_ = model_boundary(model_);
  std::vector<std::string> npu_inputs;
  for (const auto& name : model_.model_inputs)
    if (find_npu_tensor(model_.program, name)) npu_inputs.push_back(name);
  placement_notes_ =
      misalign_inputs(model_.program, npu_inputs, options_.input_misalignment_bytes, config_.ddr.capacity_bytes);
  device_ = make_npu_step_executor(options_.device, config_);
  device_->load(model_.program);
  cpu_ = make_integer_cpu_kernels(make_float_evaluator_executor(make_onnxruntime_executor()));
}

Session::~Session() = default;

RunResult Session::run(const std::map<std::string, HostTensor>& inputs,
                       const std::map<std::string, std::string>& origins) {
  check_inputs(boundary_.inputs, inputs, origins);
  RunResult result;
  RunRecord& report = result.record;
  report.model = model_path_;
  report.precision = container::precision_name(model_.precision);
  report.quantization = model_.quantization;
  report.device = device_->name();
  report.timing_only = options_.timing_only;
  report.fallbacks = model_.fallbacks;
  report.warnings = model_.warnings;
  report.notes = placement_notes_;

  Run run(model_, config_, options_, boundary_, *device_, *cpu_, report);
  run.add_model_inputs(inputs);
  for (std::size_t i = 0; i < model_.steps.size(); ++i) {
    const auto& step = model_.steps[i];
    if (step.kind == container::Step::Kind::Npu) run.npu_step(i, step.npu);
    else run.cpu_step(i, step.cpu);
  }
  result.outputs = run.collect_outputs();
  run.finish();
  return result;
}

}  // namespace npu::runtime
