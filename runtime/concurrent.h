// Several models on one simulated NPU at once: each compiled for its share of the engines
// (engines [first, first + count), a config with engines.count = count), their programs placed
// side by side in DDR, their engine streams on their engines of one program, and that program
// simulated: the models run together, contending for the shared DDR. Each model's latency
// together is its last engine's halt; alone, its compiled estimate (the timing core's cycles
// for the program on its share alone, which a timing-only run of it equals).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "hwconfig/hardware_config.h"
#include "sim/simulator.h"

namespace npu::runtime {

struct ConcurrentModel {
  std::string path;
  int first_engine = 0, engine_count = 1;
};

struct ConcurrentResult {
  struct Model {
    std::string path;
    int first_engine = 0, engine_count = 1;
    std::uint64_t solo_cycles = 0;      // alone on its engines
    std::uint64_t together_cycles = 0;  // beside the others: its last engine's halt
    double slowdown() const { return solo_cycles ? static_cast<double>(together_cycles) / static_cast<double>(solo_cycles) : 0.0; }
  };
  std::vector<Model> models;
  std::uint64_t makespan_cycles = 0;  // the last model's end
  sim::SimResult combined;            // the run together (per-engine counters, trace)
};

// "A=0-3,B=4-5" (names: a model's file name without directory and extension, or its path) into
// engine ranges for `paths`; empty `spec`: the engines split evenly, in order. Throws
// std::invalid_argument naming the range that overlaps, exceeds `engines` or names no model.
std::vector<ConcurrentModel> assign_engines(const std::vector<std::string>& paths, const std::string& spec,
                                            int engines);

// Throws std::runtime_error naming the model that does not run whole on the NPU, or when the
// models do not fit the DDR together.
ConcurrentResult run_concurrent(const std::vector<ConcurrentModel>& models, const HardwareConfig& config,
                                const compiler::CompileOptions& options, bool record_trace);

}  // namespace npu::runtime
