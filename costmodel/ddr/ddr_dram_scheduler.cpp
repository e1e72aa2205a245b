#include "costmodel/ddr/ddr_dram_scheduler.h"

#include <algorithm>

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

template <typename Policy>
std::unique_ptr<DramScheduler> make() {
  return std::make_unique<Policy>();
}

using SchedulerFactory = std::unique_ptr<DramScheduler> (*)();
constexpr ChoiceImpl<DramSchedulerPolicy, SchedulerFactory> kSchedulers[] = {
    {DramSchedulerPolicy::FrFcfs, make<FrFcfs>},
    {DramSchedulerPolicy::Fcfs, make<Fcfs>},
};
static_assert(covers_every_choice(kSchedulers), "one scheduler per dram.scheduler value, in config_choices.def's order");

}  // namespace

std::unique_ptr<DramScheduler> make_dram_scheduler(DramSchedulerPolicy policy) {
  return implementation_of(kSchedulers, policy)();
}

}  // namespace npu::cost
