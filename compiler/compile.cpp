// compile(): the whole pipeline from an ONNX file to a program plus execution plan.
#include "compiler/compile.h"

#include "compiler/lowering_cache.h"
#include "costmodel/program_estimate.h"
#include "compiler/pipeline.h"

#include <algorithm>
#include <optional>

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
  // Several engines: each layer's split is priced alone (engine_split.h), blind to what the
  // splits cost together (syncs, values that leave the chip to reach another engine), and the
  // DDR-traffic rule is blind to compute. The timing core judges the whole programs of both
  // and of engine 0 running everything; the fastest is kept (compiler/README.md, "Several engines").
  if (config.engines.count > 1 && options.engine_split == EngineSplitMode::Auto) {
    struct Candidate {
      EngineSplitMode mode;
      const char* name;
    };
    std::vector<std::pair<std::uint64_t, std::string>> tried;
    std::optional<CompiledModel> best;
    for (const Candidate c : {Candidate{EngineSplitMode::LayerPrice, "by layer prices"}, Candidate{EngineSplitMode::Traffic, "by DDR traffic"},
                              Candidate{EngineSplitMode::None, "engine 0 alone"}}) {
      CompileOptions candidate_options = options;
      candidate_options.engine_split = c.mode;
      CompiledModel candidate = lowered->model;
      generate_code(lowered->graph, config, candidate_options, candidate, &lowered->int8_params);
      time_npu_steps(config, candidate);
      tried.emplace_back(npu_cycles(candidate), c.name);
      if (!best || npu_cycles(candidate) < npu_cycles(*best)) best = std::move(candidate);
    }
    const auto chosen = std::min_element(tried.begin(), tried.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string why = "engines " + chosen->second + ": est " + std::to_string(chosen->first) + " cycles";
    for (const auto& [cycles, name] : tried)
      if (&name != &chosen->second) why += ", " + name + " " + std::to_string(cycles);
    for (auto& layer : best->layers)
      if (layer.device == "npu" && !layer.mapping.empty()) layer.mapping += "; " + why;
    return std::move(*best);
  }
  CompiledModel model = lowered->model;
  generate_code(lowered->graph, config, options, model, &lowered->int8_params);
  time_npu_steps(config, model);
  return model;
}

}  // namespace npu::compiler
