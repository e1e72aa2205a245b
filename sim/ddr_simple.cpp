#include "sim/ddr_simple.h"

#include <algorithm>

#include "costmodel/dma_cost.h"

namespace npu::sim {

SimpleDdr::SimpleDdr(const DdrConfig& config)
    : config_(config), burst_ns_(cost::channel_burst_ns(config)), free_ns_(std::max(1, config.channels), 0.0) {}

double SimpleDdr::access(std::uint64_t addr, std::uint64_t bytes, bool, double issue_ns) {
  const std::uint64_t bb = static_cast<std::uint64_t>(config_.burst_bytes);
  const std::uint64_t il = static_cast<std::uint64_t>(config_.interleave_bytes);
  const std::uint64_t channels = free_ns_.size();
  // A run starting mid-burst still moves the whole first burst (and likewise at the end):
  // bursts = ceil((addr % bb + bytes) / bb).
  std::uint64_t a = addr / bb * bb;
  const std::uint64_t end = (addr + bytes + bb - 1) / bb * bb;
  double done = issue_ns;
  while (a < end) {
    // A burst belongs to the interleave block holding its first byte.
    const std::uint64_t block_end = (a / il + 1) * il;
    const std::uint64_t seg_end = std::min(end, (block_end + bb - 1) / bb * bb);
    const int ch = static_cast<int>((a / il) % channels);
    const std::uint64_t bursts = (seg_end - a) / bb;
    const double start = std::max(free_ns_[ch], issue_ns) + row_penalty_ns(ch, a, seg_end);
    free_ns_[ch] = start + static_cast<double>(bursts) * burst_ns_;
    done = std::max(done, free_ns_[ch]);
    bus_bytes_ += bursts * bb;
    a = seg_end;
  }
  // Latency is paid once per transaction; the runs of one DMA transfer are issued together,
  // so the transfer as a whole pays it once (the DMA pipelines the rest).
  return done + config_.latency_ns;
}

std::unique_ptr<DdrTimingModel> make_simple_ddr(const DdrConfig& config) {
  return std::make_unique<SimpleDdr>(config);
}

}  // namespace npu::sim
