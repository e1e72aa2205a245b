// Which queued request the DRAM channel serves next (dram.scheduler), DRAMSys-style: a small
// interface, each policy beside it, registered by dram.scheduler value.
//   frfcfs  first-ready, first-come first-served (Rixner et al., ISCA 2000): among the
//           commands that can issue earliest, a row hit's RD/WR before anything else, then
//           the oldest request.
//   fcfs    the oldest request only, its commands in order: no reordering at all.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "hwconfig/config_choices.h"

namespace npu::cost {

// The next command one queued request needs, and when it could issue.
struct DramCandidate {
  double time = 0;
  bool row_hit = false;    // the command is the request's RD/WR (its row is open)
  std::uint64_t age = 0;   // arrival order: smaller is older
};

class DramScheduler {
 public:
  virtual ~DramScheduler() = default;
  // Index into `candidates` (non-empty, in queue order) of the one to issue.
  virtual std::size_t pick(const std::vector<DramCandidate>& candidates) const = 0;
  // Whether every queued request is a candidate (false: only the oldest).
  virtual bool reorders() const = 0;
};

std::unique_ptr<DramScheduler> make_dram_scheduler(DramSchedulerPolicy policy);

}  // namespace npu::cost
