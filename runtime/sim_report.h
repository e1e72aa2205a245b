// The summary a user reads after a simulation: every number comes from SimResult counters.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "hardware_config.h"
#include "simulator.h"

namespace npu::runtime {

nlohmann::json sim_report_json(const sim::SimResult& result, const HardwareConfig& config);
std::string format_sim_report(const sim::SimResult& result, const HardwareConfig& config);

}  // namespace npu::runtime
