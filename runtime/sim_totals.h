// Adding up the simulation results of a model's NPU steps into one SimResult, on one
// timeline, so the foundation's report and trace writer work for whole models.
#pragma once
#include <cstdint>

#include "hardware_config.h"
#include "simulator.h"

namespace npu::runtime {

// Adds `step` (which ran code[first_instruction, ...)) to `total`. Its instruction timings and
// trace events are shifted by `timeline_cycle` (where the step started on the model's
// timeline) and stored at their index in the whole program; `total.instructions` grows to fit.
void add_step(sim::SimResult& total, const sim::SimResult& step, std::uint32_t first_instruction,
              std::uint64_t timeline_cycle);

// Derived figures (latency, TOPS, utilisation) recomputed from the summed counters.
void finish_totals(sim::SimResult& total, const HardwareConfig& config);

}  // namespace npu::runtime
