#include "costmodel/ddr_timing.h"

#include <algorithm>

#include "costmodel/dma_cost.h"

namespace npu::cost {

DdrBurstTimer::DdrBurstTimer(const DdrConfig& ddr, bool banked, const DdrAddressMap& map)
    : banked_(banked),
      map_(map),
      burst_bytes_(static_cast<std::uint64_t>(std::max(1, ddr.burst_bytes))),
      interleave_(static_cast<std::uint64_t>(std::max(1, ddr.interleave_bytes))),
      burst_ns_(channel_burst_ns(ddr)),
      row_miss_ns_(ddr.row_miss_ns) {
  reset();
}

void DdrBurstTimer::reset() {
  free_ns_.assign(map_.channels(), 0.0);
  banks_.assign(banked_ ? static_cast<std::size_t>(map_.channels()) * map_.banks() : 0, Bank{});
}

double DdrBurstTimer::serve(std::uint64_t addr, std::uint64_t bytes, double request_ns, double grant_ns,
                            std::uint64_t& bursts, RowCounts& rows) {
  const std::uint64_t bb = burst_bytes_;
  std::uint64_t a = addr / bb * bb;
  const std::uint64_t end = (addr + bytes + bb - 1) / bb * bb;
  bursts += (end - a) / bb;
  if (banked_) return serve_banked(a, end, request_ns, grant_ns, rows);
  double last = grant_ns;
  while (a < end) {
    // A burst belongs to the interleave block holding its first byte.
    const std::uint64_t block_end = (a / interleave_ + 1) * interleave_;
    const std::uint64_t seg_end = std::min(end, (block_end + bb - 1) / bb * bb);
    double& free = free_ns_[map_.channel_of(a)];
    free = std::max(free, grant_ns) + static_cast<double>((seg_end - a) / bb) * burst_ns_;
    last = std::max(last, free);
    a = seg_end;
  }
  return last;
}

double DdrBurstTimer::serve_banked(std::uint64_t a, std::uint64_t end, double request_ns, double grant_ns,
                                   RowCounts& rows) {
  double last = grant_ns;
  const std::uint64_t bb = burst_bytes_;
  while (a < end) {
    const DdrLocation at = map_.locate(a);
    // Consecutive bursts on the same channel, bank and row are served as one group.
    std::uint64_t n = 1;
    while (a + n * bb < end) {
      const DdrLocation next = map_.locate(a + n * bb);
      if (next.channel != at.channel || next.bank != at.bank || next.row != at.row) break;
      ++n;
    }
    Bank& bank = banks_[static_cast<std::size_t>(at.channel) * map_.banks() + at.bank];
    double& free = free_ns_[at.channel];
    double start = std::max(free, grant_ns);
    if (bank.open_row != static_cast<std::int64_t>(at.row)) {
      start = std::max(start, std::max(request_ns, bank.last_use_ns) + row_miss_ns_);
      bank.open_row = static_cast<std::int64_t>(at.row);
      ++rows.misses;
      rows.hits += n - 1;
    } else {
      rows.hits += n;
    }
    free = start + static_cast<double>(n) * burst_ns_;
    bank.last_use_ns = free;
    last = std::max(last, free);
    a += n * bb;
  }
  return last;
}

}  // namespace npu::cost
