#include "costmodel/ddr/ddr_dram_scheduler.h"

#include <fmt/format.h>

#include "costmodel/timing_error.h"

namespace npu::cost {
namespace {

// Commands that can issue within this of the earliest count as ready together (times are
// sums of ns figures, so equal times may differ in the last bits).
constexpr double kSameTimeNs = 1e-6;

class FrFcfs : public DramScheduler {
 public:
  std::size_t pick(const std::vector<DramCandidate>& c) const override {
    double earliest = c[0].time;
    for (const auto& x : c) earliest = std::min(earliest, x.time);
    std::size_t best = c.size();
    for (std::size_t i = 0; i < c.size(); ++i) {
      if (c[i].time > earliest + kSameTimeNs) continue;
      if (best == c.size() || (c[i].row_hit && !c[best].row_hit) ||
          (c[i].row_hit == c[best].row_hit && c[i].age < c[best].age))
        best = i;
    }
    return best;
  }
  bool reorders() const override { return true; }
};

class Fcfs : public DramScheduler {
 public:
  std::size_t pick(const std::vector<DramCandidate>&) const override { return 0; }
  bool reorders() const override { return false; }
};

}  // namespace

std::unique_ptr<DramScheduler> make_dram_scheduler(const std::string& name) {
  if (name == "frfcfs") return std::make_unique<FrFcfs>();
  if (name == "fcfs") return std::make_unique<Fcfs>();
  throw TimingError(fmt::format("dram.scheduler '{}' is unknown (known: frfcfs, fcfs)", name));
}

}  // namespace npu::cost
