#include "costmodel/dma_cost.h"

#include "costmodel/dma_box.h"

#include <algorithm>

#include "costmodel/ddr_timing.h"
#include "hwconfig/dram_standards.h"
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

namespace {

// The DDR as the estimate walks it: the simple and banked models' own rules; the dram model
// approximated by the banked rules with its standard's geometry, a row miss of tRP + tRCD and
// the bandwidth refresh leaves (1 - tRFC / tREFI of the peak).
DdrConfig walked_ddr(const HardwareConfig& h) {
  DdrConfig d = h.ddr;
  if (d.model != DdrModel::Dram) return d;
  const DramStandard& s = dram_standard(h.dram.standard);
  d.banks = s.banks;
  d.row_bytes = s.row_bytes;
  d.burst_bytes = s.burst_bytes();
  d.row_miss_ns = s.tRP + s.tRCD;
  d.bandwidth_gbps = s.channel_gbps() * d.channels * (1.0 - s.tRFC / s.tREFI);
  return d;
}

}  // namespace

DmaEstimate::DmaEstimate(const HardwareConfig& h) : hw_(h), ddr_(walked_ddr(h)) {
  const double ghz = h.clock.frequency_mhz / 1000.0;
  // Every model says how the estimate walks it: a model added without a case here is a -Wswitch
  // warning, not an estimate that silently walks it as `simple`.
  ideal_ = banked_ = false;
  double latency_ns = h.ddr.latency_ns;
  switch (h.ddr.model) {
    case DdrModel::Ideal: ideal_ = true; break;
    case DdrModel::Simple: break;
    case DdrModel::Banked: banked_ = true; break;
    case DdrModel::Dram: {
      banked_ = true;
      const DramStandard& s = dram_standard(h.dram.standard);
      latency_ns += s.tCL + s.tBURST();
      break;
    }
  }
  bw_bytes_per_cycle_ = ddr_bytes_per_cycle(h);
  latency_cycles_ = ideal_ ? 0.0 : latency_ns * ghz;
}

// The DDR side of one transfer, walked with the models' own burst rules (ddr_timing.h), every
// run requested at time 0: the busiest channel's time is when the last burst leaves the bus.
// Long walks are sampled: contiguous boxes up to 2 * kSampleBytes, strided ones for kSample
// segments; the rest is extrapolated at the rate of the second half of the sample.
DmaEstimate::Walk DmaEstimate::walk(std::uint64_t run, std::uint64_t runs, std::uint64_t reps, std::uint64_t stride,
                                    std::uint64_t rep_stride, std::uint64_t base) const {
  const std::uint64_t bb = static_cast<std::uint64_t>(std::max(1, ddr_.burst_bytes));
  const std::uint64_t channels = static_cast<std::uint64_t>(std::max(1, ddr_.channels));
  base %= bb;  // boxes at other offsets are taken to spread over the DDR channels alike
  if (!banked_ && (runs == 1 || stride == run) && (reps == 1 || rep_stride == run * runs)) {
    // simple, contiguous: the bursts spread evenly over the channels.
    const std::uint64_t total = run * runs * reps, end = (base + total + bb - 1) / bb * bb;
    Walk w;
    w.bus = static_cast<double>(end);
    w.busiest_ns = std::ceil(static_cast<double>(end / bb) / static_cast<double>(channels)) * channel_burst_ns(ddr_);
    return w;
  }
  const bool contiguous = (runs == 1 || stride == run) && (reps == 1 || rep_stride == run * runs);
  const std::uint64_t total = run * runs * reps;
  // The sample depends on the box only up to what it walks: share it between boxes that
  // differ beyond that.
  const std::uint64_t sampled_reps = contiguous ? 1 : std::min(reps, kSample / std::max<std::uint64_t>(runs, 1) + 1);
  const std::array<std::uint64_t, 6> key = {contiguous ? std::min(total, 2 * kSampleBytes) : run,
                                            contiguous ? 0 : runs, sampled_reps, contiguous ? 0 : stride,
                                            contiguous ? 0 : rep_stride, base};
  auto it = memo_.find(key);
  if (it == memo_.end()) {
    DdrBurstTimer timer(ddr_, banked_,
                        hw_.ddr.model == DdrModel::Dram
                            ? DdrAddressMap(ddr_, ddr_.banks, dram_groups(), ddr_.row_bytes, ddr_.burst_bytes)
                            : DdrAddressMap(ddr_));
    Sample sm;
    RowCounts rows;
    if (contiguous) {
      const std::uint64_t first = std::min(key[0], kSampleBytes);
      sm.half_ns = sm.last_ns = timer.serve(base, first, 0, 0, sm.bursts, rows);
      sm.moved_half = sm.moved = first;
      if (key[0] > first)
        sm.last_ns = std::max(sm.last_ns, timer.serve(base + first, key[0] - first, 0, 0, sm.bursts, rows));
      sm.moved = key[0];
    } else {
      std::uint64_t segments = 0;
      for (std::uint64_t r = 0; r < sampled_reps && segments < kSample; ++r)
        for (std::uint64_t i = 0; i < runs && segments < kSample; ++i) {
          sm.last_ns = std::max(sm.last_ns, timer.serve(base + r * rep_stride + i * stride, run, 0, 0, sm.bursts, rows));
          sm.moved += run;
          if (++segments == kSample / 2) {
            sm.half_ns = sm.last_ns;
            sm.moved_half = sm.moved;
          }
        }
    }
    it = memo_.emplace(key, sm).first;
  }
  const Sample& sm = it->second;
  Walk w;
  w.bus = static_cast<double>(sm.bursts * bb) * static_cast<double>(total) / static_cast<double>(sm.moved);
  w.busiest_ns = sm.last_ns;
  if (sm.moved < total) {
    // Steady state: the rate of the second half of the sample.
    const double rate = sm.moved > sm.moved_half && sm.last_ns > sm.half_ns
                            ? (sm.last_ns - sm.half_ns) / static_cast<double>(sm.moved - sm.moved_half)
                            : sm.last_ns / static_cast<double>(sm.moved);
    w.busiest_ns = sm.last_ns + rate * static_cast<double>(total - sm.moved);
  }
  return w;
}

int DmaEstimate::dram_groups() const {
  return dram_standard(hw_.dram.standard).bank_groups;
}

void DmaEstimate::box(std::uint64_t run, std::uint64_t runs, std::uint64_t reps, std::uint64_t stride,
                      std::uint64_t rep_stride, std::uint64_t off, double& cycles, double& bus) const {
  // The instructions codegen emits for this box (split_dma_box: merged runs, split counts).
  const std::vector<DmaBox> split = split_dma_box({off, 0, run, runs, stride, run, reps, rep_stride, run * runs},
                                                  static_cast<std::uint64_t>(hw_.sram.alignment_bytes));
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
    const Walk w = walk(run, runs, reps, stride, rep_stride, off);
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
