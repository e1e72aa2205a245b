// compile(): the whole pipeline from an ONNX file to a program plus execution plan.
#include "compiled_model.h"
#include "onnx_io.h"
#include "partition.h"
#include "pipeline.h"

namespace npu::compiler {

CompiledModel compile(const std::string& onnx_path, const HardwareConfig& config,
                      const CompileOptions& options) {
  CompiledModel model;
  model.precision = options.precision;
  Graph g = import_and_optimize(onnx_path, options, model.passes);
  model.model_inputs = g.inputs;
  model.model_outputs = g.outputs;
  PassPipeline pipeline(options, model.passes);
  std::size_t before = g.nodes.size();
  model.fallbacks = assign_devices(g, options.precision, options.strict);
  auto steps = group_steps(g);
  model.npu_cpu_transitions = count_transitions(steps);
  pipeline.record("partition", g, before,
                  std::to_string(g.nodes.size() - model.fallbacks.size()) + " npu, " +
                      std::to_string(model.fallbacks.size()) + " cpu nodes, " +
                      std::to_string(model.npu_cpu_transitions) + " transitions");
  for (std::size_t s = 0; s < steps.size(); ++s) {
    Step step;
    if (steps[s].device == Node::Device::Cpu) {
      step.kind = Step::Kind::Cpu;
      auto sub = export_subgraph(g, steps[s].nodes, "cpu_step_" + std::to_string(s));
      step.cpu.onnx_model = std::move(sub.onnx_model);
      step.cpu.inputs = sub.inputs;
      step.cpu.outputs = sub.outputs;
      for (int i : steps[s].nodes) step.cpu.node_names.push_back(g.nodes[i].name);
    } else {
      step.kind = Step::Kind::Npu;
      step.npu.inputs = steps[s].inputs;
      step.npu.outputs = steps[s].outputs;
    }
    model.steps.push_back(std::move(step));
  }
  (void)config;
  return model;
}

}  // namespace npu::compiler
