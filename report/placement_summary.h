// Where a compiled model runs, from the compiled model alone (no simulation): how many layers
// and MACs the NPU takes, an estimate of the share of time it spends there, how the CPU
// fallback splits the model (islands, transitions), and per op type what went where and why.
//
// Time (what `npusim run` would report, without running it):
//   NPU steps: each step's estimated_cycles, the timing core's exact figure that compile()
//     records (cost::estimate_program; a timing-only simulation gives the same cycles);
//   CPU layers: the host model (runtime/host_time_model.h: each CPU step's flops at
//     host.gflops), plus host.transition_us per NPU<->CPU transition and the NPU tensors that
//     cross to or from a CPU step at host.memcpy_gbps (each once, at its NPU size).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "container/compiled_model.h"
#include "hwconfig/hardware_config.h"

namespace npu::report {

struct OpPlacement {
  std::string op;  // base op type: "Conv" for Conv, Conv+SiLU and a fallen-back FusedConv
  std::size_t npu = 0, cpu = 0;
  std::map<std::string, std::size_t> reasons;  // fallback reason -> nodes
};

struct PlacementSummary {
  std::size_t layers = 0, npu_layers = 0;
  std::uint64_t macs = 0, npu_macs = 0;
  double npu_us = 0, cpu_us = 0, transition_us = 0, transfer_us = 0;
  std::uint32_t cpu_islands = 0;  // maximal runs of consecutive CPU layers
  std::uint32_t transitions = 0;
  std::vector<OpPlacement> ops;  // most layers first

  double mac_percent() const { return macs ? 100.0 * static_cast<double>(npu_macs) / static_cast<double>(macs) : 0.0; }
  double npu_time_percent() const {
    const double total = npu_us + cpu_us + transition_us + transfer_us;
    return total > 0 ? 100.0 * npu_us / total : 0.0;
  }
};

// `model` as compile() returns it (layers, steps, program, fallbacks).
PlacementSummary summarize_placement(const container::CompiledModel& model, const HardwareConfig& config);

// "Conv+SiLU" -> "Conv", "FusedConv" -> "Conv", "FusedGemm" -> "Gemm"
std::string base_op(const std::string& layer_op);

}  // namespace npu::report
