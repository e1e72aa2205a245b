#include "runtime/host_time_model.h"

namespace npu::runtime {

// 1 GFLOP/s is 1e3 flops per microsecond; 1 GB/s is 1e3 bytes per microsecond.
double cpu_compute_us(std::uint64_t flops, const HostConfig& host) {
  return host.gflops > 0 ? static_cast<double>(flops) / (host.gflops * 1e3) : 0.0;
}

double transfer_us(std::uint64_t bytes, const HostConfig& host) {
  return host.memcpy_gbps > 0 ? static_cast<double>(bytes) / (host.memcpy_gbps * 1e3) : 0.0;
}

HostTime host_time(std::uint64_t cpu_flops, std::uint32_t transitions, std::uint64_t transfer_bytes,
                   const HostConfig& host) {
  HostTime t;
  t.compute_us = cpu_compute_us(cpu_flops, host);
  t.transition_us = transitions * host.transition_us;
  t.transfer_us = transfer_us(transfer_bytes, host);
  t.launch_us = host.launch_us;
  return t;
}

}  // namespace npu::runtime
