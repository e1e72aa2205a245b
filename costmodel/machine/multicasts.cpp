#include "costmodel/machine/multicasts.h"

#include "costmodel/machine/dma_channels.h"

namespace npu::cost {

void Multicasts::arrive(const DmaTransfer& t, DmaChannels& channels) {
  Round& r = rounds_[key(t)];
  ++r.arrived;
  if (t.multicast_follower()) {
    r.followers.emplace_back(&channels, &t);
    channels.await(t);
  }
}

bool Multicasts::ready(const DmaTransfer& leader) const {
  const auto it = rounds_.find(key(leader));
  return it != rounds_.end() && it->second.arrived == leader.multicast_count;
}

void Multicasts::started(const DmaTransfer& leader, std::uint64_t now) {
  for (const auto& [channels, t] : rounds_.at(key(leader)).followers) channels->copy_started(*t, now);
}

void Multicasts::finished(const DmaTransfer& leader, std::uint64_t start, std::uint64_t now) {
  const auto it = rounds_.find(key(leader));
  const Round round = it->second;
  rounds_.erase(it);
  for (const auto& [channels, t] : round.followers) channels->copy_finished(*t, start, now);
}

std::vector<int> Multicasts::missing(const DmaTransfer& leader) const {
  std::vector<int> out;
  const auto it = rounds_.find(key(leader));
  for (int e = leader.multicast_first + 1; e < leader.multicast_first + leader.multicast_count; ++e) {
    bool here = false;
    if (it != rounds_.end())
      for (const auto& f : it->second.followers) here |= f.second->engine == e;
    if (!here) out.push_back(e);
  }
  return out;
}

}  // namespace npu::cost
