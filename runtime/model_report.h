// What a user reads after running a model: the simulator's summary over all NPU steps, the
// host's share (CPU steps, transitions, transfers), a per-layer table, fallbacks and the
// conversions the runtime made. Every number comes from a SimResult counter or the host model.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiled_model.h"
#include "hardware_config.h"
#include "host_time_model.h"
#include "layer_attribution.h"
#include "simulator.h"
#include "tensor_conversion.h"

namespace npu::runtime {

struct StepReport {
  std::string kind;                  // "npu" | "cpu"
  std::uint32_t first_instruction = 0, end_instruction = 0;  // NPU steps
  std::vector<std::string> nodes;    // CPU steps
  std::uint64_t cycles = 0;          // NPU steps: simulated cycles
  double host_us = 0;                // CPU steps: host model time
  double start_us = 0;               // on the model's timeline
};

struct ModelReport {
  std::string model;                 // file the model came from
  std::string precision;             // "int8" | "fp16"
  std::string device;                // NPU back end, e.g. "sim"
  bool timing_only = false;
  sim::SimResult npu;                // summed over NPU steps; instructions and trace on the model timeline
  HostTime host;
  std::uint64_t cpu_flops = 0;
  std::uint32_t transitions = 0;     // NPU<->CPU switches between consecutive steps
  std::uint64_t transfer_bytes = 0;  // tensors that crossed between NPU and CPU steps
  std::uint64_t io_bytes = 0;        // model inputs written to and outputs read from the NPU
  std::vector<StepReport> steps;
  std::vector<LayerTiming> layers;
  std::vector<compiler::Fallback> fallbacks;
  std::vector<Conversion> conversions;
  std::vector<std::string> notes;    // e.g. which inputs were generated
  std::vector<std::string> warnings; // from the compiler

  double latency_us() const { return npu.latency_us + host.total_us(); }
};

// sim_report_json's keys (cycles, macs, ddr, energy, unit busy cycles … summed over NPU
// steps) with latency_us end to end (NPU + host), plus npu_latency_us, host, time (NPU vs
// CPU fallback vs transitions and transfers), steps, layers (report_layers.h: layer_json),
// fallbacks, transitions, transfer_bytes, io_bytes, conversions, notes and warnings.
nlohmann::json model_report_json(const ModelReport& report, const HardwareConfig& config);

struct ReportFormat {
  bool layers = true;    // the per-layer table after the summary
  std::size_t top = 0;   // 0: every layer in program order; N: the N costliest by cycles
};
std::string format_model_report(const ModelReport& report, const HardwareConfig& config,
                                const ReportFormat& format = {});

}  // namespace npu::runtime
