// compile(): the whole pipeline from an ONNX file to a program plus execution plan.
#include "compiler/compile.h"

#include "compiler/lowering_cache.h"
#include "costmodel/program_estimate.h"
#include "compiler/pipeline.h"

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
  auto generate = [&](EngineSplitMode mode, bool multicast_row_prices) {
    CompileOptions with_mode = options;
    with_mode.engine_split = mode;
    with_mode.multicast_row_prices = multicast_row_prices;
    CompiledModel model = lowered->model;
    generate_code(lowered->graph, config, with_mode, model, &lowered->int8_params);
    time_npu_steps(config, model);
    return model;
  };
  if (config.engines.count < 2 || options.engine_split != EngineSplitMode::Auto)
    return generate(options.engine_split, options.multicast_row_prices);
  struct Candidate {
    EngineSplitMode mode;
    bool multicast_row_prices;
    const char* name;
  };
  std::vector<Candidate> candidates = {{EngineSplitMode::LayerPrice, true, "by layer prices"},
                                       {EngineSplitMode::Traffic, true, "by DDR traffic"},
                                       {EngineSplitMode::None, true, "engine 0 alone"}};
  // Multicast makes a row part's weights cheap, when the engines' loads of them meet: priced so,
  // ResNet-50 on 4 engines of default.yaml is 4 % faster, priced without, ResNet-18 9 %.
  if (config.engines.shared_loads == SharedLoads::Multicast)
    candidates.insert(candidates.begin() + 1, {EngineSplitMode::LayerPrice, false, "by layer prices without multicast"});
  std::optional<CompiledModel> best;
  std::size_t chosen = 0;
  std::vector<std::uint64_t> cycles;
  for (const auto& [mode, multicast_prices, name] : candidates) {
    CompiledModel candidate = generate(mode, multicast_prices);
    cycles.push_back(npu_cycles(candidate));
    if (!best || cycles.back() < npu_cycles(*best)) best = std::move(candidate), chosen = cycles.size() - 1;
  }
  std::string why = std::string("engines ") + candidates[chosen].name + ": est " + std::to_string(cycles[chosen]) + " cycles";
  for (std::size_t i = 0; i < cycles.size(); ++i)
    if (i != chosen) why += std::string(", ") + candidates[i].name + " " + std::to_string(cycles[i]);
  for (auto& layer : best->layers)
    if (layer.device == "npu" && !layer.mapping.empty()) layer.mapping += "; " + why;
  return std::move(*best);
}

}  // namespace npu::compiler
