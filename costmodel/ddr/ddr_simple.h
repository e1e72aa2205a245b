// The simple and banked DDR models: the burst rules of costmodel/ddr_timing.h (shared with
// the compiler's estimate) applied to each chunk the bus grants, plus ddr.latency_ns once
// per chunk (a transfer's chunks pipeline, so a transfer pays it once at its end). The bus
// is free for the next chunk after max(grant + the chunk's bursts * burst_ns / channels,
// its busiest channel's end - one interleave block's bursts * burst_ns).
#pragma once
#include "costmodel/ddr_timing.h"
#include "costmodel/ddr/ddr_model.h"

namespace npu::cost {

class BurstDdr : public DdrTimingModel {
 public:
  BurstDdr(const DdrConfig& config, bool banked);
  DdrChunkTiming serve(const DdrChunk& chunk) override;

 private:
  cost::DdrBurstTimer timer_;
  double latency_ns_, channels_;
  double block_ns_;  // one interleave block on one channel
};

}  // namespace npu::cost
