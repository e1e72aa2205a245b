// How long the host CPU takes for what the NPU does not do, from the config's host model:
// CPU steps at host.gflops, each NPU<->CPU switch at host.transition_us, the tensors that
// cross between them at host.memcpy_gbps, host.launch_us once per inference and
// host.layer_dispatch_us per NPU layer.
#pragma once
#include <cstdint>

#include "hwconfig/hardware_config.h"

namespace npu::runtime {

struct HostTime {
  double compute_us = 0;     // CPU steps: flops / gflops
  double transition_us = 0;  // transitions * host.transition_us
  double transfer_us = 0;    // bytes / memcpy_gbps
  double launch_us = 0;      // host.launch_us: submitting the inference and taking its completion
  double dispatch_us = 0;    // host.layer_dispatch_us per NPU layer that runs code
  double total_us() const { return compute_us + transition_us + transfer_us + launch_us + dispatch_us; }
  double overhead_us() const { return transfer_us + transition_us + launch_us + dispatch_us; }  // all but CPU steps
};

double cpu_compute_us(std::uint64_t flops, const HostConfig& host);
double transfer_us(std::uint64_t bytes, const HostConfig& host);
HostTime host_time(std::uint64_t cpu_flops, std::uint32_t transitions, std::uint64_t transfer_bytes,
                   const HostConfig& host);

}  // namespace npu::runtime
