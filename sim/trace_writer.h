// Chrome / Perfetto trace JSON (open in ui.perfetto.dev or chrome://tracing): one track
// (thread) per unit and per DMA channel, one complete ("X") event per instruction or
// transfer; times in microseconds, converted from cycles at the configured clock.
#pragma once
#include <ostream>

#include "hardware_config.h"
#include "simulator.h"

namespace npu::sim {

void write_chrome_trace(const SimResult& result, const HardwareConfig& config, std::ostream& out);

}  // namespace npu::sim
