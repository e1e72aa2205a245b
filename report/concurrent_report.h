// What `npusim concurrent` prints: each model's engines, its latency alone and beside the others
// and the slowdown sharing the NPU (the DDR) costs it, the makespan against running the models
// one after another.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "hwconfig/hardware_config.h"
#include "runtime/concurrent.h"

namespace npu::report {

std::string format_concurrent(const runtime::ConcurrentResult& result, const HardwareConfig& config);
nlohmann::json concurrent_json(const runtime::ConcurrentResult& result, const HardwareConfig& config);

}  // namespace npu::report
