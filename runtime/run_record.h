// What one run of a model measured: the simulator's counters summed over the NPU steps, the
// host's share (CPU steps, transitions, transfers), the steps on the model's timeline, and
// the conversions the runtime made. report/ turns it into what users read.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "container/compiled_model.h"
#include "runtime/host_time_model.h"
#include "runtime/tensor_conversion.h"
#include "sim/simulator.h"

namespace npu::runtime {

struct StepReport {
  std::string kind;                  // "npu" | "cpu"
  std::uint32_t first_instruction = 0, end_instruction = 0;  // NPU steps
  std::vector<std::string> nodes;    // CPU steps
  std::uint64_t cycles = 0;          // NPU steps: simulated cycles
  double host_us = 0;                // CPU steps: host model time
  double start_us = 0;               // on the model's timeline
};

struct RunRecord {
  std::string model;                 // file the model came from
  std::string precision;             // "int8" | "fp16"
  container::QuantizationRecord quantization;  // how an int8 program was quantised (compiled_model.h)
  std::string device;                // NPU back end, e.g. "sim"
  bool timing_only = false;
  sim::SimResult npu;                // summed over NPU steps; instructions and trace on the model timeline
  HostTime host;
  std::uint64_t cpu_flops = 0;
  std::uint32_t transitions = 0;     // NPU<->CPU switches between consecutive steps
  std::uint64_t transfer_bytes = 0;  // tensors that crossed between NPU and CPU steps
  std::uint64_t io_bytes = 0;        // model inputs written to and outputs read from the NPU
  std::vector<StepReport> steps;
  std::vector<container::Fallback> fallbacks;
  std::vector<Conversion> conversions;
  std::vector<std::string> notes;    // e.g. which inputs were generated
  std::vector<std::string> warnings; // from the compiler

  double latency_us() const { return npu.latency_us + host.total_us(); }
};

}  // namespace npu::runtime
