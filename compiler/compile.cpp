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
  struct Candidate {
    EngineSplitMode mode;
    bool multicast_row_prices;
    int traffic_min_rows_per_engine;
    const char* name;
  };
  auto generate = [&](const Candidate& c) {
    CompileOptions with_mode = options;
    with_mode.engine_split = c.mode;
    with_mode.multicast_row_prices = c.multicast_row_prices;
    with_mode.traffic_min_rows_per_engine = c.traffic_min_rows_per_engine;
    CompiledModel model = lowered->model;
    generate_code(lowered->graph, config, with_mode, model, &lowered->int8_params);
    time_npu_steps(config, model);
    return model;
  };
  if (config.engines.count < 2 || options.engine_split != EngineSplitMode::Auto)
    return generate({options.engine_split, options.multicast_row_prices, options.traffic_min_rows_per_engine, ""});
  std::vector<Candidate> candidates = {{EngineSplitMode::LayerPrice, true, 2, "by layer prices"},
                                       {EngineSplitMode::Traffic, true, 2, "by DDR traffic"},
                                       {EngineSplitMode::None, true, 2, "engine 0 alone"}};
  // Multicast makes a row part's weights cheap, when the engines' loads of them meet: priced so,
  // ResNet-50 on 4 engines of default.yaml is 4 % faster, priced without, ResNet-18 9 %; and
  // rows of one per engine can pay (MobileNetV2 on 4 engines 9 % faster, ResNet-50 on Lunar
  // Lake's 6 slower).
  if (config.engines.shared_loads == SharedLoads::Multicast) {
    candidates.insert(candidates.begin() + 1, {EngineSplitMode::LayerPrice, false, 2, "by layer prices without multicast"});
    candidates.insert(candidates.begin() + 3, {EngineSplitMode::Traffic, true, 1, "by DDR traffic down to a row per engine"});
  }
  std::optional<CompiledModel> best;
  std::size_t chosen = 0;
  std::vector<std::uint64_t> cycles;
  for (const Candidate& c : candidates) {
    CompiledModel candidate = generate(c);
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
