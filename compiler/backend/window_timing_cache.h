// The layer interleave's trial timings (layer_interleave.cpp), and where its conflict scan finds
// each moved instruction's last conflict, kept by the windows' code with DDR addresses made
// relative. ViT-B/16's 12 encoder blocks ask for the same windows (the same
// instructions, scratchpad addresses and orders) twelve times, but each block's weights, and
// some of its activations, lie elsewhere in DDR: kept by their absolute addresses, no window
// would ever repeat.
//
// What a trial timing reads of a DDR address (costmodel::plan_program with PlanOptions::trial,
// then the timing core with MachineOptions::streaming_ddr, which walks no DDR address):
//   - the bursts a transfer's runs touch: the address modulo ddr.burst_bytes (bus_bytes);
//   - whether a transfer goes through the bounce buffer: modulo dma.min_alignment_bytes;
//   - whether a span starts in the shared SRAM window (at or above isa::kSharedSramBase);
//   - which instructions' DDR bytes overlap: the window's dependency tokens (window_code).
// So the DDR spans of the window's instructions are grouped into clusters (spans that overlap
// or touch, merged), and each address is kept as (its cluster's number by first appearance,
// its offset from the cluster's lowest address rounded down to a multiple of
// lcm(ddr.burst_bytes, dma.min_alignment_bytes)). Two windows with the same key then differ by
// one such multiple per cluster: the same residues, the same overlaps inside a cluster and none
// across clusters (clusters are disjoint in both), so the same cycles. Addresses in the shared
// SRAM window are kept as they are. Everything else of an instruction is kept bit for bit.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "costmodel/footprint.h"
#include "hwconfig/hardware_config.h"
#include "isa/instruction.h"

namespace npu::compiler {

class WindowTimingCache {
 public:
  explicit WindowTimingCache(const HardwareConfig& config);

  // The windows: code[k] with footprints[k] (its DDR spans), and each window's code as
  // positions into it. `time` gives each window's cycles (in the order of `windows`); it runs
  // only when no windows equal to these up to DDR placement were timed before.
  // With `check`, it runs anyway and a different answer throws std::logic_error (tests).
  std::vector<double> find_or_time(const std::vector<const isa::Instruction*>& code,
                                   const std::vector<const cost::Footprint*>& footprints,
                                   const std::vector<std::vector<std::uint32_t>>& windows,
                                   const std::function<std::vector<double>()>& time, bool check = false);

  // The interleave's conflict scan over code (B's instructions from `split` on): for each of
  // B's instructions, 1 + the position of the last earlier one it conflicts with, 0 if none.
  // Conflicts are overlaps of footprints, which the key keeps as they are (DDR spans overlap
  // only inside a cluster, at the same offsets), so code with the same key has the same answer.
  // With `check`, `scan` runs anyway and a different answer throws std::logic_error.
  std::vector<std::uint32_t> find_or_scan(const std::vector<const isa::Instruction*>& code,
                                          const std::vector<const cost::Footprint*>& footprints, std::uint32_t split,
                                          const std::function<std::vector<std::uint32_t>()>& scan, bool check = false);

  std::size_t hits() const { return hits_; }
  std::size_t misses() const { return misses_; }

  // The key of those windows (exposed for tests).
  std::string key(const std::vector<const isa::Instruction*>& code, const std::vector<const cost::Footprint*>& footprints,
                  const std::vector<std::vector<std::uint32_t>>& windows) const;

 private:
  std::uint64_t alignment_;  // lcm(ddr.burst_bytes, dma.min_alignment_bytes)
  std::unordered_map<std::string, std::vector<double>> cycles_;
  std::unordered_map<std::string, std::vector<std::uint32_t>> conflicts_;
  std::size_t hits_ = 0, misses_ = 0;
};

}  // namespace npu::compiler
