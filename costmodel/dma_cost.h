// DMA and DDR transfer time: the per-burst and per-transfer rules the simulator's DMA engine
// and DDR models apply event by event (sim/README.md "DMA transfer", "DDR simple/banked"),
// and DmaEstimate, the compiler's closed-form estimate of a whole transfer built from the
// same rules.
#pragma once
#include <array>
#include <cstdint>
#include <map>

#include "hwconfig/hardware_config.h"

namespace npu::cost {

// Codegen moves contiguous blocks as runs of this many bytes plus a shorter tail.
constexpr std::uint64_t kLinearRunBytes = 32768;

// Whole bursts a run of `len` bytes at `addr` moves: ceil((addr % burst + len) / burst).
std::uint64_t run_bursts(std::uint64_t addr, std::uint64_t len, std::uint64_t burst_bytes);
// One burst on one DDR channel, in ns: burst / (bandwidth * (1 - other_agents_share) / channels).
double channel_burst_ns(const DdrConfig& ddr);
// DDR bytes per NPU cycle left for the NPU (bandwidth * (1 - other_agents_share) / f).
double ddr_bytes_per_cycle(const HardwareConfig& hw);
// Cycles the scratchpad port needs to take or give `bytes`: ceil(bytes / port_bytes_per_cycle).
std::uint64_t sram_port_cycles(std::uint64_t bytes, const SramConfig& sram);
// The bounce copy of a transfer whose DDR side is below the DMA's alignment:
// bounce_setup_cycles + ceil(bytes / bounce_bytes_per_cycle).
std::uint64_t bounce_cycles(std::uint64_t bytes, const DmaConfig& dma);
// Whether any run of a 4-D transfer starts at a DDR address that is not a multiple of
// dma.min_alignment_bytes (counts of 1 ignore their stride).
bool needs_bounce(std::uint64_t ddr_addr, std::uint64_t count1, std::uint64_t stride1, std::uint64_t count2,
                  std::uint64_t stride2, std::uint64_t count3, std::uint64_t stride3, const DmaConfig& dma);
// A DMA transfer's cycles once its channel starts it: setup + max(DDR, SRAM port) + bounce.
std::uint64_t dma_transfer_cycles(std::uint64_t ddr_cycles, std::uint64_t sram_cycles, std::uint64_t bounce,
                                  const DmaConfig& dma);

// The compiler's estimate of DMA boxes as codegen emits them, against the rules above: per
// instruction setup + max(DDR latency + busiest channel's burst time (banked: with its row
// misses, ddr_timing.h; dram: the banked rules with the standard's geometry and refresh
// share), SRAM port) + bounce, for a transfer alone on the bus. Long boxes are walked for a
// sample and extrapolated; results are memoised (tiles of one layer repeat a few boxes).
class DmaEstimate {
 public:
  explicit DmaEstimate(const HardwareConfig& hw);
  // A box of reps x runs x run bytes starting at DDR offset `off` (tensors and data blobs are
  // 64-byte aligned; the offset is the channel offset within a pixel), strides in bytes. Adds
  // its cycles and bus bytes.
  void box(std::uint64_t run, std::uint64_t runs, std::uint64_t reps, std::uint64_t stride, std::uint64_t rep_stride,
           std::uint64_t off, double& cycles, double& bus) const;
  // `bytes` contiguous bytes as codegen's linear loads split them (runs of 32 KiB + a tail).
  void linear(std::uint64_t bytes, double& cycles, double& bus) const;
  // rows x w pixels of an NHWC tensor with c_total channels, channels [c0, c0 + count).
  void rows(std::int64_t rows, std::int64_t w, std::int64_t c_total, std::int64_t c0, std::int64_t count,
            std::int64_t elem_bytes, double& cycles, double& bus) const;
  bool ideal() const { return ideal_; }
  double bytes_per_cycle() const { return bw_bytes_per_cycle_; }
  double latency_cycles() const { return latency_cycles_; }

 private:
  struct Walk {
    double busiest_ns = 0, bus = 0;
  };
  // What walking the first part of a box gave: bursts, bytes walked and when the busiest
  // channel finished, after all and after the first half.
  struct Sample {
    std::uint64_t bursts = 0, moved = 0, moved_half = 0;
    double last_ns = 0, half_ns = 0;
  };
  Walk walk(std::uint64_t run, std::uint64_t runs, std::uint64_t reps, std::uint64_t stride, std::uint64_t rep_stride,
            std::uint64_t base) const;
  int dram_groups() const;
  static constexpr std::uint64_t kSample = 64;             // segments walked per strided box
  static constexpr std::uint64_t kSampleBytes = 16384;     // half the bytes walked per contiguous box

  const HardwareConfig& hw_;
  DdrConfig ddr_;  // the DDR as walked (walked_ddr in dma_cost.cpp)
  double bw_bytes_per_cycle_, latency_cycles_;
  bool ideal_, banked_;
  mutable std::map<std::array<std::uint64_t, 6>, Sample> memo_;
};

}  // namespace npu::cost
