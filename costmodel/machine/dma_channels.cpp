#include "costmodel/machine/dma_channels.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "costmodel/dma_cost.h"
#include "costmodel/machine/machine.h"
#include "costmodel/machine/multicasts.h"
#include "costmodel/machine/run_cursor.h"

namespace npu::cost {

// The DDR side of one transfer: each granted chunk moves its data and is timed by the model.
class DmaChannels::DdrSide : public ChunkStream {
 public:
  DdrSide(DmaChannels& owner, const DmaTransfer& t, std::uint64_t request_cycles, DdrTimingModel& timing)
      : owner_(owner),
        t_(t),
        timing_(timing),
        cursor_(t, static_cast<std::uint64_t>(owner.config_.dma.arbitration_bytes)),
        cycle_ns_(owner.config_.cycle_ns()),
        request_ns_(static_cast<double>(request_cycles) * cycle_ns_) {}
  // A fork's copy (DmaChannels' copy constructor): machines with a shared SRAM never fork, so
  // every copied side is on the DDR.
  DdrSide(DmaChannels& owner, const DdrSide& other, const DmaTransfer& t)
      : outcome(other.outcome),
        owner_(owner),
        t_(t),
        timing_(owner.ddr_),
        cursor_(other.cursor_, t),
        streamed_left_(other.streamed_left_),
        cycle_ns_(other.cycle_ns_),
        request_ns_(other.request_ns_) {}
  ChunkServed serve_next(double grant_cycles) override {
    pieces_.clear();
    if (owner_.streaming_) {
      // The transfer's whole bursts in equal chunks, without walking its runs (no data moves).
      const std::uint64_t chunk = std::min(streamed_left_, static_cast<std::uint64_t>(owner_.config_.dma.arbitration_bytes));
      pieces_.push_back({0, chunk});
      streamed_left_ -= chunk;
    } else {
      cursor_.next_chunk([&](const RunCursor::Piece& p) {
        owner_.listener_.piece_granted(t_, p.ddr, p.sram, p.bytes);
        pieces_.push_back({p.ddr, p.bytes});
      });
    }
    DdrChunk c;
    c.pieces = pieces_.data();
    c.count = pieces_.size();
    c.write = t_.store;
    c.transfer = t_.index;
    c.last = finished();
    c.request_ns = request_ns_;
    c.grant_ns = grant_cycles * cycle_ns_;
    const DdrChunkTiming timing = timing_.serve(c);
    outcome.row_hits += timing.row_hits;
    outcome.row_misses += timing.row_misses;
    outcome.turnaround_cycles += timing.turnaround_ns / cycle_ns_;
    return {timing.free_ns / cycle_ns_, timing.done_ns / cycle_ns_};
  }
  bool finished() const override { return owner_.streaming_ ? streamed_left_ == 0 : cursor_.done(); }
  DmaOutcome outcome;

