// What the timeline shows about each NPU instruction besides its unit and time: the layer it
// belongs to (the compiler's LayerRecord ranges) and which tile of that layer it works on.
#pragma once
#include <vector>

#include "container/compiled_model.h"
#include "isa/program.h"
#include "sim/simulator.h"

namespace npu::report {

// One label per instruction of `program`: the layer name and {"index": t}, the tile number
// within the layer. The compiler issues a layer tile by tile, each tile's stages in pipeline
// order (load, compute, vector, store: compiler/backend/instruction_stream.cpp), so a new tile starts
// where the unit order steps back. Instructions outside every layer get an empty label.
std::vector<sim::InstructionLabel> instruction_labels(const std::vector<container::LayerRecord>& layers,
                                                      const isa::Program& program);

// Applies `labels` to the simulator's events (tracks load/compute/vector/store/control/dmaN;
// host and CPU events keep theirs) the way SimOptions::instruction_labels would: `layer`, and
// a `tile_<key>` arg per tile coordinate. Used on a model's summed trace, whose events carry
// whole-program instruction indices (sim_totals.h).
void label_trace(std::vector<sim::TraceEvent>& trace, const std::vector<sim::InstructionLabel>& labels);

}  // namespace npu::report
