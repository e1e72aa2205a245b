#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "sim/dma_engine.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "costmodel/dma_cost.h"
#include "sim/ddr_model.h"
#include "sim/scratchpad.h"
#include "sim/scratchpad_banks.h"
#include "sim/sim_time.h"
#include "sim/thread_body.h"
#include "sim/simulator.h"

namespace npu::sim {

namespace {

// Walks a transfer's runs (len0 bytes, up to three strided dimensions) as pieces that end at
// DDR addresses which are multiples of `chunk_bytes` (burst boundaries: pieces never share a
// burst, so counting bursts per piece counts them once).
class RunCursor {
 public:
  struct Piece {
    std::uint64_t ddr = 0, sram = 0, bytes = 0;
  };
  RunCursor(const DmaTransfer& t, std::uint64_t chunk_bytes) : t_(t), chunk_(chunk_bytes) {}
  bool done() const { return i3_ == t_.count3; }
  Piece next() {
    const std::uint64_t ddr = t_.ddr_addr + i3_ * t_.ddr_stride3 + i2_ * t_.ddr_stride2 + i1_ * t_.ddr_stride1;
    const std::uint64_t sram = t_.sram_addr + i3_ * t_.sram_stride3 + i2_ * t_.sram_stride2 + i1_ * t_.sram_stride1;
    const std::uint64_t a = ddr + offset_;
    const std::uint64_t n = std::min(t_.len0 - offset_, (a / chunk_ + 1) * chunk_ - a);
    Piece p{a, sram + offset_, n};
    offset_ += n;
    if (offset_ == t_.len0) {
      offset_ = 0;
      if (++i1_ == t_.count1) {
        i1_ = 0;
        if (++i2_ == t_.count2) {
          i2_ = 0;
          ++i3_;
        }
      }
    }
    return p;
  }
  // A chunk: pieces until it holds chunk_bytes or a piece ended on a chunk boundary.
  template <typename Take>
  std::uint64_t next_chunk(Take&& take) {
    std::uint64_t bytes = 0;
    while (!done()) {
      const Piece p = next();
      take(p);
      bytes += p.bytes;
      if (bytes >= chunk_ || (p.ddr + p.bytes) % chunk_ == 0) break;
    }
    return bytes;
  }

 private:
  const DmaTransfer& t_;
  std::uint64_t chunk_;
  std::uint64_t i1_ = 0, i2_ = 0, i3_ = 0, offset_ = 0;
};

}  // namespace

// The DDR side of one transfer: each granted chunk moves its data and is timed by the model.
class DmaEngine::DdrSide : public ChunkStream {
 public:
  DdrSide(DmaEngine& engine, Channel& ch, const DmaTransfer& t, double request_cycles)
      : engine_(engine),
        ch_(ch),
        t_(t),
        cursor_(t, static_cast<std::uint64_t>(engine.config_.dma.arbitration_bytes)),
        cycle_ns_(engine.config_.cycle_ns()),
        request_ns_(request_cycles * cycle_ns_) {}
  ChunkServed serve_next(double grant_cycles) override {
    pieces_.clear();
    cursor_.next_chunk([&](const RunCursor::Piece& p) {
      engine_.move_data(ch_, t_, p.ddr, p.sram, p.bytes);
      pieces_.push_back({p.ddr, p.bytes});
    });
    DdrChunk c;
    c.pieces = pieces_.data();
    c.count = pieces_.size();
    c.write = t_.store;
    c.transfer = t_.index;
    c.last = cursor_.done();
    c.request_ns = request_ns_;
    c.grant_ns = grant_cycles * cycle_ns_;
    const DdrChunkTiming timing = engine_.ddr_timing_.serve(c);
    outcome.row_hits += timing.row_hits;
    outcome.row_misses += timing.row_misses;
    outcome.turnaround_cycles += timing.turnaround_ns / cycle_ns_;
    return {timing.free_ns / cycle_ns_, timing.done_ns / cycle_ns_};
  }
  bool finished() const override { return cursor_.done(); }
  DmaOutcome outcome;

 private:
  DmaEngine& engine_;
  Channel& ch_;
  const DmaTransfer& t_;
  RunCursor cursor_;
  double cycle_ns_, request_ns_;
  std::vector<DdrPiece> pieces_;
};

// The scratchpad side: the DMA port's cycles per chunk, stretched by bank conflicts.
class DmaEngine::SramSide : public ChunkStream {
 public:
  SramSide(DmaEngine& engine, const DmaTransfer& t)
      : engine_(engine), cursor_(t, static_cast<std::uint64_t>(engine.config_.dma.arbitration_bytes)) {}
  ChunkServed serve_next(double grant_cycles) override {
    const auto start = static_cast<std::uint64_t>(std::llround(grant_cycles));
    ScratchpadBanks& banks = engine_.banks_;
    access_.clear();
    const std::uint64_t bytes = cursor_.next_chunk([&](const RunCursor::Piece& p) { access_.add(p.sram, p.bytes); });
    // Cumulative rounding: a lone transfer's chunks add up to ceil(bytes / port).
    const std::uint64_t before = cost::sram_port_cycles(moved_, engine_.config_.sram);
    moved_ += bytes;
    const std::uint64_t cycles = cost::sram_port_cycles(moved_, engine_.config_.sram) - before;
    const std::uint64_t stall = banks.begin(ScratchpadBanks::kDma, start, cycles, access_);
    bank_conflict_cycles += stall;
    const double end = static_cast<double>(start + cycles + stall);
    return {end, end};
  }
  bool finished() const override { return cursor_.done(); }
  std::uint64_t bank_conflict_cycles = 0;

