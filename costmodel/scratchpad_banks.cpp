#include "costmodel/scratchpad_banks.h"

#include <algorithm>
#include <cmath>

namespace npu::cost {

ScratchpadBanks::ScratchpadBanks(const SramConfig& config)
    : map_(config), bank_width_(static_cast<double>(std::max(1, config.bank_width_bytes))) {
  for (auto& r : running_) r.fraction.assign(map_.banks(), 0.0);
}

void ScratchpadBanks::profile(Running& r) const {
  if (r.profiled) return;
  for (std::uint32_t b : r.banks) r.fraction[b] = 0.0;
  r.banks.clear();
  const double per_cycle = bank_width_ * static_cast<double>(std::max<std::uint64_t>(1, r.cycles));
  for (const auto& range : r.access.ranges_)
    map_.for_each_bank(range.addr, range.bytes, [&](std::uint32_t bank, std::uint64_t n) {
      if (r.fraction[bank] == 0.0) r.banks.push_back(bank);
      r.fraction[bank] += static_cast<double>(n) * range.times / per_cycle;
    });
  for (std::uint32_t b : r.banks) r.fraction[b] = std::min(1.0, r.fraction[b]);
  r.profiled = true;
}

std::uint64_t ScratchpadBanks::begin(Agent agent, std::uint64_t start, std::uint64_t cycles, const Access& access) {
  // This agent's previous access has ended (one unit runs one access at a time).
  Running& mine = running_[agent];
  mine.start = start;
  mine.cycles = cycles;
  mine.end = start + cycles;
  mine.access = access;
  mine.profiled = false;
  if (cycles == 0) return 0;
  double stall = 0.0;
  for (int a = 0; a < kAgents; ++a) {
    Running& other = running_[a];
    if (a == agent || other.end <= start || other.cycles == 0) continue;
    profile(mine);
    profile(other);
    double collide = 0.0;
    for (std::uint32_t b : mine.banks) collide += mine.fraction[b] * other.fraction[b];
    const double overlap = static_cast<double>(std::min(other.end, start + cycles) - start);
    stall += overlap * std::min(1.0, collide);
  }
  const auto stall_cycles = static_cast<std::uint64_t>(std::ceil(stall - 1e-9));
  mine.end = start + cycles + stall_cycles;
  return stall_cycles;
}

}  // namespace npu::cost
