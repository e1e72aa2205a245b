// Ideal DDR: no latency, infinite bandwidth. Isolates compute and SRAM effects in sweeps.
// Bursts are still counted so bus-byte statistics stay comparable across models.
#include "sim/ddr_model.h"

namespace npu::sim {
namespace {

class IdealDdr : public DdrTimingModel {
 public:
  explicit IdealDdr(const DdrConfig& config) : burst_bytes_(static_cast<std::uint64_t>(config.burst_bytes)) {}
  double access(std::uint64_t addr, std::uint64_t bytes, bool, double issue_ns) override {
    const std::uint64_t first = addr / burst_bytes_, last = (addr + bytes + burst_bytes_ - 1) / burst_bytes_;
    bus_bytes_ += (last - first) * burst_bytes_;
    return issue_ns;
  }

 private:
  std::uint64_t burst_bytes_;
};

}  // namespace

std::unique_ptr<DdrTimingModel> make_ideal_ddr(const DdrConfig& config) {
  return std::make_unique<IdealDdr>(config);
}

}  // namespace npu::sim
