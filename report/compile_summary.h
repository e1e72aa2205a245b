// The lines `npusim compile` prints about a compiled model.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "container/compiled_model.h"
#include "report/placement_summary.h"

namespace npu::report {

// `--explain`: node counts before and after each pass.
std::string format_passes(const container::CompiledModel& model);
// Each NPU layer's mapping as the compiler chose it (loop nest, tiles, buffers): compile time only.
std::string format_mappings(const container::CompiledModel& model);
// How an int8 program was quantised (calibration, fp16 layers, accuracy reached); empty for fp16.
std::string format_quantization(const container::QuantizationRecord& q);
// What was written: instructions, steps, layers, fallbacks with reasons, the quantisation.
std::string format_compile_summary(const container::CompiledModel& model, const std::string& model_path,
                                   const std::string& out_path);

// `npusim compile --json`: the summary for scripts. `estimated_cycles` is the sum of the NPU
// steps' timing-core cycles, which `npusim run --timing-only` of the program reports as its cycles.
nlohmann::json compile_summary_json(const container::CompiledModel& model, const PlacementSummary& placement,
                                    const HardwareConfig& config, const std::string& model_path,
                                    const std::string& out_path);

// One line: "N of M layers, X % of MACs, Y % of simulated time on the NPU, K CPU islands,
// T transitions" (placement_summary.h says how the time is estimated).
std::string format_placement(const PlacementSummary& placement);
// `--explain`: per op type, how many layers went to the NPU and the CPU, and the fallback
// reasons with their counts.
std::string format_placement_by_op(const PlacementSummary& placement);

}  // namespace npu::report
