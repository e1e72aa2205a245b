// The roofline view of a model run: the config's ceiling, slope and ridge, and one point per
// NPU layer (arithmetic intensity, achieved TOPS) — as JSON for scripts/plot_roofline.py and
// as text (ASCII chart + table) for terminals.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "hwconfig/hardware_config.h"
#include "report/model_report.h"

namespace npu::report {

// {config, peak_tops, ddr_gbps, ridge_macs_per_byte, clock_mhz, model, layers: [{name, op,
// macs, ddr_bytes, arithmetic_intensity, achieved_tops, attainable_tops, bound}]} — NPU
// layers with MACs and DDR bytes only (the others have no point on the roofline).
nlohmann::json roofline_json(const ModelReport& report, const HardwareConfig& config);
std::string format_roofline(const ModelReport& report, const HardwareConfig& config);

}  // namespace npu::report
