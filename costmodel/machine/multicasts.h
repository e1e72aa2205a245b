// The rendezvous of mload (isa/instruction_set.def): the k-th mload of each member of a group
// meets the k-th of the others. The group's first engine moves the bytes once every member has
// taken its tokens (its destination is free); the others' copies wait, without a channel, and
// start and finish with that transfer (their data lands when it has all arrived).
#pragma once
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "costmodel/program_plan.h"

namespace npu::cost {

class DmaChannels;

class Multicasts {
 public:
  // A member's mload has taken its tokens; a follower's copy now waits in `channels`.
  void arrive(const DmaTransfer& t, DmaChannels& channels);
  // Every member of the leader's round has arrived.
  bool ready(const DmaTransfer& leader) const;
  // The leader's transfer started / finished: so do the followers' copies.
  void started(const DmaTransfer& leader, std::uint64_t now);
  void finished(const DmaTransfer& leader, std::uint64_t start, std::uint64_t now);
  // For deadlock reports: the members still missing from `leader`'s round.
  std::vector<int> missing(const DmaTransfer& leader) const;

 private:
  using Key = std::tuple<int, int, std::uint32_t>;  // group first, group count, round
  static Key key(const DmaTransfer& t) { return {t.multicast_first, t.multicast_count, t.multicast_round}; }
  struct Round {
    std::vector<std::pair<DmaChannels*, const DmaTransfer*>> followers;
    int arrived = 0;
  };
  std::map<Key, Round> rounds_;
};

}  // namespace npu::cost
