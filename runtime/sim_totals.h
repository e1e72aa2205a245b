// Adding up the simulation results of a model's NPU steps into one SimResult, on one
// timeline, so the foundation's report and trace writer work for whole models.
#pragma once
#include <cstdint>

#include "hwconfig/hardware_config.h"
#include "sim/simulator.h"

namespace npu::runtime {

// Adds `step` (which ran code[first_instruction, ...)) to `total`: every counter, per unit and
// per DMA channel. Its instruction timings, trace events and DDR-bandwidth samples are shifted
// by `timeline_cycle` (where the step started on the model's timeline); instruction timings
// are stored at their index in the whole program (`total.instructions` grows to fit). The
// steps run one after another, so SRAM peak is the largest step's.
void add_step(sim::SimResult& total, const sim::SimResult& step, std::uint32_t first_instruction,
              std::uint64_t timeline_cycle);

// Derived figures recomputed from the summed counters: latency, TOPS, utilisation and, when
// the config has an energy table, the energy (sim::energy_of on the totals, so static energy
// covers the NPU time of all steps and the parts stay exactly proportional to their pJ).
void finish_totals(sim::SimResult& total, const HardwareConfig& config);

}  // namespace npu::runtime
