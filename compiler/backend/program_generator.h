// The code generator's driver (codegen.h's generate_program), shared by codegen.cpp (the
// program, one engine's step) and codegen_engines.cpp (a step on several engines). Internal to
// the back end.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compiler/backend/codegen.h"
#include "compiler/backend/codegen_context.h"
#include "compiler/backend/op_registry.h"
#include "compiler/backend/step_schedule.h"
#include "compiler/quant/quantization_stage.h"

namespace npu::compiler {

// The op family that lowers an NPU node (op_registry.h).
const NpuOpFamily& family_of(const Graph& g, const Node& n);
// What a layer without a tiler of its own (or a multi-engine step's part of a layer) does in a
// region of `budget` bytes: its code, generated without keeping constants, timed by the cost
// model's program estimate on ctx.tiling() (the config, or its DDR shared among the engines).
std::optional<LayerDemand> generated_demand(CodegenContext& ctx, const NpuOpFamily& family, const Node& n, std::uint64_t budget);
// Throws when a region-aware layer's code touches scratchpad bytes outside its region and the
// homes of the resident values it reads or writes.
void check_within_region(CodegenContext& ctx, const Node& n, const StepLayer& L,
                         const std::map<std::string, StepValue>& values, const std::vector<isa::Instruction>& code);

// The program of every NPU step, in order, and the records of every layer (compiler/README.md,
// "Codegen"): per step the scheduler's scratchpad plan, each layer's code in its region, the
// layers interleaved, a halt, tokens from footprints; then the tensor table.
class ProgramGenerator {
 public:
  ProgramGenerator(const Graph& g, const std::vector<StepNodes>& steps, const HardwareConfig& config,
                   const CompileOptions& options, CompiledModel& model, const Int8ParamsCache* int8_params)
      : g_(g), steps_(steps), config_(config), options_(options), model_(model), ctx_(g, config, options.precision, int8_params) {
    if (ctx_.int8() && options.quant.weights == WeightOnly::Int4) {
      ctx_.weight_only = {isa::WeightFormat::Int4, 0, /*scaled=*/false};  // int4 weights, int8 activations
    } else if (options.quant.weights != WeightOnly::None) {
      ctx_.weight_only.format = options.quant.weights == WeightOnly::Int4 ? isa::WeightFormat::Int4 : isa::WeightFormat::Int8;
      ctx_.weight_only.group =
          options.quant.weights == WeightOnly::Int4 ? static_cast<std::uint64_t>(options.quant.group_size) : 0;
    }
  }

  void run() {
    for (std::size_t s = 0; s < steps_.size(); ++s) {
      if (steps_[s].device == Node::Device::Npu) generate_npu_step(steps_[s], model_.steps.at(s).npu);
      else record_cpu_layers(steps_[s]);
    }
    fill_tensor_table();
    describe_weight_only();
    model_.program = std::move(ctx_.program());
  }

 private:
  // One NPU step's layers and values as the step scheduler sees them, and each layer's family.
  struct StepLayers {
    std::vector<StepLayer> layers;
    std::vector<const NpuOpFamily*> families;
    std::map<std::string, StepValue> values;
  };

  void record_cpu_layers(const StepNodes& step);
  void generate_npu_step(const StepNodes& step, NpuStep& npu);
  // engines.count > 1 (codegen_engines.cpp): one stream per engine, each its part of each layer.
  void generate_engine_streams(const StepNodes& step, NpuStep& npu);
  void place_step_inputs(const StepNodes& step);
  void place_concat_parts(const StepNodes& step);
  StepLayers describe_step(const StepNodes& step);
  std::set<std::string> shared_sram_candidates(const StepNodes& step);
  // `before_layer(i)` (multi-engine: engine e's part of layer i) runs before each of layer i's
  // prices; `ddr_share` divides what a DDR byte saved is worth (engines sharing the DDR).
  StepSchedule schedule(const StepNodes& step, const StepLayers& sl, const std::function<void(std::size_t)>& before_layer = {},
                        double ddr_share = 1);
  std::vector<std::vector<isa::Instruction>> generate_layers(const StepNodes& step, const StepLayers& sl,
                                                             const StepSchedule& schedule);
  // Layer li's code in the region the schedule gave it (checked against it), in ctx_'s homes.
  LayerCode generate_layer(const StepNodes& step, const StepLayers& sl, const StepSchedule& schedule, std::size_t li);
  LayerRecord layer_record(const Node& n) const;
  void append_interleaved(const StepNodes& step, const std::vector<std::vector<isa::Instruction>>& layer_code);
  void log_step_estimate(const NpuStep& npu);
  void fill_tensor_table();
  void describe_weight_only();
  // Mixed programs: the layer's precision (quantization_stage.h), the program's otherwise.
  Precision precision_of(const Node& n) const { return runs_in_fp16(n) ? Precision::Fp16 : options_.precision; }

  const Graph& g_;
  const std::vector<StepNodes>& steps_;
  const HardwareConfig& config_;
  const CompileOptions& options_;
  CompiledModel& model_;
  CodegenContext ctx_;
  std::set<std::string> step_inputs_, step_outputs_;  // of every NPU step so far
};

}  // namespace npu::compiler
