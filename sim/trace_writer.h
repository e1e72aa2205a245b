// Chrome / Perfetto trace JSON (open in ui.perfetto.dev or chrome://tracing): one track
// (thread, named by thread_name metadata) per unit and per DMA channel, complete ("X")
// events as recorded (trace_recorder.h: instructions, transfers, load/store busy spans)
// with the layer name and numeric args, and a "DDR bandwidth" counter ("C") track in GB/s.
// Times (ts, dur) in microseconds, converted from cycles at the configured clock.
#pragma once
#include <ostream>

#include "hwconfig/hardware_config.h"
#include "sim/simulator.h"

namespace npu::sim {

void write_chrome_trace(const SimResult& result, const HardwareConfig& config, std::ostream& out);

}  // namespace npu::sim