 private:
  DmaEngine& engine_;
  RunCursor cursor_;
  std::uint64_t moved_ = 0;
  ScratchpadBanks::Access access_;
};

// One transfer a channel has started: its two sides, while the arbiters serve them.
struct DmaEngine::Flight {
  const DmaTransfer* transfer = nullptr;
  std::uint64_t start = 0, request = 0;
  std::unique_ptr<DdrSide> ddr;
  std::unique_ptr<SramSide> sram;
  StreamCompletion ddr_done, sram_done;
  bool granted() const { return ddr_done.done && sram_done.done; }
};

struct DmaEngine::Channel {
  const DmaTransfer* pending = nullptr;
  sc_core::sc_event start, freed, wake, issued;
  tlm::tlm_generic_payload payload;
  std::deque<std::unique_ptr<Flight>> flights;  // started, not finished; oldest first
};

DmaEngine::DmaEngine(sc_core::sc_module_name name, const HardwareConfig& config, DmaListener& listener,
                     DdrTimingModel& ddr_timing, ScratchpadBanks& banks)
    : sc_module(name),
      ddr_socket("ddr_socket"),
      sram_socket("sram_socket"),
      listener_(listener),
      config_(config),
      ddr_timing_(ddr_timing),
      banks_(banks),
      bus_("bus", config.dma.channels, config.dma.arbitration == DmaArbitration::ChannelPriority),
      port_("sram_port", config.dma.channels, config.dma.arbitration == DmaArbitration::ChannelPriority) {
  for (int i = 0; i < config.dma.channels; ++i) {
    channels_.push_back(std::make_unique<Channel>());
    sc_core::sc_spawn_options opts;
    opts.set_stack_size(256 * 1024);
    sc_core::sc_spawn([this, i] { run_channel(static_cast<std::size_t>(i)); },
                      fmt::format("channel{}", i).c_str(), &opts);
    if (config.dma.channel_queue == DmaChannelQueue::Pipelined)
      sc_core::sc_spawn([this, i] { finish_channel(static_cast<std::size_t>(i)); },
                        fmt::format("channel{}_finish", i).c_str(), &opts);
  }
}

DmaEngine::~DmaEngine() = default;

void DmaEngine::submit(const DmaTransfer& t) {
  Channel& ch = *channels_[t.channel];
  while (ch.pending) sc_core::wait(ch.freed);
  ch.pending = &t;
  issued_[t.store].emplace_back(&t, false);
  ch.start.notify();
}

void DmaEngine::retire_in_order(const DmaTransfer& t) {
  auto& order = issued_[t.store];
  for (auto& entry : order)
    if (entry.first == &t && !entry.second) {
      entry.second = true;
      break;
    }
  while (!order.empty() && order.front().second) {
    const DmaTransfer& done = *order.front().first;
    order.pop_front();
    listener_.transfer_retired(done);
  }
}

void DmaEngine::move_data(Channel& ch, const DmaTransfer& t, std::uint64_t ddr, std::uint64_t sram,
                          std::uint64_t bytes) {
  if (!sram_asked_) {
    sram_ = scratchpad_pointer(sram_socket);
    sram_asked_ = true;
  }
  tlm::tlm_generic_payload& p = ch.payload;
  p.set_command(t.store ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  p.set_address(ddr);
  p.set_data_length(static_cast<unsigned>(bytes));
  p.set_streaming_width(static_cast<unsigned>(bytes));
  p.set_byte_enable_ptr(nullptr);
  p.set_dmi_allowed(false);
  p.set_data_ptr(sram_ ? sram_ + sram : nullptr);
  p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  ddr_socket->b_transport(p, delay);
  if (p.is_response_error())
    throw SimError(fmt::format("{}: DDR access {:#x} + {} bytes failed ({})",
                               instruction_label(t.index, t.store ? isa::Opcode::Store : isa::Opcode::Load), ddr,
                               bytes, p.get_response_string()));
}

// Front of a channel (a serial one runs run_serial_channel): takes the transfer handed to it,
// pays its setup and hands its sides to the arbiters once every chunk of the one before has
// been granted (so the channel's transfers reach the DDR in order, one after another); the
// next one's setup starts right after. finish_channel retires them.
void DmaEngine::run_channel(std::size_t index) {
  Channel& ch = *channels_[index];
  const auto setup = static_cast<std::uint64_t>(config_.dma.setup_cycles);
  const bool pipelined = config_.dma.channel_queue == DmaChannelQueue::Pipelined;
  if (!pipelined) return run_serial_channel(index);
  run_thread_body([&] {
    for (;;) {
      while (!ch.pending) sc_core::wait(ch.start);
      auto f = std::make_unique<Flight>();
      f->transfer = ch.pending;
      const DmaTransfer& t = *f->transfer;
      f->start = now_cycles();
      listener_.transfer_started(t, f->start);
      if (setup > 0) sc_core::wait(cycles(setup));
      while (!ch.flights.empty() && !ch.flights.back()->granted()) sc_core::wait(ch.wake);
      f->request = now_cycles();
      f->ddr = std::make_unique<DdrSide>(*this, ch, t, static_cast<double>(f->request));
      f->sram = std::make_unique<SramSide>(*this, t);
      bus_.submit(static_cast<int>(index), *f->ddr, f->ddr_done, ch.wake);
      port_.submit(static_cast<int>(index), *f->sram, f->sram_done, ch.wake);
      ch.flights.push_back(std::move(f));
      ch.issued.notify();
      ch.pending = nullptr;
      ch.freed.notify();
    }
  }, [this](const char* what) { listener_.process_failed(what); });
}

// A serial channel: one transfer from its start to its end, then the next.
void DmaEngine::run_serial_channel(std::size_t index) {
  Channel& ch = *channels_[index];
  const auto setup = static_cast<std::uint64_t>(config_.dma.setup_cycles);
  run_thread_body([&] {
    for (;;) {
      while (!ch.pending) sc_core::wait(ch.start);
      const DmaTransfer& t = *ch.pending;
      const std::uint64_t start = now_cycles();
      listener_.transfer_started(t, start);
      if (setup > 0) sc_core::wait(cycles(setup));
      const std::uint64_t request = now_cycles();
      Flight f;
      DdrSide ddr(*this, ch, t, static_cast<double>(request));
      SramSide sram(*this, t);
      bus_.submit(static_cast<int>(index), ddr, f.ddr_done, ch.wake);
      port_.submit(static_cast<int>(index), sram, f.sram_done, ch.wake);
      while (!f.granted()) sc_core::wait(ch.wake);
      const double ddr_span = f.ddr_done.done_cycles - static_cast<double>(request);
      const auto ddr_cycles = ddr_span > 0 ? static_cast<std::uint64_t>(std::ceil(ddr_span - 1e-6)) : 0;
      const auto sram_cycles = static_cast<std::uint64_t>(std::llround(f.sram_done.done_cycles)) - request;
      const std::uint64_t end =
          start + cost::dma_transfer_cycles(ddr_cycles, sram_cycles, t.bounce_cycles, config_.dma);
      if (end > now_cycles()) sc_core::wait(cycles(end - now_cycles()));
      DmaOutcome outcome = ddr.outcome;
      outcome.bank_conflict_cycles = sram.bank_conflict_cycles;
      ch.pending = nullptr;
      ch.freed.notify();
      listener_.transfer_finished(t, start, now_cycles(), outcome);
      retire_in_order(t);
    }
  }, [this](const char* what) { listener_.process_failed(what); });
}

// Back of a pipelined channel: finishes its transfers in the order they started.
void DmaEngine::finish_channel(std::size_t index) {
  Channel& ch = *channels_[index];
  run_thread_body([&] {
    for (;;) {
      while (ch.flights.empty()) sc_core::wait(ch.issued);
      Flight& f = *ch.flights.front();
      while (!f.granted()) sc_core::wait(ch.wake);
      const DmaTransfer& t = *f.transfer;
      const double ddr_span = f.ddr_done.done_cycles - static_cast<double>(f.request);
      const auto ddr_cycles = ddr_span > 0 ? static_cast<std::uint64_t>(std::ceil(ddr_span - 1e-6)) : 0;
      const auto sram_cycles = static_cast<std::uint64_t>(std::llround(f.sram_done.done_cycles)) - f.request;
      // Setup ends at the request in serial mode; a pipelined transfer may wait past its setup
      // for the one before, and that wait is time before its request, not setup.
      const std::uint64_t end = f.request - static_cast<std::uint64_t>(config_.dma.setup_cycles) +
                                cost::dma_transfer_cycles(ddr_cycles, sram_cycles, t.bounce_cycles, config_.dma);
      if (end > now_cycles()) sc_core::wait(cycles(end - now_cycles()));
      DmaOutcome outcome = f.ddr->outcome;
      outcome.bank_conflict_cycles = f.sram->bank_conflict_cycles;
      const std::uint64_t start = f.start;
      ch.flights.pop_front();
      ch.wake.notify(sc_core::SC_ZERO_TIME);
      listener_.transfer_finished(t, start, now_cycles(), outcome);
      retire_in_order(t);
    }
  }, [this](const char* what) { listener_.process_failed(what); });
}

}  // namespace npu::sim
