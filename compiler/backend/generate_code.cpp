// The back end's entry point: the lowered graph's device steps (CPU steps exported as ONNX), the
// program of the NPU steps, the model outputs folded to constants, the execution plan.
#include "compiler/backend/codegen.h"
#include "compiler/backend/partition.h"
#include "compiler/core/node_work.h"
#include "compiler/frontend/constant_outputs.h"
#include "compiler/frontend/onnx_io.h"
#include "compiler/frontend/pass_pipeline.h"

namespace npu::compiler {

void generate_code(const Graph& g, const HardwareConfig& config, const CompileOptions& options,
                   CompiledModel& model, const Int8ParamsCache* int8_params) {
  PassPipeline pipeline(options, model.passes);

  auto steps = group_steps(g);
  model.npu_cpu_transitions = count_transitions(steps);
  for (std::size_t s = 0; s < steps.size(); ++s) {
    Step step;
    if (steps[s].device == Node::Device::Cpu) {
      step.kind = Step::Kind::Cpu;
      auto sub = export_subgraph(g, steps[s].nodes, "cpu_step_" + std::to_string(s));
      step.cpu.onnx_model = std::move(sub.onnx_model);
      step.cpu.inputs = sub.inputs;
      step.cpu.outputs = sub.outputs;
      for (int i : steps[s].nodes) {
        step.cpu.node_names.push_back(g.nodes[i].name);
        step.cpu.flops += node_host_flops(g, g.nodes[i]);
      }
    } else {
      step.kind = Step::Kind::Npu;
      step.npu.inputs = steps[s].inputs;
      step.npu.outputs = steps[s].outputs;
    }
    model.steps.push_back(std::move(step));
  }
  std::size_t before = g.nodes.size();
  generate_program(g, steps, config, options, model, int8_params);
  pipeline.record("codegen", g, before,
                  std::to_string(model.program.code.size()) + " instructions in " + std::to_string(steps.size()) +
                      " steps, " + std::to_string(model.npu_cpu_transitions) + " NPU<->CPU transitions");
  // Outputs folded to constants: a last CPU step returns their values (no node computes them);
  // with no inputs it waits for nothing, so it is no NPU<->CPU transition.
  auto constants = constant_outputs(g);
  if (!constants.empty()) {
    Step step;
    step.kind = Step::Kind::Cpu;
    auto sub = export_constant_outputs(g, constants, "constant_outputs");
    step.cpu.onnx_model = std::move(sub.onnx_model);
    step.cpu.outputs = sub.outputs;
    for (const auto& o : constants) step.cpu.node_names.push_back("Constant_" + o);
    model.steps.push_back(std::move(step));
  }
  attach_plan(model);
}

}  // namespace npu::compiler
