#include "costmodel/machine/machine.h"

#include <algorithm>
#include <array>
#include <functional>
#include <map>

#include <fmt/format.h>

#include "costmodel/machine/chunk_arbiter.h"
#include "costmodel/machine/dma_channels.h"
#include "costmodel/machine/multicasts.h"
#include "costmodel/scratchpad_banks.h"
#include "costmodel/shared_sram.h"

namespace npu::cost {
namespace {

using isa::Unit;
constexpr int kUnits = isa::kQueueCount;

// One unit's instruction queue (bounded ring). `ready_cycle` is when the controller finished
// dispatching the entry: the controller runs ahead of time and stops only when a queue is full
// or at barrier/halt.
class UnitQueue {
 public:
  struct Entry {
    std::uint32_t op;
    std::uint64_t ready_cycle;
  };
  explicit UnitQueue(std::size_t depth) : ring_(std::max<std::size_t>(1, depth)) {}
  bool empty() const { return size_ == 0; }
  bool full() const { return size_ == ring_.size(); }
  const Entry& front() const { return ring_[head_]; }
  void push(const Entry& e) { ring_[(head_ + size_++) % ring_.size()] = e; }
  void pop() {
    head_ = (head_ + 1) % ring_.size();
    --size_;
  }

 private:
  std::vector<Entry> ring_;
  std::size_t head_ = 0, size_ = 0;
};

class SilentListener : public MachineListener {};

// Keeps the InstructionTiming of each instruction, then passes every event on.
class TimingRecorder : public MachineListener {
 public:
  TimingRecorder(MachineListener& next, std::size_t instructions) : next_(next), timings_(instructions) {}
  std::vector<InstructionTiming>& timings() { return timings_; }

  void instruction_started(const PlannedOp& op, std::uint64_t cycle) override { next_.instruction_started(op, cycle); }
  void instruction_finished(const PlannedOp& op, std::uint64_t start, std::uint64_t end, std::uint64_t stall,
                            std::uint64_t bank_conflict) override {
    if (InstructionTiming* ti = at(op.index)) {
      ti->start_cycle = start;
      ti->end_cycle = end;
      ti->stall_cycles = stall;
      ti->bank_conflict_cycles = bank_conflict;
    }
    next_.instruction_finished(op, start, end, stall, bank_conflict);
  }
  void dma_issued(const PlannedOp& op, std::uint64_t stall, std::uint64_t channel_wait) override {
    if (InstructionTiming* ti = at(op.index)) {
      ti->stall_cycles = stall;
      ti->channel_wait_cycles = channel_wait;
    }
    next_.dma_issued(op, stall, channel_wait);
  }
  void transfer_started(const DmaTransfer& t, std::uint64_t cycle) override { next_.transfer_started(t, cycle); }
  void transfer_finished(const DmaTransfer& t, std::uint64_t start, std::uint64_t end,
                         const DmaOutcome& outcome) override {
    if (InstructionTiming* ti = at(t.index)) {
      ti->start_cycle = start;
      ti->end_cycle = end;
      ti->bank_conflict_cycles = outcome.bank_conflict_cycles;
      ti->ddr_row_hits = outcome.row_hits;
      ti->ddr_row_misses = outcome.row_misses;
      ti->ddr_turnaround_cycles = outcome.turnaround_cycles;
    }
    next_.transfer_finished(t, start, end, outcome);
  }
  void control(const PlannedOp& op, std::uint64_t start, std::uint64_t end) override {
    if (InstructionTiming* ti = at(op.index)) {
      ti->start_cycle = start;
      ti->end_cycle = end;
    }
    next_.control(op, start, end);
  }
  void piece_granted(const DmaTransfer& t, std::uint64_t ddr, std::uint64_t sram, std::uint64_t bytes) override {
    next_.piece_granted(t, ddr, sram, bytes);
  }

