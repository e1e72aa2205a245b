// Multi-engine NPU steps (engines.count > 1): how each layer of a step is shared among the
// engines, and what that means for the values between layers.
//
// A layer whose op family can split (a LayerSplitter, op_registry.h: conv/gemm) is cut into one
// part per engine, of its output rows or of its output-channel units, or left whole on engine 0.
// choose_engine_splits prices each way with the cost model (the family's tiler, with the DDR
// bandwidth shared by the engines that run at once) and keeps the fastest. Each engine then runs
// every layer of the step in order, its own part of each (compiler/README.md, "Several engines").
//
// The engines exchange values through DDR. A layer part that reads bytes of a value its own
// engine did not write (a 3x3 conv's halo rows, all channels after a channel split, a layer
// after one that ran on another engine) makes every engine meet at a `sync` before the layer,
// and the value's writers store it. A value every reader reads only where its own engine wrote
// it (a 1x1 conv or a residual after a row-split layer with the same rows) needs no sync, and
// each engine's step scheduler may keep its rows on chip.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compiler/backend/layer_mapping.h"
#include "compiler/backend/op_registry.h"
#include "compiler/backend/step_schedule.h"
#include "compiler/core/compile_options.h"

namespace npu::compiler {

// The estimated cycles of one way to run layer `layer`: `part` of it (nullopt: all of it) while
// `at_once` engines share the DDR; nullopt when no plan fits.
using PartPrice = std::function<std::optional<double>(std::size_t layer, const std::optional<EnginePart>& part, int at_once)>;

// One step's layers as the split sees them: the nodes, their families and the step scheduler's
// view (has_code, inputs as alias roots).
struct StepLayerView {
  std::vector<const Node*> nodes;
  std::vector<const NpuOpFamily*> families;
  const std::vector<StepLayer>* layers = nullptr;
  const std::map<std::string, StepValue>* values = nullptr;
};

// Every layer's split (EngineSplit::parts empty: engine 0 runs it whole).
std::vector<EngineSplit> choose_engine_splits(CodegenContext& ctx, const StepLayerView& step, int engines,
                                              EngineSplitMode mode, const PartPrice& price,
                                              int traffic_min_rows_per_engine = 2);

// What the splits mean for the step's values and order.
struct StepShares {
  std::vector<EngineSplit> splits;
  std::vector<bool> sync_before;  // per layer: every engine meets at a sync before it
  // Per engine, the step scheduler's view of the values that engine writes: the bytes of its part
  // (its rows, or all of a value it writes whole), and whether it may keep them on chip.
  std::vector<std::map<std::string, StepValue>> values;
  // Per engine, the first row of each value it holds only from there (CodegenContext::resident_first_row).
  std::vector<std::map<std::string, std::int64_t>> first_row;
  int engines = 1;
  // Engine e's part of layer i (nullopt: the whole layer), and whether engine e runs layer i at all.
  std::optional<EnginePart> part(std::size_t layer, int engine) const;
  bool runs(std::size_t layer, int engine) const;
};

// The share of the DDR bandwidth a row part of `node` takes while `engines` parts run at once
// and the engines' DMA multicasts what they all load: each part moves a k-th of the layer's
// activations and all of its weights, which the bus carries once; its time on the shared bus is
// the layer's, (A + W) / bandwidth, so it gets (A / k + W) / (A + W) of it.
double row_part_bandwidth_share(CodegenContext& ctx, const Node& node, int engines);

StepShares share_step(CodegenContext& ctx, const StepLayerView& step, std::vector<EngineSplit> splits, int engines);

}  // namespace npu::compiler
