// What mixed precision costs: the simulated time of a program with fp16 layers in int8 against
// the same model compiled all int8 and all fp16 (each compiled and run timing-only, so the
// three figures come from the same simulator as `npusim run`).
#pragma once
#include <string>

#include "compiler/compile.h"
#include "container/compiled_model.h"
#include "hwconfig/hardware_config.h"

namespace npu::report {

struct PrecisionTimes {
  double mixed_us = 0, int8_us = 0, fp16_us = 0;
};

// `mixed` compiled from `onnx_path` with `options` (an int8 program with fp16 layers).
PrecisionTimes compare_precisions(const container::CompiledModel& mixed, const std::string& onnx_path,
                                  const HardwareConfig& config, const compiler::CompileOptions& options);

// "simulated time: 28.6 us with the fp16 layers, against 23.4 us all int8 (+22.3 %) and 72.8 us
// all fp16 (-60.7 %)"
std::string format_precision_times(const PrecisionTimes& times);

}  // namespace npu::report