 private:
  InstructionTiming* at(std::uint32_t index) { return index < timings_.size() ? &timings_[index] : nullptr; }
  MachineListener& next_;
  std::vector<InstructionTiming> timings_;
};

// An instruction's scratchpad traffic spread over its operand ranges by their sizes (the banks
// see each range's bytes accessed traffic / span times).
void fill_bank_access(const PlannedOp& op, ScratchpadBanks::Access& access) {
  std::uint64_t range_bytes = 0;
  for (int i = 0; i < op.range_count; ++i) range_bytes += op.ranges[i].bytes;
  const double times =
      range_bytes ? static_cast<double>(op.sram_read_bytes + op.sram_write_bytes) / static_cast<double>(range_bytes) : 0.0;
  access.clear();
  for (int i = 0; i < op.range_count; ++i) access.add(op.ranges[i].addr, op.ranges[i].bytes, times);
}

}  // namespace

// One engine: controller, four in-order units with their queues and tokens, DMA channels,
// scratchpad banks. The engines share the DDR model and the bus arbiter (Machine::State).
struct Engine {
  Engine(int id, const ProgramPlan& plan, const HardwareConfig& config, MachineListener& listener, DdrTimingModel& ddr,
         ChunkArbiter& bus, DmaChannels::SharedSram shared, bool streaming, Multicasts* multicasts)
      : id(id),
        multicasts(multicasts),
        plan(plan),
        config(config),
        listener(listener),
        banks(config.sram),
        channels(config, plan.ops, streaming, listener, ddr, bus, id * config.dma.channels, banks,
                 [this](const DmaTransfer& t) { retired(t); }, shared),
        queues{UnitQueue(static_cast<std::size_t>(config.controller.queue_depth)),
               UnitQueue(static_cast<std::size_t>(config.controller.queue_depth)),
               UnitQueue(static_cast<std::size_t>(config.controller.queue_depth)),
               UnitQueue(static_cast<std::size_t>(config.controller.queue_depth))} {
    channels.set_multicasts(multicasts);
  }

  // A copy of `other` going on with `plan` (Machine::fork).
  Engine(const Engine& other, const ProgramPlan& plan, MachineListener& listener, DdrTimingModel& ddr, ChunkArbiter& bus)
      : id(other.id),
        plan(plan),
        config(other.config),
        listener(listener),
        banks(other.banks),
        channels(other.channels, plan.ops, other.plan.transfers, plan.transfers, listener, ddr, bus, banks,
                 [this](const DmaTransfer& t) { retired(t); }),
        queues{other.queues[0], other.queues[1], other.queues[2], other.queues[3]},
        inflight(other.inflight),
        access(other.access),
        now(other.now),
        halted(other.halted),
        end(other.end),
        controller(other.controller),
        stop(other.stop) {
    for (int a = 0; a < kUnits; ++a) {
      given[a] = other.given[a];
      for (int b = 0; b < kUnits; ++b) tokens[a][b] = other.tokens[a][b];
      units[a] = other.units[a];
      if (units[a].op) units[a].op = &plan.ops[static_cast<std::size_t>(units[a].op - other.plan.ops.data())];
    }
  }

  int id;
  Multicasts* multicasts = nullptr;  // the machine's, shared by its engines (null in a fork: one engine)
  const ProgramPlan& plan;
  const HardwareConfig& config;
  MachineListener& listener;
  ScratchpadBanks banks;
  DmaChannels channels;
  UnitQueue queues[kUnits];
  std::uint64_t tokens[kUnits][kUnits] = {};  // [src][dst]: given by src, not yet taken by dst
  std::uint64_t inflight = 0;                 // dispatched and not finished (retired, for DMA)
  ScratchpadBanks::Access access;             // scratch for the instruction starting
  std::uint64_t now = 0;
  bool halted = false;
  std::uint64_t end = 0;
  std::uint64_t given[kUnits] = {};  // per unit: its instructions that have given their tokens (in order)

  // The controller: `next` is the op it dispatches next; its dispatch ends at `ready`
  // (the previous dispatch's end + dispatch_cycles, later if its queue was full).
  struct Controller {
    std::size_t next = 0;
    std::uint64_t last_dispatch = 0;  // end of the latest dispatch
    bool staged = false;              // `ready` is set for ops[next]
    std::uint64_t ready = 0;
    bool blocked = false;             // ops[next]'s queue was full
    bool draining = false;            // barrier/halt/sync waiting for `inflight` to reach 0
    bool at_sync = false;             // arrived at a sync, waiting for the other engines
    std::map<std::pair<int, int>, std::uint64_t> syncs_passed;  // per group (first engine, count)
  } controller;
  std::size_t stop = ~std::size_t{0};  // Machine::stop_before

