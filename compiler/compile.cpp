// compile(): the whole pipeline from an ONNX file to a program plus execution plan.
#include "compiler/codegen.h"
#include "compiler/compile.h"
#include "compiler/constant_outputs.h"
#include "compiler/host_flops.h"
#include "compiler/lowering_cache.h"
#include "compiler/onnx_io.h"
#include "compiler/partition.h"
#include "compiler/passes/passes.h"
#include "compiler/pipeline.h"
#include "compiler/precision_converters.h"
#include "compiler/quantization_stage.h"
#include "compiler/quantize.h"

namespace npu::compiler {

Graph lower_graph(const std::string& onnx_path, const CompileOptions& options, CompiledModel& model,
                  const HardwareConfig* config) {
  model.precision = options.precision;
  Graph unfused;
  Graph g = import_and_optimize(onnx_path, options, model.passes, &unfused, &model.warnings);
  model.model_inputs = g.inputs;
  model.model_outputs = g.outputs;
  PassPipeline pipeline(options, model.passes);

  std::size_t before = g.nodes.size();
  model.fallbacks = assign_devices(g, options.precision, options.strict);
  pipeline.record("partition", g, before,
                  std::to_string(g.nodes.size() - model.fallbacks.size()) + " npu, " +
                      std::to_string(model.fallbacks.size()) + " cpu nodes");

  if (options.precision == Precision::Int8) {
    before = g.nodes.size();
    pipeline.record("quantization", g, before, quantize_graph(g, unfused, options, model, config));
  }

  int transposes = 0;
  pipeline.run("layout", g, [&](Graph& x) { return convert_layout(x, transposes); });
  if (!model.quantization.fp16_layers.empty()) pipeline.run("precision-converters", g, insert_precision_converters);
  return g;
}

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
  // Outputs folded to constants: a last CPU step returns their values (no node computes them).
  auto constants = constant_outputs(g);
  if (!constants.empty()) {
    Step step;
    step.kind = Step::Kind::Cpu;
    auto sub = export_constant_outputs(g, constants, "constant_outputs");
    step.cpu.onnx_model = std::move(sub.onnx_model);
    step.cpu.outputs = sub.outputs;
    for (const auto& o : constants) step.cpu.node_names.push_back("Constant_" + o);
    if (!model.steps.empty() && model.steps.back().kind == Step::Kind::Npu) ++model.npu_cpu_transitions;
    model.steps.push_back(std::move(step));
  }
  attach_plan(model);
}

CompiledModel compile(const std::string& onnx_path, const HardwareConfig& config,
                      const CompileOptions& options) {
  const auto lowered = lower_with_cache(onnx_path, options, &config);
  CompiledModel model = lowered->model;
  generate_code(lowered->graph, config, options, model, &lowered->int8_params);
  return model;
}

}  // namespace npu::compiler
