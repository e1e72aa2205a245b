// compile(): the whole pipeline from an ONNX file to a program plus execution plan.
#include "compiler/compile.h"

#include "compiler/lowering_cache.h"
#include "costmodel/program_estimate.h"
#include "compiler/pipeline.h"

namespace npu::compiler {

// Each NPU step timed by the timing core as the simulator will run it (cost::estimate_program,
// exact). That plans the step with the simulator's own checks too: a program this compiler
// emits must pass them, so one that does not is the compiler's error, named here.
void time_npu_steps(const HardwareConfig& config, CompiledModel& model) {
  for (auto& step : model.steps) {
    if (step.kind != container::Step::Kind::Npu) continue;
    try {
      step.npu.estimated_cycles =
          static_cast<std::uint64_t>(cost::estimate_engines(container::step_program(model.program, step.npu), config));
    } catch (const std::exception& e) {
      throw CompileError(std::string("compiler error: the program for NPU step at instruction ") +
                         std::to_string(step.npu.first_instruction) + " fails the simulator's check: " + e.what());
    }
  }
}

namespace {

std::uint64_t npu_cycles(const CompiledModel& model) {
  std::uint64_t cycles = 0;
  for (const auto& step : model.steps)
    if (step.kind == container::Step::Kind::Npu) cycles += step.npu.estimated_cycles;
  return cycles;
}

}  // namespace

CompiledModel compile(const std::string& onnx_path, const HardwareConfig& config,
                      const CompileOptions& options) {
  const auto lowered = lower_with_cache(onnx_path, options, &config);
  CompiledModel model = lowered->model;
  generate_code(lowered->graph, config, options, model, &lowered->int8_params);
  time_npu_steps(config, model);
  // Several engines: each layer's split is priced alone (engine_split.h), blind to what the
  // splits cost together (syncs, values that leave the chip to reach another engine). The
  // timing core judges the whole program against engine 0 running everything, and the faster
  // is kept (compiler/README.md, "Several engines").
  if (config.engines.count > 1 && options.engine_split == EngineSplitMode::Auto) {
    CompileOptions alone_options = options;
    alone_options.engine_split = EngineSplitMode::None;
    CompiledModel alone = lowered->model;
    generate_code(lowered->graph, config, alone_options, alone, &lowered->int8_params);
    time_npu_steps(config, alone);
    if (npu_cycles(alone) < npu_cycles(model)) {
      const std::string why = "engine 0 alone: est " + std::to_string(npu_cycles(alone)) + " cycles, split across " +
                              std::to_string(config.engines.count) + " engines " + std::to_string(npu_cycles(model));
      for (auto& layer : alone.layers)
        if (layer.device == "npu" && !layer.mapping.empty()) layer.mapping += "; " + why;
      model = std::move(alone);
    }
  }
  return model;
}

}  // namespace npu::compiler
