#include "costmodel/ddr/ddr_simple.h"

#include <algorithm>

namespace npu::cost {

BurstDdr::BurstDdr(const DdrConfig& config, bool banked)
    : timer_(config, banked),
      latency_ns_(config.latency_ns),
      channels_(static_cast<double>(std::max(1, config.channels))),
      block_ns_(static_cast<double>(std::max(1, config.interleave_bytes / std::max(1, config.burst_bytes))) *
                timer_.burst_ns()) {}

DdrChunkTiming BurstDdr::serve(const DdrChunk& c) {
  DdrChunkTiming t;
  t.free_ns = c.grant_ns;
  std::uint64_t bursts = 0;
  cost::RowCounts rows;
  for (std::size_t i = 0; i < c.count; ++i)
    t.free_ns = std::max(t.free_ns, timer_.serve(c.pieces[i].addr, c.pieces[i].bytes, c.request_ns, c.grant_ns,
                                                 bursts, rows));
  t.done_ns = t.free_ns + latency_ns_;
  // The bus takes the next chunk when this one has had its share of the whole bus (all
  // channels), but a channel may be booked at most one interleave block ahead: a chunk that
  // lands on few channels holds the bus until they have nearly caught up.
  t.free_ns = std::max(c.grant_ns + static_cast<double>(bursts) * timer_.burst_ns() / channels_,
                       t.free_ns - block_ns_);
  t.row_hits = rows.hits;
  t.row_misses = rows.misses;
  counters_.bus_bytes += bursts * static_cast<std::uint64_t>(timer_.burst_bytes());
  counters_.row_hits += rows.hits;
  counters_.row_misses += rows.misses;
  counters_.data_ns += static_cast<double>(bursts) * timer_.burst_ns();
  return t;
}

std::unique_ptr<DdrTimingModel> make_simple_ddr(const DdrConfig& ddr, const DramConfig&) {
  return std::make_unique<BurstDdr>(ddr, false);
}

std::unique_ptr<DdrTimingModel> make_banked_ddr(const DdrConfig& ddr, const DramConfig&) {
  return std::make_unique<BurstDdr>(ddr, true);
}

}  // namespace npu::cost
