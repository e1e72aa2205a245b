// The energy, power and area a user reads for one run of one design: energy per part, static
// power with its leakage and clock shares, area and leakage per part, TOPS/mm^2, inferences
// per joule and the energy-delay product. Numbers come from the run's counters and
// design_costs(config) (hwconfig/design_costs.h), nothing else.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "hwconfig/design_costs.h"
#include "sim/simulator.h"

namespace npu::report {

// Adds to `j`: energy{...} (or null and energy_note), area{...} (or null and area_note),
// leakage{...} (or null: the explicit model does not split static power), cost_model{model,
// tech_nm, tech_table, notes}. One inference per run: inferences_per_joule = 1 / total energy;
// energy_delay_uj_us = total energy x NPU latency (the time the energy covers).
void add_design_cost_json(nlohmann::json& j, const sim::SimResult& result, const HardwareConfig& config,
                          const DesignCosts& costs);

// The report's energy, power, area and cost-model lines (each ends in '\n').
std::string format_design_costs(const sim::SimResult& result, const HardwareConfig& config,
                                const DesignCosts& costs);

}  // namespace npu::report
