// One model on one config for the report commands (roofline, compare-configs): compile (ONNX)
// or load (.npuprog), run with deterministic random inputs, keep the report and the model.
#pragma once
#include <string>

#include "compiler/compile.h"
#include "container/compiled_model.h"
#include "hwconfig/hardware_config.h"
#include "report/model_report.h"

namespace npu::report {

struct ReportRun {
  container::CompiledModel model;  // as compiled for this config
  ModelReport report;
};

// Timing-only unless `functional`: the report's cycles, bytes and energy are the same either
// way (sim/README.md "Data"), and the arithmetic is most of a functional run's cost.
ReportRun run_for_report(const std::string& model_path, const HardwareConfig& config,
                         const compiler::CompileOptions& options, bool functional = false);

// The end-to-end latency of a timing-only run of `model`, compiled from `onnx_path`, on
// deterministic random inputs.
double simulated_latency_us(const container::CompiledModel& model, const HardwareConfig& config,
                            const std::string& onnx_path);

}  // namespace npu::report
