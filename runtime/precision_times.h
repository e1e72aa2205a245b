// What mixed precision costs: the latency of a program with fp16 layers in int8 against the
// same model compiled all int8 and all fp16, each placed and run timing-only through the engine
// (runtime/engine.h), so the three figures are what `npusim run` would give.
// report/precision_comparison.h formats them.
#pragma once
#include <string>

#include "compiler/compile.h"
#include "container/compiled_model.h"
#include "hwconfig/hardware_config.h"

namespace npu::runtime {

struct PrecisionTimes {
  double mixed_us = 0, int8_us = 0, fp16_us = 0;
};

// `mixed` compiled from `onnx_path` with `options` (an int8 program with fp16 layers).
PrecisionTimes compare_precisions(const container::CompiledModel& mixed, const std::string& onnx_path,
                                  const HardwareConfig& config, const compiler::CompileOptions& options);

}  // namespace npu::runtime