 private:
  DmaChannels& owner_;
  const DmaTransfer& t_;
  DdrTimingModel& timing_;
  RunCursor cursor_;
  std::uint64_t streamed_left_ = t_.shared ? t_.bytes : t_.bus_bytes;
  double cycle_ns_, request_ns_;
  std::vector<DdrPiece> pieces_;
};

// The scratchpad side: the DMA port's cycles per chunk, stretched by bank conflicts.
class DmaChannels::SramSide : public ChunkStream {
 public:
  SramSide(DmaChannels& owner, const DmaTransfer& t, const PlannedOp& op)
      : owner_(owner), cursor_(t, static_cast<std::uint64_t>(owner.config_.dma.arbitration_bytes)), left_(t.bytes) {
    if (op.range_count > 0) span_ = op.ranges[0];
  }
  SramSide(DmaChannels& owner, const SramSide& other, const DmaTransfer& t)
      : bank_conflict_cycles(other.bank_conflict_cycles),
        owner_(owner),
        cursor_(other.cursor_, t),
        left_(other.left_),
        span_(other.span_),
        moved_(other.moved_) {}
  ChunkServed serve_next(double grant_cycles) override {
    const auto start = static_cast<std::uint64_t>(std::llround(grant_cycles));
    std::uint64_t bytes;
    access_.clear();
    if (owner_.streaming_) {
      // The chunk's share of the transfer's scratchpad span, in order (exact for a contiguous one).
      bytes = std::min(left_, static_cast<std::uint64_t>(owner_.config_.dma.arbitration_bytes));
      const double per_byte = static_cast<double>(span_.bytes) / static_cast<double>(std::max<std::uint64_t>(1, moved_ + left_));
      const auto from = static_cast<std::uint64_t>(static_cast<double>(moved_) * per_byte);
      const auto to = static_cast<std::uint64_t>(static_cast<double>(moved_ + bytes) * per_byte);
      if (to > from) access_.add(span_.addr + from, to - from, static_cast<double>(bytes) / static_cast<double>(to - from));
    } else {
      bytes = cursor_.next_chunk([&](const RunCursor::Piece& p) { access_.add(p.sram, p.bytes); });
    }
    left_ -= bytes;
    // Cumulative rounding: a lone transfer's chunks add up to ceil(bytes / port).
    const std::uint64_t before = sram_port_cycles(moved_, owner_.config_.sram);
    moved_ += bytes;
    const std::uint64_t cycles = sram_port_cycles(moved_, owner_.config_.sram) - before;
    const std::uint64_t stall = owner_.banks_.begin(ScratchpadBanks::kDma, start, cycles, access_);
    bank_conflict_cycles += stall;
    const double end = static_cast<double>(start + cycles + stall);
    return {end, end};
  }
  bool finished() const override { return left_ == 0; }
  std::uint64_t bank_conflict_cycles = 0;

