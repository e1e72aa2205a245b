// Lowering (import, graph passes, partitioning, calibration, layout) does not read the hardware
// config, so compiling one model for many configs — a sweep worker, compare-configs — lowers it
// once per process and only tiles and generates code per config.
#pragma once
#include <map>
#include <memory>
#include <string>

#include "compiler/compile.h"
#include "compiler/core/graph.h"
#include "compiler/quant/int8_layer_params.h"

namespace npu::compiler {

struct LoweredModel {
  Graph graph;
  CompiledModel model;  // passes, fallbacks, warnings and boundary names so far
  Int8ParamsCache int8_params;
};

// Keyed by the file (path, size, modification time) and every option lowering reads; a run
// that dumps pass graphs (options.dump_dir) always lowers afresh so the dumps get written.
// `config` reaches only --precision mixed's search (which weighs promotions by their cycles on
// it), so only then is it part of the key.
std::shared_ptr<const LoweredModel> lower_with_cache(const std::string& onnx_path, const CompileOptions& options,
                                                     const HardwareConfig* config = nullptr);

// How many lowered models the process keeps (default 2). A command that compiles one model once
// (`npusim run`, `npusim compile`) sets 0: the lowered graph, FP32 weights and all, is freed as
// soon as code is generated (ViT-B/16: 343 MB less at the run's peak).
void set_lowered_models_kept(std::size_t models);

}  // namespace npu::compiler
