// Simple model plus row buffers: each channel has `banks` banks with one open row each.
// row = addr / row_bytes, bank = row % banks; a burst whose row differs from its bank's open
// row pays row_miss_ns (precharge + activate) on that channel before it is served.
#include <vector>

#include "sim/ddr_simple.h"

namespace npu::sim {
namespace {

class BankedDdr : public SimpleDdr {
 public:
  explicit BankedDdr(const DdrConfig& config)
      : SimpleDdr(config), open_rows_(free_ns_.size(), std::vector<std::int64_t>(std::max(1, config.banks), -1)) {}

 protected:
  double row_penalty_ns(int channel, std::uint64_t begin, std::uint64_t end) override {
    const std::uint64_t row_bytes = static_cast<std::uint64_t>(config_.row_bytes);
    auto& rows = open_rows_[channel];
    double penalty = 0.0;
    for (std::uint64_t row = begin / row_bytes; row <= (end - 1) / row_bytes; ++row) {
      auto& open = rows[row % rows.size()];
      if (open != static_cast<std::int64_t>(row)) {
        open = static_cast<std::int64_t>(row);
        ++row_misses_;
        penalty += config_.row_miss_ns;
      }
    }
    return penalty;
  }

 private:
  std::vector<std::vector<std::int64_t>> open_rows_;
};

}  // namespace

std::unique_ptr<DdrTimingModel> make_banked_ddr(const DdrConfig& config) {
  return std::make_unique<BankedDdr>(config);
}

}  // namespace npu::sim
