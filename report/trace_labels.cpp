#include "report/trace_labels.h"

#include <algorithm>

namespace npu::report {

namespace {

int pipeline_position(isa::Unit unit) {
  switch (unit) {
    case isa::Unit::Load: return 0;
    case isa::Unit::Compute: return 1;
    case isa::Unit::Vector: return 2;
    case isa::Unit::Store: return 3;
    default: return -1;
  }
}

bool simulator_track(const std::string& track) {
  if (track == "load" || track == "compute" || track == "vector" || track == "store" || track == "control") return true;
  return track.size() > 3 && track.rfind("dma", 0) == 0 &&
         std::all_of(track.begin() + 3, track.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::vector<sim::InstructionLabel> instruction_labels(const std::vector<container::LayerRecord>& layers,
                                                      const isa::Program& program) {
  std::vector<sim::InstructionLabel> labels(program.code.size());
  for (const auto& layer : layers) {
    if (layer.device != "npu") continue;
    std::int64_t tile = 0;
    int previous = -1;
    for (const std::uint32_t i : container::owned_instructions(layer, program.code.size())) {
      labels[i].layer = layer.name;
      const int position = pipeline_position(program.code[i].unit());
      if (position < 0) continue;  // barrier/halt belong to no tile
      if (position < previous) ++tile;
      previous = position;
      labels[i].tile["index"] = tile;
    }
  }
  return labels;
}

void label_trace(std::vector<sim::TraceEvent>& trace, const std::vector<sim::InstructionLabel>& labels) {
  for (auto& e : trace) {
    if (!simulator_track(e.track) || e.instruction_index >= labels.size()) continue;
    const auto& label = labels[e.instruction_index];
    if (!label.layer.empty()) e.layer = label.layer;
    for (const auto& [key, value] : label.tile) e.args["tile_" + key] = value;
  }
}

}  // namespace npu::report
