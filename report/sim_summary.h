// The summary a user reads after a simulation: every number comes from SimResult counters
// (summed over NPU steps for a model: sim_totals.h), set against the config's peaks.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "hwconfig/hardware_config.h"
#include "sim/simulator.h"

namespace npu::report {

// "energy: not modelled (<config file> has no energy table)": the one line a report gives
// when the config has no energy table.
std::string energy_missing_note(const HardwareConfig& config);

// Achieved DDR traffic (bus bytes, what the DRAM moved) over the run's NPU time, as a share of
// the config's peak DDR bandwidth.
double ddr_bandwidth_utilization(const sim::SimResult& result, const HardwareConfig& config);

// Keys: config, cycles, latency_us, clock_mhz, macs, int8_macs, fp16_macs, peak_tops,
// achieved_tops, mac_utilization, ddr{bytes_read, bytes_written, bus_bytes, row_misses,
// row_hits, row_conflicts, row_hit_rate, refreshes, refresh_ns, turnaround_ns,
// bank_parallelism, data_bus_fraction, peak_gbps, achieved_gbps, bandwidth_utilization},
// sram{bytes_read, bytes_written, peak_bytes, capacity_bytes},
// load/compute/vector/store{instructions, busy_cycles, stall_cycles, channel_wait_cycles,
// sram_bytes_read, sram_bytes_written, bank_conflict_cycles}, dma_channels[],
// roofline{peak_macs_per_cycle, ddr_bytes_per_cycle, ddr_gbps, ridge_macs_per_byte},
// and energy, area, leakage, cost_model as report/design_cost_report.h adds them.
nlohmann::json sim_report_json(const sim::SimResult& result, const HardwareConfig& config);
std::string format_sim_report(const sim::SimResult& result, const HardwareConfig& config);

}  // namespace npu::report
