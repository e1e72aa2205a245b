// What `npusim stream` prints and writes: the stages, the pipelined schedule next to the serial
// one (latency, steady-state throughput, NPU idle time), the JSON for scripts and a
// Perfetto/Chrome trace in which the host stages and the NPU units of every frame overlap.
#pragma once
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "container/compiled_model.h"
#include "hwconfig/hardware_config.h"
#include "runtime/stream.h"

namespace npu::report {

std::string format_stream_report(const runtime::StreamResult& result, const HardwareConfig& config);

// {"frames", "depth", "stages": {pre, inference, post}, "slowest_stage", "pipelined" and
// "serial": {metrics..., "frames": [per-frame stage times]}, "speedup" (serial interval /
// pipelined interval), "inference": model_report_json of the one simulated inference}.
nlohmann::json stream_report_json(const runtime::StreamResult& result, const container::CompiledModel& model,
                                  const HardwareConfig& config);

// One event per frame and stage on the tracks "host pre", "inference" and "host post", and the
// inference's own events (NPU units, DMA channels, CPU steps; labelled with layers) repeated
// under every frame's inference, all on one timeline. The inference must have been run with
// a recorded trace for the unit tracks to appear.
void write_stream_trace(const runtime::StreamResult& result, const container::CompiledModel& model,
                        const HardwareConfig& config, std::ostream& out);

}  // namespace npu::report
