// What mixed precision costs, as `npusim compile` prints it; runtime/precision_times.h measures it.
#pragma once
#include <string>

#include "runtime/precision_times.h"

namespace npu::report {

// "simulated time: 28.6 us with the fp16 layers, against 23.4 us all int8 (+22.3 %) and 72.8 us
// all fp16 (-60.7 %)"
std::string format_precision_times(const runtime::PrecisionTimes& times);

}  // namespace npu::report
