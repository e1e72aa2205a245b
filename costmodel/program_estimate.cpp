#include "costmodel/program_estimate.h"

#include <algorithm>
#include <array>
#include <deque>

#include "costmodel/dma_cost.h"
#include "costmodel/footprint.h"
#include "costmodel/mac_cost.h"
#include "costmodel/mac_shapes.h"
#include "costmodel/scratchpad_banks.h"
#include "costmodel/vector_cost.h"

namespace npu::cost {
namespace {

using isa::Field;
using isa::Opcode;
using isa::Unit;

// Busy spans of a resource on the estimated timeline. Instructions are estimated in program
// order, which is not always time order (a store waiting for its tile's epilogue starts after
// the next tile's loads), so a later request may still use an earlier gap.
class Timeline {
 public:
  // The DDR: `duration` of data starting at `ready`, split over gaps if need be; returns its end.
  double fill(double ready, double duration) { return place(ready, duration, true); }
  // A DMA channel: one transfer at a time, never split; returns its start.
  double fit(double ready, double duration) { return place(ready, duration, false) - duration; }
  // When `duration` of data from `ready` is through if the bus alternates chunks between it and
  // the work already booked, which `others` transfers share (round-robin arbitration): in a busy
  // span it gets 1/(others + 1) of the bus, so it waits for a share of the booked work instead
  // of all of it. (The booked transfers' ends are not revisited; its data is still booked,
  // work-conserving, by fill.)
  double shared_end(double ready, double duration, int others) const {
    const double n = std::max(1, others);
    double t = ready, left = duration;
    for (const auto& span : busy_) {
      if (span.second <= t) continue;
      if (span.first > t) {
        if (span.first - t >= left) return t + left;
        left -= span.first - t;
        t = span.first;
      }
      const double booked = span.second - t;
      if (booked >= left * n) return t + left * (n + 1);
      t += booked * (n + 1) / n;
      left -= booked / n;
    }
    return t + left;
  }
  // Whether a booked span covers `t`.
  bool busy_at(double t) const {
    for (const auto& span : busy_)
      if (span.first <= t && t < span.second) return true;
    return false;
  }
  // Nothing will be requested before `t` any more.
  void advance(double t) {
    horizon_ = std::max(horizon_, t);
    while (!busy_.empty() && busy_.front().second <= horizon_) busy_.pop_front();
  }

