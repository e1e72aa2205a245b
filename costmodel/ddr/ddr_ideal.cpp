// Ideal DDR: no latency, infinite bandwidth. Isolates compute and SRAM effects in sweeps.
// Bursts are still counted so bus-byte statistics stay comparable across models.
#include "costmodel/dma_cost.h"
#include "costmodel/ddr/ddr_model.h"

namespace npu::cost {
namespace {

class IdealDdr : public DdrTimingModel {
 public:
  explicit IdealDdr(const DdrConfig& config) : burst_bytes_(static_cast<std::uint64_t>(config.burst_bytes)) {}
  std::unique_ptr<DdrTimingModel> clone() const override { return std::make_unique<IdealDdr>(*this); }
  DdrChunkTiming serve(const DdrChunk& c) override {
    for (std::size_t i = 0; i < c.count; ++i)
      counters_.bus_bytes += cost::run_bursts(c.pieces[i].addr, c.pieces[i].bytes, burst_bytes_) * burst_bytes_;
    DdrChunkTiming t;
    t.free_ns = t.done_ns = c.grant_ns;
    return t;
  }

 private:
  std::uint64_t burst_bytes_;
};

}  // namespace

std::unique_ptr<DdrTimingModel> make_ideal_ddr(const DdrConfig& ddr, const DramConfig&) {
  return std::make_unique<IdealDdr>(ddr);
}

}  // namespace npu::cost