 private:
  DmaChannels& owner_;
  RunCursor cursor_;
  std::uint64_t left_;
  PlannedOp::SramRange span_;  // the transfer's scratchpad span (streaming)
  std::uint64_t moved_ = 0;
  ScratchpadBanks::Access access_;
};

// A transfer its channel has started: set up until `request`, then its two sides while the
// arbiters serve them.
struct DmaChannels::Flight {
  const DmaTransfer* transfer = nullptr;
  std::uint64_t start = 0, request = 0;
  bool requested = false;
  std::unique_ptr<DdrSide> ddr;
  std::unique_ptr<SramSide> sram;
  StreamCompletion ddr_done, sram_done;
  std::optional<std::uint64_t> end;  // known once every chunk has been granted
  bool granted() const { return requested && ddr_done.done && sram_done.done; }
};

struct DmaChannels::Channel {
  const DmaTransfer* handed = nullptr;  // handed over by a unit, not started yet
  std::deque<std::unique_ptr<Flight>> flights;  // started, not finished; oldest first
};

DmaChannels::DmaChannels(const HardwareConfig& config, const std::vector<PlannedOp>& ops, bool streaming,
                         MachineListener& listener, DdrTimingModel& ddr, ChunkArbiter& bus, int bus_base,
                         ScratchpadBanks& banks, std::function<void(const DmaTransfer&)> retire, SharedSram shared)
    : config_(config),
      ops_(ops),
      streaming_(streaming),
      listener_(listener),
      ddr_(ddr),
      bus_(bus),
      bus_base_(bus_base),
      shared_(shared),
      banks_(banks),
      port_(config.dma.channels, config.dma.arbitration == DmaArbitration::ChannelPriority),
      pipelined_(config.dma.channel_queue == DmaChannelQueue::Pipelined),
      retire_(std::move(retire)) {
  for (int i = 0; i < config.dma.channels; ++i) channels_.push_back(std::make_unique<Channel>());
}

DmaChannels::DmaChannels(const DmaChannels& other, const std::vector<PlannedOp>& ops,
                         const std::vector<DmaTransfer>& old_transfers, const std::vector<DmaTransfer>& transfers,
                         MachineListener& listener, DdrTimingModel& ddr, ChunkArbiter& bus, ScratchpadBanks& banks,
                         std::function<void(const DmaTransfer&)> retire)
    : config_(other.config_),
      ops_(ops),
      streaming_(other.streaming_),
      listener_(listener),
      ddr_(ddr),
      bus_(bus),
      bus_base_(other.bus_base_),
      banks_(banks),
      port_(other.port_),
      pipelined_(other.pipelined_),
      retire_(std::move(retire)) {
  const auto moved = [&](const DmaTransfer* t) { return t ? &transfers[static_cast<std::size_t>(t - old_transfers.data())] : nullptr; };
  for (const auto& ch : other.channels_) {
    auto copy = std::make_unique<Channel>();
    copy->handed = moved(ch->handed);
    for (const auto& f : ch->flights) {
      auto g = std::make_unique<Flight>();
      g->transfer = moved(f->transfer);
      g->start = f->start;
      g->request = f->request;
      g->requested = f->requested;
      g->ddr_done = f->ddr_done;
      g->sram_done = f->sram_done;
      g->end = f->end;
      if (f->ddr) {
        g->ddr = std::make_unique<DdrSide>(*this, *f->ddr, *g->transfer);
        copied_.push_back({f->ddr.get(), &f->ddr_done, g->ddr.get(), &g->ddr_done});
      }
      if (f->sram) {
        g->sram = std::make_unique<SramSide>(*this, *f->sram, *g->transfer);
        copied_.push_back({f->sram.get(), &f->sram_done, g->sram.get(), &g->sram_done});
      }
      copy->flights.push_back(std::move(g));
    }
    channels_.push_back(std::move(copy));
  }
  for (int d = 0; d < 2; ++d)
    for (const auto& [t, done] : other.issued_[d]) issued_[d].emplace_back(moved(t), done);
  rebind(port_);
}

void DmaChannels::rebind(ChunkArbiter& arbiter) const {
  arbiter.rebind([&](int, ChunkStream*& stream, StreamCompletion*& completion) {
    for (const Copied& c : copied_)
      if (c.stream == stream && c.completion == completion) {
        stream = c.copy;
        completion = c.copy_completion;
        return;
      }
  });
}

DmaChannels::~DmaChannels() = default;

// serial: the channel is free once its transfer has finished; pipelined: once the last one it
// started has made its request.
bool DmaChannels::accepting(std::uint32_t channel) const {
  const Channel& ch = *channels_[channel];
  if (ch.handed) return false;
  if (ch.flights.empty()) return true;
  return pipelined_ && ch.flights.back()->requested;
}

void DmaChannels::hand(const DmaTransfer& t) {
  channels_[t.channel]->handed = &t;
  issued_[t.store].emplace_back(&t, false);
}

std::uint64_t DmaChannels::end_of(const Flight& f) const {
  const double ddr_span = f.ddr_done.done_cycles - static_cast<double>(f.request);
  const auto ddr_cycles = ddr_span > 0 ? static_cast<std::uint64_t>(std::ceil(ddr_span - 1e-6)) : 0;
  const auto sram_cycles = static_cast<std::uint64_t>(std::llround(f.sram_done.done_cycles)) - f.request;
  // A pipelined transfer may wait past its setup for the one before: that wait is time before
  // its request, not setup (serial: the request is start + setup).
  return f.request - static_cast<std::uint64_t>(config_.dma.setup_cycles) +
         dma_transfer_cycles(ddr_cycles, sram_cycles, f.transfer->bounce_cycles, config_.dma);
}

void DmaChannels::await(const DmaTransfer& t) { issued_[t.store].emplace_back(&t, false); }

void DmaChannels::copy_started(const DmaTransfer& t, std::uint64_t now) { listener_.transfer_started(t, now); }

void DmaChannels::copy_finished(const DmaTransfer& t, std::uint64_t start, std::uint64_t now) {
  if (!streaming_) {
    RunCursor cursor(t, static_cast<std::uint64_t>(config_.dma.arbitration_bytes));
    while (!cursor.done())
      cursor.next_chunk([&](const RunCursor::Piece& p) { listener_.piece_granted(t, p.ddr, p.sram, p.bytes); });
  }
  listener_.transfer_finished(t, start, now, DmaOutcome{});
  retire_in_order(t);
}

void DmaChannels::finished(const Flight& f, std::uint64_t now) {
  DmaOutcome outcome = f.ddr->outcome;
  outcome.bank_conflict_cycles = f.sram->bank_conflict_cycles;
  const DmaTransfer& t = *f.transfer;
  listener_.transfer_finished(t, f.start, now, outcome);
  if (t.multicast_count > 1 && multicasts_) multicasts_->finished(t, f.start, now);
  retire_in_order(t);
}

void DmaChannels::retire_in_order(const DmaTransfer& t) {
  auto& order = issued_[t.store];
  for (auto& entry : order)
    if (entry.first == &t && !entry.second) {
      entry.second = true;
      break;
    }
  while (!order.empty() && order.front().second) {
    const DmaTransfer& done = *order.front().first;
    order.pop_front();
    retire_(done);
  }
}

bool DmaChannels::advance(std::uint64_t now) {
  bool progress = false;
  const auto setup = static_cast<std::uint64_t>(config_.dma.setup_cycles);
  for (std::size_t index = 0; index < channels_.size(); ++index) {
    Channel& ch = *channels_[index];
    // Finish the transfers that are through, in the order they started.
    while (!ch.flights.empty()) {
      Flight& f = *ch.flights.front();
      if (!f.granted()) break;
      if (!f.end) f.end = end_of(f);
      if (*f.end > now) break;
      finished(f, now);
      ch.flights.pop_front();
      progress = true;
    }
    // Start the transfer handed over.
    if (ch.handed && (ch.flights.empty() || (pipelined_ && ch.flights.back()->requested))) {
      auto f = std::make_unique<Flight>();
      f->transfer = ch.handed;
      f->start = now;
      ch.handed = nullptr;
      listener_.transfer_started(*f->transfer, now);
      if (f->transfer->multicast_count > 1 && multicasts_) multicasts_->started(*f->transfer, now);
      ch.flights.push_back(std::move(f));
      progress = true;
    }
    // Request once set up, and (pipelined) once every chunk of the transfer before is granted.
    if (!ch.flights.empty()) {
      Flight& f = *ch.flights.back();
      const bool before_granted = ch.flights.size() < 2 || ch.flights[ch.flights.size() - 2]->granted();
      if (!f.requested && now >= f.start + setup && before_granted) {
        f.requested = true;
        f.request = now;
        const bool shared = f.transfer->shared;
        if (shared && !shared_.timing) throw std::logic_error("timing core: a shared SRAM transfer without a shared SRAM");
        f.ddr = std::make_unique<DdrSide>(*this, *f.transfer, now, shared ? *shared_.timing : ddr_);
        // ops_ is this engine's stream, transfer indices the program's (engine_starts).
        f.sram = std::make_unique<SramSide>(*this, *f.transfer, ops_[f.transfer->index - ops_.front().index]);
        (shared ? *shared_.bus : bus_).submit(bus_base_ + static_cast<int>(index), *f.ddr, f.ddr_done, now);
        port_.submit(static_cast<int>(index), *f.sram, f.sram_done, now);
        progress = true;
      }
    }
  }
  return progress;
}

std::optional<std::uint64_t> DmaChannels::next_cycle() const {
  std::optional<std::uint64_t> next = port_.next_cycle();
  auto earliest = [&](std::uint64_t t) { next = next ? std::min(*next, t) : t; };
  const auto setup = static_cast<std::uint64_t>(config_.dma.setup_cycles);
  for (const auto& ch : channels_) {
    if (ch->flights.empty()) continue;
    const Flight& front = *ch->flights.front();
    if (front.granted()) earliest(front.end ? *front.end : end_of(front));
    const Flight& back = *ch->flights.back();
    if (!back.requested) {
      const bool before_granted = ch->flights.size() < 2 || ch->flights[ch->flights.size() - 2]->granted();
      if (before_granted) earliest(back.start + setup);
    }
  }
  return next;
}

bool DmaChannels::idle() const {
  return issued_[0].empty() && issued_[1].empty();
}

}  // namespace npu::cost
