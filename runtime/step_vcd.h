// VCD (GTKWave) of a model's unit and DMA-channel busy signals. The simulator writes one VCD
// per simulate() call, and a model runs one call per NPU step, so each step gets its file.
// Here rather than in report/: it runs the simulator again, and report/ only formats.
#pragma once
#include <string>
#include <vector>

#include "container/compiled_model.h"
#include "hwconfig/hardware_config.h"

namespace npu::runtime {

// Re-simulates each NPU step timing-only (same cycles as any run: sim/README.md "Data") with
// SimOptions::vcd_path: `path` itself for a single step, else `<stem>.step<K>.vcd`. Returns
// the files written. Times in each file start at the step's own cycle 0.
std::vector<std::string> write_step_vcds(const container::CompiledModel& model, const HardwareConfig& config,
                                         const std::string& path);

}  // namespace npu::runtime