 private:
  double place(double ready, double duration, bool split) {
    double t = ready, left = duration;
    std::size_t i = 0;
    while (i < busy_.size() && busy_[i].second <= t) ++i;
    std::vector<std::pair<double, double>> added;
    for (;;) {
      if (i < busy_.size() && busy_[i].first <= t) {
        t = std::max(t, busy_[i].second);
        ++i;
        continue;
      }
      if (i == busy_.size() || busy_[i].first - t >= left) {
        added.emplace_back(t, t + left);
        t += left;
        break;
      }
      if (split) {  // fill the gap up to the next busy span
        added.emplace_back(t, busy_[i].first);
        left -= busy_[i].first - t;
      }
      t = busy_[i].second;
      ++i;
    }
    for (const auto& a : added)
      if (a.second > a.first) insert(a);
    return t;
  }
  // Adds a busy span, merged with the spans it touches. By index: erasing from the middle of a
  // deque invalidates every iterator into it.
  void insert(std::pair<double, double> a) {
    std::size_t i = static_cast<std::size_t>(std::lower_bound(busy_.begin(), busy_.end(), a) - busy_.begin());
    busy_.insert(busy_.begin() + static_cast<std::ptrdiff_t>(i), a);
    if (i > 0 && busy_[i - 1].second >= busy_[i].first) {
      busy_[i - 1].second = std::max(busy_[i - 1].second, busy_[i].second);
      busy_.erase(busy_.begin() + static_cast<std::ptrdiff_t>(i));
      --i;
    }
    while (i + 1 < busy_.size() && busy_[i + 1].first <= busy_[i].second) {
      busy_[i].second = std::max(busy_[i].second, busy_[i + 1].second);
      busy_.erase(busy_.begin() + static_cast<std::ptrdiff_t>(i + 1));
    }
  }
  std::deque<std::pair<double, double>> busy_;
  double horizon_ = 0;
};

// The instruction's scratchpad ranges as the simulator registers them with the banks: each
// range's bytes accessed (traffic / span) times, the MAC array's traffic from its dataflow.
// Ranges are clipped to the scratchpad (a trial estimate may place values above it).
ScratchpadBanks::Access bank_access(const isa::Instruction& in, const MacArrayCost& mac, std::uint64_t moved_bytes,
                                    std::uint64_t capacity) {
  ScratchpadBanks::Access access;
  const Footprint f = footprint(in);
  if (!f.known) return access;
  std::uint64_t span = 0;
  for (const auto* v : {&f.sram_read, &f.sram_write})
    for (const ByteRange& r : *v) span += r.end - r.begin;
  if (span == 0) return access;
  double traffic = static_cast<double>(moved_bytes ? moved_bytes : span);
  if (in.opcode == Opcode::Gemm) {
    const GemmShape s = GemmShape::of(in);
    const SramTraffic t = mac.gemm_traffic(s.m, s.n, s.k, s.fp16, s.accumulate, s.swap);
    traffic = static_cast<double>(t.read + t.written);
  } else if (in.opcode == Opcode::Conv) {
    const ConvShape s = ConvShape::of(in);
    const SramTraffic t = mac.conv_traffic(s.groups, s.gemm_m(), s.gemm_n(), s.gemm_k(), s.fp16, s.accumulate, s.mapping);
    traffic = static_cast<double>(t.read + t.written);
  }
  const double times = traffic / static_cast<double>(span);
  for (const auto* v : {&f.sram_read, &f.sram_write})
    for (const ByteRange& r : *v)
      if (r.begin < capacity) access.add(r.begin, std::min(r.end, capacity) - r.begin, times);
  return access;
}

}  // namespace

ProgramEstimate estimate_program(const std::vector<isa::Instruction>& code, std::size_t first, std::size_t end,
                                 const HardwareConfig& hw) {
  ProgramEstimate out;
  out.instructions.resize(end > first ? end - first : 0);
  const MacArrayCost mac(hw);
  const DmaEstimate dma(hw);
  const double dispatch = hw.controller.dispatch_cycles;
  const std::size_t depth = static_cast<std::size_t>(std::max(1, hw.controller.queue_depth));
  const std::size_t channels = static_cast<std::size_t>(std::max(1, hw.dma.channels));
  const double bytes_per_cycle = dma.ideal() ? 0.0 : dma.bytes_per_cycle();
  const double latency = dma.latency_cycles();
  const bool shared_bus = hw.dma.arbitration == DmaArbitration::RoundRobin;

  double vt = 0;           // the controller's dispatch clock
  double all_done = 0;     // latest end of anything dispatched (barrier/halt wait for it)
  std::array<double, isa::kQueueCount> unit_free{};   // when a unit can take its next instruction
  std::array<double, isa::kQueueCount> retired{};     // DMA units: when their latest transfer retired
  std::array<std::vector<double>, isa::kQueueCount> taken;  // take time per instruction, per unit
  std::vector<Timeline> channel(channels);
  // dma.channel_queue pipelined: per channel, when the last transfer made its first request (the
  // next one's setup may start) and when its data was through (the next one may request).
  const bool pipelined = hw.dma.channel_queue == DmaChannelQueue::Pipelined;
  std::vector<double> requested(channels, 0.0), granted(channels, 0.0);
  // Tokens in flight per (producer, consumer): the times they were given, oldest first.
  std::array<std::array<std::deque<double>, isa::kQueueCount>, isa::kQueueCount> tokens;
  Timeline ddr;
  ScratchpadBanks banks(hw.sram);  // the simulator's bank-conflict rule, on the estimated timeline

  for (std::size_t i = first; i < end; ++i) {
    const isa::Instruction& in = code[i];
    InstructionEstimate& e = out.instructions[i - first];
    vt += dispatch;
    const Unit unit = in.unit();
    if (unit == Unit::Control) {
      vt = std::max(vt, all_done);
      e.start_cycle = e.end_cycle = vt;
      out.cycles = std::max(out.cycles, vt);
      if (in.opcode == Opcode::Halt) return out;
      continue;
    }
    const int u = static_cast<int>(unit);
    auto& q = taken[u];
    // The queue holds `depth` dispatched, untaken instructions: wait for the one `depth` back.
    if (q.size() >= depth) vt = std::max(vt, q[q.size() - depth]);
    const double take = std::max(vt, unit_free[u]);
    q.push_back(take);
    double start = take;
    for (int src = 0; src < isa::kQueueCount; ++src) {
      if (!(in.pop & (1u << src))) continue;
      auto& fifo = tokens[src][u];
      if (fifo.empty()) continue;
      start = std::max(start, fifo.front());
      fifo.pop_front();
    }
    double finish;
    if (unit == Unit::Load || unit == Unit::Store) {
      const std::size_t ch = static_cast<std::size_t>(in.get(Field::channel)) % channels;
      const std::uint64_t len0 = in.get(Field::len0), c1 = in.get(Field::count1), c2 = in.get(Field::count2),
                          c3 = in.get(Field::count3);
      double isolated = 0, bus = 0;
      dma.box(len0, c1, c2 * c3, in.get(Field::ddr_stride1), in.get(Field::ddr_stride2), in.get(Field::ddr_addr),
              isolated, bus);
      // base: where setup would have begun for the request (serial: the start; pipelined: the
      // setup may end before the one before's data is through, and the request waits for it).
      double base;
      if (pipelined) {
        start = std::max(start, requested[ch]);
        base = std::max(start, granted[ch] - hw.dma.setup_cycles);
      } else {
        base = start = channel[ch].fit(start, isolated);
      }
      const std::uint64_t moved = transfer_bytes(in);
      const std::uint64_t port = sram_port_cycles(moved, hw.sram);
      const double stall = static_cast<double>(
          banks.begin(ScratchpadBanks::kDma, static_cast<std::uint64_t>(base + hw.dma.setup_cycles), port,
                      bank_access(in, mac, moved, hw.sram.capacity_bytes)));
      // The scratchpad side runs beside the DDR side (dma_transfer_cycles: setup + the longer
      // of the two), so a bank stall lengthens only the scratchpad side.
      finish = base + std::max(isolated, hw.dma.setup_cycles + static_cast<double>(port) + stall);
      double through = base + hw.dma.setup_cycles + static_cast<double>(port) + stall;
      if (bytes_per_cycle > 0) {
        const double data = bus / bytes_per_cycle;
        const double ready = base + hw.dma.setup_cycles;
        const double extra = std::max(0.0, isolated - hw.dma.setup_cycles - latency - data);
        int others = 0;
        for (std::size_t c = 0; c < channels; ++c)
          if (c != ch && channel[c].busy_at(ready)) ++others;
        const double shared = ddr.shared_end(ready, data, others);
        const double bus_end = shared_bus ? std::min(shared, ddr.fill(ready, data)) : ddr.fill(ready, data);
        finish = std::max(finish, bus_end + latency + extra);
        through = std::max(through, bus_end + extra);
      }
      if (pipelined) {
        requested[ch] = base + hw.dma.setup_cycles;
        granted[ch] = through;
        channel[ch].fill(requested[ch], std::max(0.0, through - requested[ch]));
      } else if (finish > start + isolated) {
        channel[ch].fit(start + isolated, finish - start - isolated);
      }
      unit_free[u] = start;  // the unit hands the transfer to its channel and moves on
    } else {
      const double cycles = unit == Unit::Compute ? static_cast<double>(mac.instruction_cycles(in))
                                                  : static_cast<double>(vector_cycles(in, hw.vector));
      const auto agent = unit == Unit::Compute ? ScratchpadBanks::kCompute : ScratchpadBanks::kVector;
      finish = start + cycles +
               static_cast<double>(banks.begin(agent, static_cast<std::uint64_t>(start), static_cast<std::uint64_t>(cycles),
                                               bank_access(in, mac, 0, hw.sram.capacity_bytes)));
      unit_free[u] = finish;
    }
    e.start_cycle = start;
    e.end_cycle = finish;
    all_done = std::max(all_done, finish);
    out.cycles = std::max(out.cycles, finish);
    // A transfer retires (gives its tokens) once every earlier transfer of its unit has too.
    double retire = finish;
    if (unit == Unit::Load || unit == Unit::Store) retire = retired[u] = std::max(retired[u], finish);
    for (int dst = 0; dst < isa::kQueueCount; ++dst)
      if (in.push & (1u << dst)) tokens[u][dst].push_back(retire);
    ddr.advance(vt);
    for (auto& c : channel) c.advance(vt);
  }
  out.cycles = std::max(out.cycles, vt + dispatch);  // the implicit halt
  return out;
}

}  // namespace npu::cost
