#include "sim/statistics.h"

namespace npu::sim {

Statistics::Statistics(const isa::Program& program, const std::vector<ProgramPlan>& plans, const HardwareConfig& config,
                       const SimOptions& options)
    : plans_(plans), config_(config), engines_(plans.size()) {
  for (PerEngine& e : engines_) {
    e.channels.resize(static_cast<std::size_t>(config.dma.channels));
    e.channel_busy_until.assign(e.channels.size(), 0);
  }
  if (options.record_trace)
    trace_ = std::make_unique<TraceRecorder>(program, plans, config, options.instruction_labels);
}

const PlannedOp& Statistics::op_of(const DmaTransfer& t) const {
  const ProgramPlan& plan = plans_[t.engine];
  return plan.ops[t.index - plan.ops.front().index];
}

void Statistics::executed(const PlannedOp& op, std::uint64_t start, std::uint64_t end, std::uint64_t stall,
                          std::uint64_t bank_conflict) {
  PerEngine& e = engines_[op.engine];
  UnitStats& u = unit(op);
  ++u.instructions;
  u.stall_cycles += stall;
  u.bank_conflict_cycles += bank_conflict;
  u.sram_bytes_read += op.sram_read_bytes;
  u.sram_bytes_written += op.sram_write_bytes;
  BusyTracker& b = e.busy[static_cast<int>(op.unit)];
  b.begin(start);
  b.end(end);
  (op.fp16 ? e.fp16_macs : e.int8_macs) += op.macs;
  (op.vector_float ? vector_float_elements_ : vector_int_elements_) += op.vector_elements;
  if (trace_) trace_->instruction(op, op.unit == isa::Unit::Compute ? "compute" : "vector", start, end);
}

void Statistics::dma_issued(const PlannedOp& op, std::uint64_t stall, std::uint64_t channel_wait) {
  UnitStats& u = unit(op);
  u.stall_cycles += stall;
  u.channel_wait_cycles += channel_wait;
}

void Statistics::transfer_started(const DmaTransfer& t, std::uint64_t start) {
  PerEngine& e = engines_[t.engine];
  BusyTracker& b = e.busy[static_cast<int>(t.store ? isa::Unit::Store : isa::Unit::Load)];
  if (trace_) {
    PerEngine::Span& s = e.span[t.store];
    if (s.transfers == 0) s.first = t.index;
    ++s.transfers;
    s.bytes += t.bytes;
  }
  b.begin(start);
}

void Statistics::transfer_finished(const DmaTransfer& t, std::uint64_t start, std::uint64_t end,
                                   const cost::DmaOutcome& outcome) {
  PerEngine& e = engines_[t.engine];
  const PlannedOp& op = op_of(t);
  UnitStats& u = unit(op);
  ++u.instructions;
  u.bank_conflict_cycles += outcome.bank_conflict_cycles;
  u.sram_bytes_read += op.sram_read_bytes;
  u.sram_bytes_written += op.sram_write_bytes;
  if (t.multicast_follower())
    e.multicast_read += t.bytes;
  else if (t.shared)
    (t.store ? e.shared_written : e.shared_read) += t.bytes;
  else
    (t.store ? e.ddr_written : e.ddr_read) += t.bytes;
  // A follower's copy of an mload uses no channel of its engine (costmodel/machine/multicasts.h).
  if (!t.multicast_follower()) {
    DmaChannelStats& c = e.channels[t.channel];
    ++c.transfers;
    c.bytes += t.bytes;
    c.bus_bytes += t.bus_bytes;
    std::uint64_t& until = e.channel_busy_until[t.channel];
    c.busy_cycles += end - std::min(end, std::max(start, until));
    until = std::max(until, end);
    if (t.bounce_cycles) ++c.bounce_copies;
  }
  BusyTracker& b = e.busy[static_cast<int>(op.unit)];
  const bool span_ended = b.end(end);
  if (trace_) {
    trace_->transfer(t, start, end);
    if (span_ended) {
      PerEngine::Span& s = e.span[t.store];
      trace_->span(t.engine, t.store, b.since(), end, s.transfers, s.bytes, s.first);
      s = PerEngine::Span{};
    }
  }
}

void Statistics::control(const PlannedOp& op, std::uint64_t start, std::uint64_t end) {
  if (trace_) trace_->instruction(op, "control", start, end);
}

namespace {

void add_to(UnitStats& sum, const UnitStats& u) {
  sum.instructions += u.instructions;
  sum.busy_cycles += u.busy_cycles;
  sum.stall_cycles += u.stall_cycles;
  sum.channel_wait_cycles += u.channel_wait_cycles;
  sum.sram_bytes_read += u.sram_bytes_read;
  sum.sram_bytes_written += u.sram_bytes_written;
  sum.bank_conflict_cycles += u.bank_conflict_cycles;
}

}  // namespace

void Statistics::fill(SimResult& r, std::uint64_t end_cycle, const std::vector<std::uint64_t>& engine_ends) {
  r.cycles = end_cycle;
  r.clock_mhz = config_.clock.frequency_mhz;
  r.latency_us = static_cast<double>(end_cycle) / config_.clock.frequency_mhz;
  r.int8_macs = r.fp16_macs = 0;
  UnitStats* sums[] = {&r.load, &r.compute, &r.vector, &r.store};
  for (UnitStats* s : sums) *s = UnitStats{};
  r.dma_channels.clear();
  r.engines.clear();
  for (std::size_t i = 0; i < engines_.size(); ++i) {
    PerEngine& e = engines_[i];
    SimResult::Engine out;
    UnitStats* units[] = {&out.load, &out.compute, &out.vector, &out.store};
    for (int u = 0; u < isa::kQueueCount; ++u) {
      *units[u] = e.units[u];
      units[u]->busy_cycles = e.busy[u].busy_cycles();
      add_to(*sums[u], *units[u]);
    }
    out.dma_channels = e.channels;
    out.macs = e.int8_macs + e.fp16_macs;
    out.ddr_bytes_read = e.ddr_read;
    out.ddr_bytes_written = e.ddr_written;
    out.shared_sram_bytes_read = e.shared_read;
    out.shared_sram_bytes_written = e.shared_written;
    out.multicast_bytes_read = e.multicast_read;
    out.end_cycle = i < engine_ends.size() ? engine_ends[i] : end_cycle;
    r.int8_macs += e.int8_macs;
    r.fp16_macs += e.fp16_macs;
    r.dma_channels.insert(r.dma_channels.end(), e.channels.begin(), e.channels.end());
    r.engines.push_back(std::move(out));
  }
  r.macs = r.int8_macs + r.fp16_macs;
  r.peak_tops = config_.peak_tops();
  const double seconds = static_cast<double>(end_cycle) / (config_.clock.frequency_mhz * 1e6);
  r.achieved_tops = end_cycle ? 2.0 * static_cast<double>(r.macs) / seconds / 1e12 : 0.0;
  r.mac_utilization = end_cycle ? static_cast<double>(r.macs) /
                                      (static_cast<double>(config_.total_macs()) * static_cast<double>(end_cycle))
                                : 0.0;
  r.sram_peak_bytes = 0;
  for (const ProgramPlan& p : plans_) r.sram_peak_bytes = std::max(r.sram_peak_bytes, p.sram_peak_bytes);
  r.vector_int_elements = vector_int_elements_;
  r.vector_float_elements = vector_float_elements_;
  r.sram_bytes_read = r.sram_bytes_written = 0;
  for (UnitStats* s : sums) {
    r.sram_bytes_read += s->sram_bytes_read;
    r.sram_bytes_written += s->sram_bytes_written;
  }
  r.mac_array_busy_cycles = r.compute.busy_cycles;
  if (trace_) trace_->take(r);
}

}  // namespace npu::sim
