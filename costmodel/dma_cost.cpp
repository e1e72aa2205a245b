#include "costmodel/dma_cost.h"

#include "costmodel/dma_box.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace npu::cost {

std::uint64_t run_bursts(std::uint64_t addr, std::uint64_t len, std::uint64_t burst_bytes) {
  return (addr % burst_bytes + len + burst_bytes - 1) / burst_bytes;
}

double channel_burst_ns(const DdrConfig& ddr) {
  // GB/s with 1 GB = 1e9 bytes is bytes per ns.
  const double channel_bytes_per_ns =
      ddr.bandwidth_gbps * (1.0 - ddr.other_agents_share) / static_cast<double>(std::max(1, ddr.channels));
  return static_cast<double>(ddr.burst_bytes) / channel_bytes_per_ns;
}

double ddr_bytes_per_cycle(const HardwareConfig& hw) {
  return std::max(1e-9, hw.ddr.bandwidth_gbps * (1.0 - hw.ddr.other_agents_share) / (hw.clock.frequency_mhz / 1000.0));
}

std::uint64_t sram_port_cycles(std::uint64_t bytes, const SramConfig& sram) {
  const auto port = static_cast<std::uint64_t>(std::max(1, sram.port_bytes_per_cycle));
  return (bytes + port - 1) / port;
}

std::uint64_t bounce_cycles(std::uint64_t bytes, const DmaConfig& dma) {
  const auto rate = static_cast<std::uint64_t>(std::max(1, dma.bounce_bytes_per_cycle));
  return static_cast<std::uint64_t>(dma.bounce_setup_cycles) + (bytes + rate - 1) / rate;
}

bool needs_bounce(std::uint64_t ddr_addr, std::uint64_t count1, std::uint64_t stride1, std::uint64_t count2,
                  std::uint64_t stride2, std::uint64_t count3, std::uint64_t stride3, const DmaConfig& dma) {
  const auto a = static_cast<std::uint64_t>(std::max(1, dma.min_alignment_bytes));
  return ddr_addr % a != 0 || (count1 > 1 && stride1 % a != 0) || (count2 > 1 && stride2 % a != 0) ||
         (count3 > 1 && stride3 % a != 0);
}

std::uint64_t dma_transfer_cycles(std::uint64_t ddr_cycles, std::uint64_t sram_cycles, std::uint64_t bounce,
                                  const DmaConfig& dma) {
  return static_cast<std::uint64_t>(dma.setup_cycles) + std::max(ddr_cycles, sram_cycles) + bounce;
}

DmaEstimate::DmaEstimate(const HardwareConfig& h) : hw_(h) {
  const double ghz = h.clock.frequency_mhz / 1000.0;
  ideal_ = h.ddr.model == "ideal";
  bw_bytes_per_cycle_ = ddr_bytes_per_cycle(h);
  latency_cycles_ = ideal_ ? 0.0 : h.ddr.latency_ns * ghz;
}

