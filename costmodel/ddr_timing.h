// The burst-level rules of the `simple` and `banked` DDR models, shared by the simulator
// (costmodel/ddr/ddr_simple.cpp: simple and banked) and the compiler's DMA estimate (dma_cost.h):
//
// simple: a piece moves ceil((addr % burst + bytes) / burst) bursts; a burst goes to channel
//   (addr / interleave_bytes) % channels; each channel serves its bursts back to back at
//   burst_ns = burst_bytes / (bandwidth * (1 - other_agents_share) / channels) from
//   max(when it is free, grant).
// banked: as simple, and each channel has ddr.banks banks with one open row each, located by
//   ddr.address_mapping (ddr_address_map.h). A burst whose bank has another row open (or
//   none) waits until that bank has opened its row: the activate (row_miss_ns, precharge
//   included) starts at max(request, end of the bank's last burst), so activates in other
//   banks overlap the bursts on the bus and only a bank's own traffic delays it.
#pragma once
#include <cstdint>
#include <vector>

#include "costmodel/ddr_address_map.h"
#include "hwconfig/hardware_config.h"

namespace npu::cost {

// Bursts that found their row open / had to open it.
struct RowCounts {
  std::uint64_t hits = 0, misses = 0;
};

class DdrBurstTimer {
 public:
  // banked = false: the simple model. The banked model's geometry comes from `map`.
  DdrBurstTimer(const DdrConfig& ddr, bool banked, const DdrAddressMap& map);
  explicit DdrBurstTimer(const DdrConfig& ddr, bool banked) : DdrBurstTimer(ddr, banked, DdrAddressMap(ddr)) {}
  // Serves [addr, addr + bytes); returns when its last burst leaves the bus (ns). Adds the
  // bursts moved to `bursts` and (banked) the row hits and misses to `rows`.
  double serve(std::uint64_t addr, std::uint64_t bytes, double request_ns, double grant_ns, std::uint64_t& bursts,
               RowCounts& rows);
  double burst_ns() const { return burst_ns_; }
  std::uint64_t burst_bytes() const { return burst_bytes_; }
  // Forget all state (free times, open rows).
  void reset();

 private:
  double serve_banked(std::uint64_t first, std::uint64_t end, double request_ns, double grant_ns, RowCounts& rows);

  bool banked_;
  DdrAddressMap map_;
  std::uint64_t burst_bytes_, interleave_;
  double burst_ns_, row_miss_ns_;
  std::vector<double> free_ns_;             // per channel: bus free
  struct Bank {
    std::int64_t open_row = -1;
    double last_use_ns = 0;  // end of its last burst
  };
  std::vector<Bank> banks_;                 // channel * banks + bank
};

}  // namespace npu::cost
