// One model on several configs side by side: each summary figure per config, and its ratio
// to the first config (B/A, C/A, ...).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace npu::report {

// `reports`: model_report_json of each run, in the order the configs were given.
// {configs: [names], metrics: [{name, unit, values: [...], ratios: [... / first]}]}; a value
// is null where a config lacks it (energy without an energy table), and so is its ratio.
nlohmann::json compare_json(const std::vector<nlohmann::json>& reports);
std::string format_compare(const std::vector<nlohmann::json>& reports);

}  // namespace npu::report
