// The simple DDR model: fixed latency plus bursts served at the effective bandwidth
// (peak * (1 - other_agents_share)) split evenly over the channels; consecutive
// interleave_bytes blocks alternate between channels, and each channel serves its bursts
// one after another from the time it is next free. Contention between DMA channels
// therefore emerges from the per-channel free-at times.
#pragma once
#include <vector>

#include "sim/ddr_model.h"

namespace npu::sim {

class SimpleDdr : public DdrTimingModel {
 public:
  explicit SimpleDdr(const DdrConfig& config);
  double access(std::uint64_t addr, std::uint64_t bytes, bool write, double issue_ns) override;

 protected:
  // Extra channel time before serving bursts [begin, end) on `channel` (banked: row misses).
  virtual double row_penalty_ns(int channel, std::uint64_t begin, std::uint64_t end) { return 0.0; }

  DdrConfig config_;
  double burst_ns_;  // one burst on one channel
  std::vector<double> free_ns_;
};

}  // namespace npu::sim