// The DDR side of one transfer, walked as the simple/banked models do (sim/ddr_simple.cpp):
// bursts per interleave block go to channel (addr / interleave) % channels, a banked DDR adds
// a row miss whenever a run opens another row in a bank.
DmaEstimate::Walk DmaEstimate::walk(std::uint64_t run, std::uint64_t runs, std::uint64_t reps, std::uint64_t stride,
                                    std::uint64_t rep_stride, std::uint64_t base) const {
  const std::uint64_t bb = static_cast<std::uint64_t>(std::max(1, hw_.ddr.burst_bytes));
  const std::uint64_t il = static_cast<std::uint64_t>(std::max(1, hw_.ddr.interleave_bytes));
  const std::uint64_t channels = static_cast<std::uint64_t>(std::max(1, hw_.ddr.channels));
  const std::uint64_t row_bytes = static_cast<std::uint64_t>(std::max(1, hw_.ddr.row_bytes));
  const std::uint64_t banks = static_cast<std::uint64_t>(std::max(1, hw_.ddr.banks));
  const bool banked = hw_.ddr.model == "banked";
  std::array<std::uint64_t, 6> key = {run, runs, reps, stride, rep_stride, base % bb};
  const double burst_ns = channel_burst_ns(hw_.ddr);
  if ((runs == 1 || stride == run) && (reps == 1 || rep_stride == run * runs)) {
    // Contiguous: the bursts spread evenly over the channels, each row opened once per channel
    // that holds part of it.
    std::uint64_t total = run * runs * reps, first = base / bb * bb, end = (base + total + bb - 1) / bb * bb;
    Walk w;
    w.bus = static_cast<double>(end - first);
    double per_channel = std::ceil(static_cast<double>((end - first) / bb) / static_cast<double>(channels));
    double rows_touched = static_cast<double>((end - 1) / row_bytes - first / row_bytes + 1);
    double channels_per_row = static_cast<double>(std::min<std::uint64_t>(channels, std::max<std::uint64_t>(1, row_bytes / il)));
    w.busiest_ns = per_channel * burst_ns +
                   (banked ? std::ceil(rows_touched * channels_per_row / static_cast<double>(channels)) * hw_.ddr.row_miss_ns : 0.0);
    return w;
  }
  // The walk samples the first kSample segments; more reps than that reaches do not change it.
  const std::uint64_t sampled_reps = std::min(reps, kSample / std::max<std::uint64_t>(runs, 1) + 1);
  key[2] = sampled_reps;
  double scale_reps = static_cast<double>(reps) / static_cast<double>(sampled_reps);
  auto it = memo_.find(key);
  if (it != memo_.end()) return {it->second.busiest_ns * scale_reps, it->second.bus * scale_reps};
  reps = sampled_reps;
  base %= bb;  // chunks at other channel offsets are taken to spread over the DDR channels alike
  std::vector<double> ns(channels, 0.0);
  std::vector<std::int64_t> open(channels * banks, -1);
  double bursts = 0;
  std::uint64_t walked = 0, segments = 0;
  for (std::uint64_t r = 0; r < reps && segments < kSample; ++r)
    for (std::uint64_t i = 0; i < runs && segments < kSample; ++i, ++walked) {
      std::uint64_t addr = base + r * rep_stride + i * stride;
      std::uint64_t x = addr / bb * bb, end = (addr + run + bb - 1) / bb * bb;
      while (x < end) {
        std::uint64_t block_end = (x / il + 1) * il;
        std::uint64_t seg_end = std::min(end, (block_end + bb - 1) / bb * bb);
        std::uint64_t ch = (x / il) % channels;
        double n = static_cast<double>((seg_end - x) / bb);
        if (banked)
          for (std::uint64_t row = x / row_bytes; row <= (seg_end - 1) / row_bytes; ++row) {
            auto& o = open[ch * banks + row % banks];
            if (o != static_cast<std::int64_t>(row)) {
              o = static_cast<std::int64_t>(row);
              ns[ch] += hw_.ddr.row_miss_ns;
            }
          }
        ns[ch] += n * burst_ns;
        bursts += n;
        x = seg_end;
        ++segments;
      }
    }
  double scale = static_cast<double>(runs * reps) / static_cast<double>(std::max<std::uint64_t>(walked, 1));
  Walk w;
  w.busiest_ns = *std::max_element(ns.begin(), ns.end()) * scale;
  w.bus = bursts * scale * static_cast<double>(bb);
  memo_.emplace(key, w);
  return {w.busiest_ns * scale_reps, w.bus * scale_reps};
}

void DmaEstimate::box(std::uint64_t run, std::uint64_t runs, std::uint64_t reps, std::uint64_t stride,
                      std::uint64_t rep_stride, std::uint64_t off, double& cycles, double& bus) const {
  // The instructions codegen emits for this box (split_dma_box: merged runs, split counts).
  const std::vector<DmaBox> split = split_dma_box({off, 0, run, runs, stride, run, reps, rep_stride, run * runs});
  if (split.empty()) return;
  if (split.front().run_bytes != run) {  // contiguous runs merged into one
    run = split.front().run_bytes;
    stride = run;
    runs = 1;
  }
  double bytes = static_cast<double>(run * runs * reps);
  const auto pieces = static_cast<std::int64_t>(split.size());
  bool bounce = needs_bounce(off, runs, stride, reps, rep_stride, 1, 0, hw_.dma);
  double ddr = 0, b = bytes;
  if (!ideal_) {
    Walk w = walk(run, runs, reps, stride, rep_stride, off);
    ddr = static_cast<double>(pieces) * latency_cycles_ + w.busiest_ns * hw_.clock.frequency_mhz / 1000.0;
    b = w.bus;
  }
  double sram = bytes / std::max(1, hw_.sram.port_bytes_per_cycle);
  cycles += static_cast<double>(pieces) * hw_.dma.setup_cycles + std::max(ddr, sram);
  if (bounce)
    cycles += static_cast<double>(pieces) * hw_.dma.bounce_setup_cycles + bytes / std::max(1, hw_.dma.bounce_bytes_per_cycle);
  bus += b;
}

void DmaEstimate::linear(std::uint64_t bytes, double& cycles, double& bus) const {
  const std::uint64_t kRun = kLinearRunBytes;
  if (bytes == 0) return;
  std::uint64_t run = std::min(bytes, kRun), runs = bytes / run;
  box(run, runs, 1, run, 0, 0, cycles, bus);
  if (runs * run < bytes) box(bytes - runs * run, 1, 1, 0, 0, 0, cycles, bus);
}

void DmaEstimate::rows(std::int64_t rows, std::int64_t w, std::int64_t c_total, std::int64_t c0, std::int64_t count,
                       std::int64_t es, double& cycles, double& bus) const {
  std::uint64_t row_bytes = static_cast<std::uint64_t>(w * c_total * es);
  if (count == c_total && row_bytes <= dma_run_bytes_max())
    box(row_bytes, static_cast<std::uint64_t>(rows), 1, row_bytes, 0, 0, cycles, bus);
  else
    box(static_cast<std::uint64_t>(count * es), static_cast<std::uint64_t>(w), static_cast<std::uint64_t>(rows),
        static_cast<std::uint64_t>(c_total * es), row_bytes, static_cast<std::uint64_t>(c0 * es), cycles, bus);
}

}  // namespace npu::cost
