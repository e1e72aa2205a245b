#include "costmodel/ddr/ddr_dram.h"

#include <algorithm>

namespace npu::cost {

DramDdr::DramDdr(const DdrConfig& ddr, const DramConfig& dram) : DramDdr(ddr, dram, dram_standard(dram.standard)) {}

DramDdr::DramDdr(const DdrConfig& ddr, const DramConfig& dram, const DramStandard& standard)
    : standard_(standard),
      map_(ddr, standard_.banks, standard_.bank_groups, standard_.row_bytes, standard_.burst_bytes()),
      scheduler_(make_dram_scheduler(dram.scheduler)),
      admitted_(static_cast<std::size_t>(std::max(1, ddr.channels)), 0),
      room_(static_cast<std::size_t>(std::max(1, dram.queue_depth)) / 2),
      latency_ns_(ddr.latency_ns) {
  channels_.reserve(admitted_.size());
  for (int c = 0; c < std::max(1, ddr.channels); ++c)
    channels_.emplace_back(standard_, dram, *scheduler_, ddr.other_agents_share, counters_, ledger_);
}

DdrChunkTiming DramDdr::serve(const DdrChunk& c) {
  const auto bb = static_cast<std::uint64_t>(standard_.burst_bytes());
  std::fill(admitted_.begin(), admitted_.end(), 0);
  DramLedger::Entry& entry = ledger_.at(c.transfer);
  for (std::size_t i = 0; i < c.count; ++i) {
    const DdrPiece& p = c.pieces[i];
    for (std::uint64_t a = p.addr / bb * bb; a < p.addr + p.bytes; a += bb) {
      const cost::DdrLocation at = map_.locate(a);
      DramRequest r;
      r.row = at.row;
      r.bank = at.bank;
      r.group = at.bank_group;
      r.write = c.write;
      r.arrival_ns = c.grant_ns;
      r.age = age_++;
      r.transfer = c.transfer;
      channels_[at.channel].admit(r);
      ++admitted_[at.channel];
      ++entry.pending;
    }
  }
  DdrChunkTiming t;
  t.free_ns = c.grant_ns;
  for (std::size_t ch = 0; ch < channels_.size(); ++ch)
    if (admitted_[ch]) t.free_ns = std::max(t.free_ns, channels_[ch].run_until_pending(room_, c.grant_ns));
  t.done_ns = c.grant_ns;
  if (c.last) {
    for (auto& ch : channels_) ch.run_until_done(c.transfer);
    const DramLedger::Entry& e = ledger_.at(c.transfer);
    t.done_ns = std::max(c.grant_ns, e.last_data_ns) + latency_ns_;
    t.row_hits = e.hits;
    t.row_misses = e.misses;
    t.turnaround_ns = e.turnaround_ns;
    ledger_.erase(c.transfer);
  }
  return t;
}

void DramDdr::finish(double end_ns) {
  for (auto& ch : channels_) ch.finish(end_ns);
}

std::unique_ptr<DdrTimingModel> make_dram_ddr(const DdrConfig& ddr, const DramConfig& dram) {
  return std::make_unique<DramDdr>(ddr, dram);
}

}  // namespace npu::cost