  // A unit: idle, waiting for tokens, running (compute/vector until `end`), or (load/store)
  // waiting for its transfer's channel.
  struct UnitState {
    enum Phase { Idle, Tokens, Running, Channel } phase = Idle;
    const PlannedOp* op = nullptr;
    std::uint64_t taken = 0, tokens_at = 0, start = 0, end = 0, stall = 0, conflict = 0;
    int waiting_token_from = -1;
    bool multicast_arrived = false;  // its mload has met the group's rendezvous
  } units[kUnits];

  bool unit_step(int u);
  // `sync`: decides when an engine at a sync may go on (the machine's rendezvous).
  bool controller_step(const std::function<std::optional<std::uint64_t>(Engine&, const PlannedOp&)>& sync);
  void retired(const DmaTransfer& t);
  void give(int src, std::uint8_t mask) {
    for (int dst = 0; dst < kUnits; ++dst)
      if (mask & (1u << dst)) ++tokens[src][dst];
  }
  std::optional<std::uint64_t> next_cycle() const;
  std::vector<std::string> waits() const;
};

void Engine::retired(const DmaTransfer& t) {
  give(static_cast<int>(t.store ? Unit::Store : Unit::Load), t.push);
  ++given[static_cast<int>(t.store ? Unit::Store : Unit::Load)];
  --inflight;
}

// Moves unit `u` as far as it can at `now`; whether it did anything.
bool Engine::unit_step(int u) {
  UnitState& s = units[u];
  UnitQueue& q = queues[u];
  bool progress = false;
  for (;;) {
    switch (s.phase) {
      case UnitState::Running:
        if (now < s.end) return progress;
        listener.instruction_finished(*s.op, s.start, s.end, s.stall, s.conflict);
        give(u, s.op->push);
        ++given[u];
        --inflight;
        s.phase = UnitState::Idle;
        progress = true;
        break;
      case UnitState::Idle: {
        if (q.empty() || q.front().ready_cycle > now) return progress;
        s.op = &plan.ops[q.front().op];
        q.pop();
        s.taken = now;
        s.phase = UnitState::Tokens;
        progress = true;
        break;
      }
      case UnitState::Tokens: {
        for (int src = 0; src < kUnits; ++src)
          if ((s.op->pop & (1u << src)) && tokens[src][u] == 0) {
            s.waiting_token_from = src;
            return progress;
          }
        s.waiting_token_from = -1;
        for (int src = 0; src < kUnits; ++src)
          if (s.op->pop & (1u << src)) --tokens[src][u];
        s.stall = now - s.taken;
        progress = true;
        if (u == static_cast<int>(Unit::Load) || u == static_cast<int>(Unit::Store)) {
          s.tokens_at = now;
          s.phase = UnitState::Channel;
          break;
        }
        s.start = now;
        listener.instruction_started(*s.op, now);
        fill_bank_access(*s.op, access);
        s.conflict = banks.begin(u == static_cast<int>(Unit::Compute) ? ScratchpadBanks::kCompute : ScratchpadBanks::kVector,
                                 now, s.op->cycles, access);
        s.end = now + s.op->cycles + s.conflict;
        s.phase = UnitState::Running;
        break;
      }
      case UnitState::Channel: {
        const DmaTransfer& t = plan.transfers[s.op->transfer];
        if (t.multicast_count > 1 && multicasts) {
          if (!s.multicast_arrived) {
            multicasts->arrive(t, channels);
            s.multicast_arrived = true;
            progress = true;
          }
          if (!t.multicast_follower() && !multicasts->ready(t)) return progress;
        }
        if (!t.multicast_follower()) {
          if (!channels.accepting(t.channel)) return progress;
          channels.hand(t);
        }
        listener.dma_issued(*s.op, s.stall, now - s.tokens_at);
        s.multicast_arrived = false;
        s.phase = UnitState::Idle;
        progress = true;
        break;
      }
    }
  }
}

// Dispatches as far as the queues, barriers and syncs allow at `now`; whether it did anything.
bool Engine::controller_step(const std::function<std::optional<std::uint64_t>(Engine&, const PlannedOp&)>& sync) {
  Controller& c = controller;
  bool progress = false;
  const auto dispatch = static_cast<std::uint64_t>(config.controller.dispatch_cycles);
  while (!halted && c.next < plan.ops.size()) {
    const PlannedOp& op = plan.ops[c.next];
    if (!c.staged) {
      c.ready = c.last_dispatch + dispatch;
      c.staged = true;
    }
    if (c.next >= stop) return progress;
    if (op.unit == Unit::Control) {
      if (now < c.ready) return progress;
      if (inflight > 0) {
        c.draining = true;
        return progress;
      }
      c.draining = false;
      if (op.opcode == isa::Opcode::Sync) {
        // Arrive (once), then go on when every engine has arrived and the signal has crossed.
        if (!c.at_sync) {
          c.at_sync = true;
          progress = true;
        }
        const std::optional<std::uint64_t> release = sync(*this, op);
        if (!release || now < *release) return progress;
        c.at_sync = false;
        ++c.syncs_passed[{op.sync_first, op.sync_count}];
      }
      listener.control(op, c.ready, now);
      c.last_dispatch = now;
      c.staged = false;
      ++c.next;
      progress = true;
      if (op.opcode == isa::Opcode::Halt) {
        halted = true;
        end = now;
      }
      continue;
    }
    UnitQueue& q = queues[static_cast<int>(op.unit)];
    if (q.full()) {
      c.blocked = true;
      return progress;
    }
    // Room appeared at `now` after the queue was full: the dispatch ends no earlier.
    if (c.blocked) c.ready = std::max(c.ready, now);
    c.blocked = false;
    q.push({static_cast<std::uint32_t>(c.next), c.ready});
    ++inflight;
    c.last_dispatch = c.ready;
    c.staged = false;
    ++c.next;
    progress = true;
  }
  return progress;
}

std::optional<std::uint64_t> Engine::next_cycle() const {
  if (halted) return std::nullopt;
  std::optional<std::uint64_t> next;
  auto earliest = [&](std::optional<std::uint64_t> t) {
    if (t && (!next || *t < *next)) next = t;
  };
  const Controller& c = controller;
  if (c.next < plan.ops.size() && !c.blocked && !c.draining && !c.at_sync &&
      plan.ops[c.next].unit == Unit::Control)
    earliest(c.staged ? c.ready : c.last_dispatch + config.controller.dispatch_cycles);
  for (int u = 0; u < kUnits; ++u) {
    const UnitState& s = units[u];
    if (s.phase == UnitState::Running) earliest(s.end);
    else if (s.phase == UnitState::Idle && !queues[u].empty()) earliest(queues[u].front().ready_cycle);
  }
  earliest(channels.next_cycle());
  return next;
}

// What this engine waits for (deadlock reports).
std::vector<std::string> Engine::waits() const {
  std::vector<std::string> parts;
  for (int u = 0; u < kUnits; ++u) {
    const UnitState& s = units[u];
    if (s.phase == UnitState::Channel && s.multicast_arrived && multicasts) {
      std::vector<std::string> engines;
      for (int m : multicasts->missing(plan.transfers[s.op->transfer])) engines.push_back(std::to_string(m));
      parts.push_back(fmt::format("load unit waits at {} for engine(s) {} to reach their copy",
                                  instruction_label(s.op->index, s.op->opcode), fmt::join(engines, ", ")));
      continue;
    }
    if (s.phase != UnitState::Tokens || s.waiting_token_from < 0) continue;
    parts.push_back(fmt::format("{} unit waits for a token from {} at {}", isa::unit_name(static_cast<Unit>(u)),
                                isa::unit_name(static_cast<Unit>(s.waiting_token_from)),
                                instruction_label(s.op->index, s.op->opcode)));
  }
  const Controller& c = controller;
  if (c.next < plan.ops.size()) {
    const PlannedOp& op = plan.ops[c.next];
    const bool in_program = op.index < plan.ops.front().index + plan.code_size;
    if (c.blocked)
      parts.push_back(fmt::format("controller cannot dispatch {}: the {} queue is full",
                                  instruction_label(op.index, op.opcode), isa::unit_name(op.unit)));
    else if (c.at_sync)
      parts.push_back(fmt::format("controller waits at {} for the other engines", instruction_label(op.index, op.opcode)));
    else if (c.draining)
      parts.push_back(fmt::format("controller waits at {} for {} unfinished instructions",
                                  in_program ? instruction_label(op.index, op.opcode) : std::string("the end of the program"),
                                  inflight));
  }
  return parts;
}

// The engines and what they share: the DDR model and the bus arbiter over every channel, and
// the shared SRAM with its own arbiter over the same channels when the config has one.
struct Machine::State {
  State(const std::vector<const ProgramPlan*>& plans, const HardwareConfig& config, MachineListener* listener,
        const MachineOptions& options)
      : config(config),
        recorder(listener ? *listener : silent, options.record_instructions ? instruction_count(plans) : 0),
        ddr(options.streaming_ddr ? make_streaming_ddr(config.ddr, config.dram) : make_ddr_model(config.ddr, config.dram)),
        bus(static_cast<int>(plans.size()) * config.dma.channels, config.dma.arbitration == DmaArbitration::ChannelPriority) {
    DmaChannels::SharedSram to_shared;
    if (has_shared_sram(config)) {
      shared = make_shared_sram_timing(config);
      shared_bus = std::make_unique<ChunkArbiter>(static_cast<int>(plans.size()) * config.dma.channels,
                                                  config.dma.arbitration == DmaArbitration::ChannelPriority);
      to_shared = {shared.get(), shared_bus.get()};
    }
    for (std::size_t e = 0; e < plans.size(); ++e)
      engines.push_back(std::make_unique<Engine>(static_cast<int>(e), *plans[e], config, recorder, *ddr, bus,
                                                 to_shared, options.streaming_ddr, &multicasts));
  }
  // A copy of `other` (one engine) going on with `plan`.
  State(const State& other, const ProgramPlan& plan, std::unique_ptr<DdrTimingModel> ddr_copy)
      : config(other.config),
        recorder(silent, 0),
        ddr(std::move(ddr_copy)),
        bus(other.bus),
        started(other.started),
        now(other.now),
        rendezvous(other.rendezvous) {
    engines.push_back(std::make_unique<Engine>(*other.engines.front(), plan, recorder, *ddr, bus));
    engines.front()->channels.rebind(bus);
  }
  static std::size_t instruction_count(const std::vector<const ProgramPlan*>& plans) {
    std::size_t n = 0;
    for (const ProgramPlan* p : plans)
      if (!p->ops.empty()) n = std::max<std::size_t>(n, p->ops.front().index + p->code_size);
    return n;
  }

