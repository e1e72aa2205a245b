// What a user reads after running a model: the simulator's summary over all NPU steps, the
// host's share (CPU steps, transitions, transfers), a per-layer table, fallbacks and the
// conversions the runtime made. Every number comes from a SimResult counter or the host model.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "container/compiled_model.h"
#include "hwconfig/hardware_config.h"
#include "report/layer_attribution.h"
#include "runtime/run_record.h"

namespace npu::report {

// A run with its per-layer table: every layer's cycles, busy units and DDR bytes from the
// instructions the compiler recorded for it; CPU layers share their step's host time.
struct ModelReport : runtime::RunRecord {
  std::vector<LayerTiming> layers;
};
ModelReport build_model_report(const container::CompiledModel& model, const HardwareConfig& config,
                               runtime::RunRecord run);

// sim_report_json's keys (cycles, macs, ddr, energy, unit busy cycles … summed over NPU
// steps) with latency_us end to end (NPU + host), plus npu_latency_us, host, time (NPU vs
// CPU fallback vs transitions and transfers), steps, layers (layer_table.h: layer_json),
// fallbacks, transitions, transfer_bytes, io_bytes, conversions, notes and warnings.
nlohmann::json model_report_json(const ModelReport& report, const HardwareConfig& config);

struct ReportFormat {
  bool layers = true;    // the per-layer table after the summary
  std::size_t top = 0;   // 0: every layer in program order; N: the N costliest by cycles
};
std::string format_model_report(const ModelReport& report, const HardwareConfig& config,
                                const ReportFormat& format = {});

}  // namespace npu::report
