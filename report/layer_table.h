// The per-layer table: for each layer after fusion, where its time went (cycles by unit),
// what it moved (DDR bytes), its arithmetic intensity and whether this config's roofline
// makes it compute- or memory-bound. As JSON rows, a terminal table and CSV for pandas.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hwconfig/hardware_config.h"
#include "report/layer_attribution.h"
#include "report/roofline.h"

namespace npu::report {

// MACs per DDR byte; 0 when the layer moves no DDR bytes.
double arithmetic_intensity(const LayerTiming& layer);
// 2 x MACs over the layer's own cycles (NPU) or host time (CPU); 0 when it took no time.
double layer_achieved_tops(const LayerTiming& layer, double clock_mhz);
// "compute" | "memory" by the roofline for NPU layers; "-" for CPU layers and for layers
// with no MACs or no DDR bytes.
std::string layer_roofline_bound(const LayerTiming& layer, const Roofline& roof);

nlohmann::json layer_json(const LayerTiming& layer, const HardwareConfig& config);

// How well the NPU layers keep their busiest resource busy: the sum over NPU layers of
// max(compute busy, vector busy, DDR bytes / DDR bytes per cycle), over the NPU cycles. 1 or
// more: the layers ran back to back at their bottleneck or overlapped each other; below 1:
// time lost to pipeline fill, dependencies and idle units.
double overlap_efficiency(const std::vector<LayerTiming>& layers, const HardwareConfig& config, std::uint64_t npu_cycles);

// Indices of the rows to show: all in program order (top == 0), or the `top` costliest by
// cycles, costliest first.
std::vector<std::size_t> layer_order(const std::vector<LayerTiming>& layers, std::size_t top);

std::string format_layer_table(const std::vector<LayerTiming>& layers, const HardwareConfig& config,
                               std::size_t top = 0);
// One header line and one line per layer, all layers in program order.
std::string layers_csv(const std::vector<LayerTiming>& layers, const HardwareConfig& config);

}  // namespace npu::report
