// What a DDR timing model counts while it serves a run.
#pragma once
#include <cstdint>

namespace npu::cost {

// What the DDR model saw (sim/README.md "DDR dram"). simple/banked fill bus_bytes, row hits,
// row misses and data_ns; the command-level dram model fills all of them. Times are summed
// over channels.
struct DdrCounters {
  std::uint64_t bus_bytes = 0;      // whole bursts moved
  std::uint64_t row_hits = 0;       // bursts served from an already open row
  std::uint64_t row_misses = 0;     // bursts that had to open their row (ACT)
  std::uint64_t row_conflicts = 0;  // ... of which had to close another row first (PRE)
  std::uint64_t refreshes = 0;
  double refresh_ns = 0;       // channel time blocked by refresh (tRFC each)
  double turnaround_ns = 0;    // data-bus idle time between a read burst and a write burst (either order)
  double data_ns = 0;          // data-bus busy time (bursts)
  double active_ns = 0;        // time with at least one request in service
  double bank_busy_ns = 0;     // sum over banks of time with a request in service
  double row_hit_rate() const {
    return row_hits + row_misses ? static_cast<double>(row_hits) / static_cast<double>(row_hits + row_misses) : 0.0;
  }
  double bank_parallelism() const { return active_ns > 0 ? bank_busy_ns / active_ns : 0.0; }
  double peak_fraction() const { return active_ns > 0 ? data_ns / active_ns : 0.0; }
};

}  // namespace npu::cost
