#include "runtime/model_boundary.h"

#include <stdexcept>

#include <fmt/format.h>

#include "runtime/tensor_conversion.h"

namespace npu::runtime {

namespace {

const TensorDesc* find_desc(const std::vector<TensorDesc>& descs, const std::string& name) {
  for (const auto& d : descs)
    if (d.name == name) return &d;
  return nullptr;
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
  for (const auto& n : names)
    if (n == name) return true;
  return false;
}

}  // namespace

const isa::TensorEntry* find_npu_tensor(const isa::Program& program, const std::string& name) {
  for (const auto& t : program.tensors)
    if (t.name == name) return &t;
  return nullptr;
}

ModelBoundary model_boundary(const container::CompiledModel& model) {
  ModelBoundary boundary;
  auto& cpu_infos = boundary.cpu_steps;
  cpu_infos.resize(model.steps.size());
  for (std::size_t i = 0; i < model.steps.size(); ++i)
    if (model.steps[i].kind == container::Step::Kind::Cpu)
      cpu_infos[i] = read_onnx_model_info(model.steps[i].cpu.onnx_model, fmt::format("CPU step {}", i));

  auto describe_value = [&](const std::string& name, bool as_input) -> TensorDesc {
    // The ONNX declaration of a CPU step wins: it carries the model's own dtype.
    for (std::size_t i = 0; i < model.steps.size(); ++i) {
      if (model.steps[i].kind != container::Step::Kind::Cpu) continue;
      if (const auto* d = find_desc(as_input ? cpu_infos[i].inputs : cpu_infos[i].outputs, name)) return *d;
    }
    for (const auto& step : model.steps) {
      if (step.kind != container::Step::Kind::Npu) continue;
      if (!contains(as_input ? step.npu.inputs : step.npu.outputs, name)) continue;
      const bool integer = contains(model.integer_io, name);
      // An integer side is int8 on the host, or int16 where the NPU holds it as int32 (its
      // host values widened and narrowed exactly: compiler/backend/integer_boundary.h).
      if (const auto* entry = find_npu_tensor(model.program, name))
        return host_view_of(*entry, integer ? (entry->dtype == isa::DType::Int32 ? ElementType::Int16 : ElementType::Int8)
                                    : entry->dtype == isa::DType::Int32 ? ElementType::Int32  // gather indices
                                                                        : ElementType::Float32);
      throw std::runtime_error(fmt::format("model {} '{}' is missing from the program's tensor table",
                                           as_input ? "input" : "output", name));
    }
    // Nothing reads it (only its shape mattered, folded away) or nothing computes it (a model
    // input passed through): the session resolves it by name at run time.
    TensorDesc unknown;
    unknown.name = name;
    unknown.constrained = false;
    return unknown;
  };

  for (const auto& name : model.model_inputs) boundary.inputs.push_back(describe_value(name, true));
  for (const auto& name : model.model_outputs) {
    // A model output may also be an input of a later step; it is written by exactly one.
    boundary.outputs.push_back(describe_value(name, false));
  }
  return boundary;
}

namespace {

TensorDesc refine(const TensorDesc& compiled, const TensorDesc& declared) {
  TensorDesc d = declared;
  if (compiled.constrained && compiled.shape.size() == declared.shape.size())
    for (std::size_t i = 0; i < d.shape.size(); ++i)
      if (d.shape[i] < 0) d.shape[i] = compiled.shape[i];
  // The ONNX file names no layout (read_onnx_model_info guesses NCHW for 4-D); the program
  // records the one the host hands over.
  if (!compiled.layout.empty()) d.layout = compiled.layout;
  return d;
}

}  // namespace

void apply_declared_boundary(ModelBoundary& boundary, const OnnxModelInfo& declared) {
  for (auto& d : boundary.inputs)
    if (const auto* decl = find_desc(declared.inputs, d.name)) d = refine(d, *decl);
  for (auto& d : boundary.outputs)
    if (const auto* decl = find_desc(declared.outputs, d.name)) d = refine(d, *decl);
}

}  // namespace npu::runtime
