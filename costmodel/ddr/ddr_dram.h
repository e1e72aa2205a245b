// The command-level DRAM model (ddr.model: dram), structured as DRAMSys/Ramulator 2 are:
// the address mapper (costmodel/ddr_address_map.h: channel, bank group, bank, row of a burst),
// one controller per channel (ddr_dram_channel.h: request queue, bank state machines of
// ddr_dram_bank.h, JEDEC constraints, refresh) and the scheduler (ddr_dram_scheduler.h).
// Timing set: hwconfig/dram_standards.h, by dram.standard.
//
// A chunk granted by the DMA bus becomes one request per burst, admitted to its channel's
// queue at the grant time. The controllers then issue commands until every channel the
// chunk used has at most half its queue pending; the bus takes the next chunk from then, so
// the scheduler always sees requests ahead (and can open the next row early) without the
// model ever running past requests it has not been told about. A transfer's last chunk runs
// its channels until all its requests are served: the transfer ends at its last data beat
// plus ddr.latency_ns (the SoC fabric and controller around the DRAM). Other agents
// (ddr.other_agents_share = s) take s / (1 - s) of a burst's time on the data bus after each
// of the NPU's bursts.
#pragma once
#include <memory>
#include <vector>

#include "costmodel/ddr_address_map.h"
#include "costmodel/ddr/ddr_dram_channel.h"
#include "costmodel/ddr/ddr_model.h"

namespace npu::cost {

class DramDdr : public DdrTimingModel {
 public:
  DramDdr(const DdrConfig& ddr, const DramConfig& dram);
  // With a timing set of the caller's (tests: a standard with refresh or a timing changed).
  DramDdr(const DdrConfig& ddr, const DramConfig& dram, const DramStandard& standard);
  DdrChunkTiming serve(const DdrChunk& chunk) override;
  void finish(double end_ns) override;
  const DramStandard& standard() const { return standard_; }

 private:
  DramStandard standard_;
  cost::DdrAddressMap map_;
  std::unique_ptr<DramScheduler> scheduler_;
  DramLedger ledger_;
  std::vector<DramChannel> channels_;
  std::vector<std::uint32_t> admitted_;  // per channel, of the chunk being served
  std::size_t room_;
  double latency_ns_;
  std::uint64_t age_ = 0;
};

}  // namespace npu::cost
