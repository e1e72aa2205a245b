// The scratchpad plan of one NPU step: which values stay on chip for their whole life (from
// the layer that writes them to the last layer that reads them, skip connections included)
// and which scratch region each layer tiles in, so that no two things alive at once share
// bytes. Layer L's scratch lives over positions [L-1, L] and a resident value over
// [producer-1, last reader]: the next layer's loads (weights, first input tile) then have
// their own bytes and run while the current layer computes, and a producer never waits for
// its predecessor to free the bytes of its output.
//
// How: every layer first asks for the smallest region that keeps it within 2% of its best
// estimated cycles and DDR bytes (LayerDemand, from the tiler). Then candidate values are admitted one by
// one, those saving the most DDR traffic per byte and layer of scratchpad they hold first
// (bytes x (1 + reads) over bytes x lifetime): a value is kept if its producer and readers
// still have a plan with it in place, lose fewer estimated cycles than the DDR time it saves,
// and everything still fits (sram_allocator.h). A value
// that is not admitted is spilled: its producer stores it and its readers load it. Values the
// step hands on (step outputs) or that a reader cannot take from the scratchpad are stored
// to DDR as well.
#pragma once
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compiler/backend/codegen_context.h"

namespace npu::compiler {

struct StepLayer {
  std::vector<std::string> inputs, outputs;  // value names, reshape aliases resolved
  bool has_code = true;         // false for reshapes (an alias of their input)
  bool region_aware = true;     // tiles inside the region it is given (else: the whole scratchpad)
  bool reads_resident = false;  // can read its inputs where they are resident
  bool writes_resident = false; // can leave its output resident
  std::set<std::string> ddr_only;  // values it reads or writes only in DDR despite the flags
};

struct StepValue {
  std::uint64_t bytes = 0;
  bool step_output = false;  // read after the step (or a model output)
  // Multi-engine steps (engine_split.h), as one engine's scheduler sees the value: another
  // engine reads it (so it is stored to DDR even when kept on chip here), or a layer of this
  // engine reads more of it than this engine wrote (so it is never kept on chip here).
  bool read_elsewhere = false;
  bool off_chip = false;
};

struct StepSchedule {
  std::vector<SramRegion> scratch;         // per layer (bytes 0 for layers without code)
  std::map<std::string, ValueHome> homes;  // every resident value
  std::vector<double> est_cycles;          // per layer, the tiler's estimate in its region
  std::vector<bool> third_weight_slot;     // per layer: its region holds room for a third weight buffer
};

// What layer `i` would need within `budget` bytes with `homes` as given (nullopt: no plan).
using DemandFn =
    std::function<std::optional<LayerDemand>(std::size_t i, const std::map<std::string, ValueHome>& homes, std::uint64_t budget)>;

struct StepScheduleOptions {
  std::uint64_t capacity = 0, alignment = 64;
  double ddr_bytes_per_cycle = 1;  // what a DDR byte saved is worth in cycles
  bool keep_all_in_ddr = false;  // every value is also stored (tests read intermediates)
  std::FILE* log = nullptr;      // debugging: why each value stays in DDR (CompileOptions::debug_schedule)
};

StepSchedule schedule_step(const std::vector<StepLayer>& layers, const std::map<std::string, StepValue>& values,
                           const StepScheduleOptions& options, const DemandFn& demand);

}  // namespace npu::compiler