  const HardwareConfig& config;
  SilentListener silent;
  TimingRecorder recorder;
  std::unique_ptr<DdrTimingModel> ddr;
  ChunkArbiter bus;
  std::unique_ptr<DdrTimingModel> shared;  // null without a shared SRAM
  std::unique_ptr<ChunkArbiter> shared_bus;
  Multicasts multicasts;
  std::vector<std::unique_ptr<Engine>> engines;
  bool started = false;
  std::uint64_t now = 0;

  // Per sync group (first engine, count): the syncs its members have passed before the one
  // they meet at now, and when that one releases them.
  struct Rendezvous {
    std::uint64_t round = 0;
    std::size_t arrived = 0;
    std::uint64_t last_arrival = 0;
    std::optional<std::uint64_t> release;
  };
  std::map<std::pair<int, int>, Rendezvous> rendezvous;
  std::optional<std::uint64_t> sync_of(Engine& e, const PlannedOp& op);

  bool halted() const {
    for (const auto& e : engines)
      if (!e->halted) return false;
    return true;
  }
  bool step_once();
  std::optional<std::uint64_t> next_cycle() const;
  std::string deadlock_message() const;
};

// An engine at a sync of group G: once all of G's members are at their sync of this round, all
// go on engines.sync_cycles after the last arrival. Returns the release cycle once known.
std::optional<std::uint64_t> Machine::State::sync_of(Engine& e, const PlannedOp& op) {
  if (op.sync_count <= 1) return now;
  const std::pair<int, int> group{op.sync_first, op.sync_count};
  Rendezvous& r = rendezvous[group];
  const std::uint64_t mine = e.controller.syncs_passed[group];
  if (r.release && mine != r.round) return std::nullopt;  // the round before is still closing
  auto waiting_here = [&](const Engine& other) {
    if (!other.controller.at_sync || other.controller.next >= other.plan.ops.size()) return false;
    const PlannedOp& at = other.plan.ops[other.controller.next];
    const auto it = other.controller.syncs_passed.find(group);
    const std::uint64_t passed = it == other.controller.syncs_passed.end() ? 0 : it->second;
    return at.sync_first == op.sync_first && at.sync_count == op.sync_count && passed == mine;
  };
  if (!r.release) {
    r.round = mine;
    std::size_t arrived = 0;
    for (int m = op.sync_first; m < op.sync_first + op.sync_count; ++m) arrived += waiting_here(*engines[m]);
    if (arrived > r.arrived) {
      r.arrived = arrived;
      r.last_arrival = now;
    }
    if (r.arrived < op.sync_count) return std::nullopt;
    r.release = r.last_arrival + static_cast<std::uint64_t>(config.engines.sync_cycles);
  }
  const std::uint64_t release = *r.release;
  if (now >= release) {
    // The last member to pass closes the round.
    std::size_t still_waiting = 0;
    for (int m = op.sync_first; m < op.sync_first + op.sync_count; ++m)
      if (engines[m].get() != &e && waiting_here(*engines[m])) ++still_waiting;
    if (still_waiting == 0) r = Rendezvous{};
  }
  return release;
}

// One pass over everything at `now`, arbiters last.
bool Machine::State::step_once() {
  bool progress = false;
  const auto sync = [this](Engine& e, const PlannedOp& op) { return sync_of(e, op); };
  for (auto& e : engines) {
    e->now = now;
    progress |= e->channels.advance(now);
    for (int u = 0; u < kUnits; ++u) progress |= e->unit_step(u);
    progress |= e->controller_step(sync);
    progress |= e->channels.advance(now);
  }
  if (progress) return true;
  for (auto& e : engines) progress |= e->channels.grant_port(now);
  progress |= bus.grant(now);
  if (shared_bus) progress |= shared_bus->grant(now);
  return progress;
}

std::optional<std::uint64_t> Machine::State::next_cycle() const {
  if (!started) return 0;
  if (halted()) return std::nullopt;
  std::optional<std::uint64_t> next;
  auto earliest = [&](std::optional<std::uint64_t> t) {
    if (t && (!next || *t < *next)) next = t;
  };
  for (const auto& e : engines) earliest(e->next_cycle());
  earliest(bus.next_cycle());
  if (shared_bus) earliest(shared_bus->next_cycle());
  for (const auto& [group, r] : rendezvous)
    if (r.release && *r.release > now) earliest(*r.release);
  // Whatever was due has been handled at `now`: an event not after it is a bug of this core.
  if (next && *next <= now)
    throw std::logic_error(fmt::format("timing core: an event at cycle {} is left after cycle {} was handled", *next, now));
  return next;
}

std::string Machine::State::deadlock_message() const {
  std::vector<std::string> parts;
  for (const auto& e : engines)
    for (const std::string& w : e->waits())
      parts.push_back(engines.size() > 1 ? fmt::format("engine {}: {}", e->id, w) : w);
  if (parts.empty()) parts.push_back("no process can make progress");
  return fmt::format("deadlock at cycle {}: {}", now, fmt::join(parts, "; "));
}

Machine::Machine(const ProgramPlan& plan, const HardwareConfig& config, MachineListener* listener,
                 const MachineOptions& options)
    : Machine(std::vector<const ProgramPlan*>{&plan}, config, listener, options) {}

Machine::Machine(const std::vector<const ProgramPlan*>& engine_plans, const HardwareConfig& config,
                 MachineListener* listener, const MachineOptions& options)
    : state_(std::make_unique<State>(engine_plans, config, listener, options)) {}

Machine::Machine(std::unique_ptr<State> state) : state_(std::move(state)) {}

Machine::~Machine() = default;

void Machine::stop_before(std::size_t op) {
  for (auto& e : state_->engines) e->stop = op;
}

bool Machine::run_to_stop() {
  const Engine& e = *state_->engines.front();
  while (e.controller.next < e.stop && !halted()) {
    const auto t = next_cycle();
    if (!t) return false;
    run_at(*t);
  }
  return e.controller.next == e.stop && !halted();
}

std::unique_ptr<Machine> Machine::fork(const ProgramPlan& plan) const {
  const State& s = *state_;
  if (s.engines.size() != 1 || s.config.controller.dispatch_cycles < 1 || s.shared) return nullptr;
  const Engine& e = *s.engines.front();
  const std::size_t stop = e.stop;
  if (e.controller.next != stop || e.halted || plan.ops.size() <= stop || e.plan.ops.size() < stop) return nullptr;
  for (std::size_t i = 0; i < stop; ++i) {
    const PlannedOp &a = e.plan.ops[i], &b = plan.ops[i];
    if (a.opcode != b.opcode || a.unit != b.unit || a.pop != b.pop || (a.push & ~b.push) != 0 || a.transfer != b.transfer ||
        a.cycles != b.cycles)
      return nullptr;
  }
  std::unique_ptr<DdrTimingModel> ddr = s.ddr->clone();
  if (!ddr) return nullptr;
  std::unique_ptr<Machine> forked(new Machine(std::make_unique<State>(s, plan, std::move(ddr))));
  Engine& f = *forked->state_->engines.front();
  f.stop = ~std::size_t{0};
  // The tokens this plan's ops give to consumers after the stop, for the ops that have given
  // theirs already (each unit gives in its program order).
  std::uint64_t seen[kUnits] = {};
  for (std::size_t i = 0; i < stop; ++i) {
    const PlannedOp& b = plan.ops[i];
    if (b.unit == Unit::Control) continue;
    const int u = static_cast<int>(b.unit);
    if (seen[u]++ >= e.given[u]) continue;
    f.give(u, static_cast<std::uint8_t>(b.push & ~e.plan.ops[i].push));
  }
  // The rest of the cycle the controller stopped in: it dispatches from the stop on. The other
  // units and the channels had nothing left to do in it, and what it dispatches is not ready
  // before the next cycle (dispatch_cycles >= 1).
  forked->run_at(s.now);
  return forked;
}

std::optional<std::uint64_t> Machine::next_cycle() const { return state_->next_cycle(); }

void Machine::run_at(std::uint64_t cycle) {
  State& s = *state_;
  s.started = true;
  s.now = cycle;
  while (s.step_once()) {
  }
}

void Machine::run() {
  while (auto t = next_cycle()) run_at(*t);
  if (!halted()) throw MachineDeadlock(deadlock_message());
}

bool Machine::halted() const { return state_->halted(); }

std::uint64_t Machine::end_cycle() const {
  if (!state_->halted()) return state_->now;
  std::uint64_t end = 0;
  for (const auto& e : state_->engines) end = std::max(end, e->end);
  return end;
}

std::uint64_t Machine::engine_end_cycle(std::size_t engine) const { return state_->engines.at(engine)->end; }
std::size_t Machine::engine_count() const { return state_->engines.size(); }
std::string Machine::deadlock_message() const { return state_->deadlock_message(); }

const DdrCounters& Machine::finish_ddr() {
  state_->ddr->finish(static_cast<double>(end_cycle()) * state_->config.cycle_ns());
  return state_->ddr->counters();
}

const DdrCounters* Machine::shared_sram_counters() const {
  return state_->shared ? &state_->shared->counters() : nullptr;
}

std::vector<InstructionTiming> Machine::take_instruction_timings() { return std::move(state_->recorder.timings()); }

}  // namespace npu::cost
