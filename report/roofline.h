// The roofline of one hardware config: what a layer can reach at a given arithmetic
// intensity (MACs per DDR byte), and whether the config's compute or its DDR limits it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "hwconfig/hardware_config.h"

namespace npu::report {

struct Roofline {
  double peak_macs_per_cycle = 0;  // rows x cols
  double ddr_bytes_per_cycle = 0;  // the NPU's share of DDR bandwidth, per NPU cycle
  double clock_mhz = 0;
  double peak_tops = 0;            // 2 x MACs x clock
  double ddr_gbps = 0;             // bandwidth x (1 - other_agents_share)

  // MACs per DDR byte where the slope meets the ceiling.
  double ridge_macs_per_byte() const { return ddr_bytes_per_cycle > 0 ? peak_macs_per_cycle / ddr_bytes_per_cycle : 0; }
  // The highest TOPS a layer of this intensity can reach: min(peak, 2 x intensity x bandwidth).
  double attainable_tops(double macs_per_byte) const;
};

// Uses ddr.bandwidth_gbps even for the ideal DDR model (configs/README.md: "still used for
// roofline plots"), minus the share other agents take.
Roofline roofline_of(const HardwareConfig& config);

// "compute" or "memory" by the ridge point; "-" when the layer moves no DDR bytes or does no
// MACs (no intensity to place on the roofline).
std::string roofline_bound(const Roofline& roof, std::uint64_t macs, std::uint64_t ddr_bytes);

struct RooflinePoint {
  std::string label;
  double macs_per_byte = 0;
  double achieved_tops = 0;
};

// A small log-log ASCII chart (intensity across, TOPS up): '-' the ceiling, '/' the slope,
// '|' the ridge, a letter per point (A, B, ... in the order given). For terminals.
std::string ascii_roofline(const Roofline& roof, const std::vector<RooflinePoint>& points, int width = 64,
                           int height = 16);

}  // namespace npu::report
