#include "costmodel/shared_sram.h"

namespace npu::cost {
namespace {

class SharedSramTiming : public DdrTimingModel {
 public:
  explicit SharedSramTiming(const HardwareConfig& c)
      : ns_per_byte_(c.cycle_ns() / static_cast<double>(c.engines.shared_sram_bytes_per_cycle)),
        latency_ns_(static_cast<double>(c.engines.shared_sram_latency_cycles) * c.cycle_ns()) {}
  DdrChunkTiming serve(const DdrChunk& c) override {
    std::uint64_t bytes = 0;
    for (std::size_t i = 0; i < c.count; ++i) bytes += c.pieces[i].bytes;
    const double moving_ns = static_cast<double>(bytes) * ns_per_byte_;
    DdrChunkTiming t;
    t.free_ns = c.grant_ns + moving_ns;
    t.done_ns = t.free_ns + latency_ns_;
    counters_.bus_bytes += bytes;
    counters_.data_ns += moving_ns;
    return t;
  }

 private:
  double ns_per_byte_, latency_ns_;
};

}  // namespace

std::unique_ptr<DdrTimingModel> make_shared_sram_timing(const HardwareConfig& config) {
  return std::make_unique<SharedSramTiming>(config);
}

}  // namespace npu::cost
