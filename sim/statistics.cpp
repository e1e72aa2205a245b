#include "sim/statistics.h"

namespace npu::sim {

Statistics::Statistics(const isa::Program& program, const ProgramPlan& plan, const HardwareConfig& config,
                       const SimOptions& options)
    : plan_(plan), config_(config), channels_(config.dma.channels), channel_busy_until_(channels_.size(), 0) {
  if (options.record_trace)
    trace_ = std::make_unique<TraceRecorder>(program, plan, config, options.instruction_labels);
}

void Statistics::executed(const PlannedOp& op, std::uint64_t start, std::uint64_t end, std::uint64_t stall,
                          std::uint64_t bank_conflict) {
  UnitStats& u = unit(op.unit);
  ++u.instructions;
  u.stall_cycles += stall;
  u.bank_conflict_cycles += bank_conflict;
  u.sram_bytes_read += op.sram_read_bytes;
  u.sram_bytes_written += op.sram_write_bytes;
  BusyTracker& b = busy_[static_cast<int>(op.unit)];
  b.begin(start);
  b.end(end);
  (op.fp16 ? fp16_macs_ : int8_macs_) += op.macs;
  (op.vector_float ? vector_float_elements_ : vector_int_elements_) += op.vector_elements;
  if (trace_) trace_->instruction(op, op.unit == isa::Unit::Compute ? "compute" : "vector", start, end);
}

void Statistics::dma_issued(const PlannedOp& op, std::uint64_t stall, std::uint64_t channel_wait) {
  UnitStats& u = unit(op.unit);
  u.stall_cycles += stall;
  u.channel_wait_cycles += channel_wait;
}

void Statistics::transfer_started(const DmaTransfer& t, std::uint64_t start) {
  BusyTracker& b = busy_[static_cast<int>(t.store ? isa::Unit::Store : isa::Unit::Load)];
  if (trace_) {
    Span& s = span_[t.store];
    if (s.transfers == 0) s.first = t.index;
    ++s.transfers;
    s.bytes += t.bytes;
  }
  b.begin(start);
}

void Statistics::transfer_finished(const DmaTransfer& t, std::uint64_t start, std::uint64_t end,
                                   const cost::DmaOutcome& outcome) {
  const PlannedOp& op = plan_.ops[t.index];
  UnitStats& u = unit(op.unit);
  ++u.instructions;
  u.bank_conflict_cycles += outcome.bank_conflict_cycles;
  u.sram_bytes_read += op.sram_read_bytes;
  u.sram_bytes_written += op.sram_write_bytes;
  DmaChannelStats& c = channels_[t.channel];
  ++c.transfers;
  c.bytes += t.bytes;
  c.bus_bytes += t.bus_bytes;
  std::uint64_t& until = channel_busy_until_[t.channel];
  c.busy_cycles += end - std::min(end, std::max(start, until));
  until = std::max(until, end);
  if (t.bounce_cycles) ++c.bounce_copies;
  BusyTracker& b = busy_[static_cast<int>(op.unit)];
  const bool span_ended = b.end(end);
  if (trace_) {
    trace_->transfer(t, start, end);
    if (span_ended) {
      Span& s = span_[t.store];
      trace_->span(t.store, b.since(), end, s.transfers, s.bytes, s.first);
      s = Span{};
    }
  }
}

void Statistics::control(const PlannedOp& op, std::uint64_t start, std::uint64_t end) {
  if (trace_) trace_->instruction(op, "control", start, end);
}

void Statistics::fill(SimResult& r, std::uint64_t end_cycle) {
  r.cycles = end_cycle;
  r.clock_mhz = config_.clock.frequency_mhz;
  r.latency_us = static_cast<double>(end_cycle) / config_.clock.frequency_mhz;
  r.int8_macs = int8_macs_;
  r.fp16_macs = fp16_macs_;
  r.macs = int8_macs_ + fp16_macs_;
  r.peak_tops = config_.peak_tops();
  const double seconds = static_cast<double>(end_cycle) / (config_.clock.frequency_mhz * 1e6);
  r.achieved_tops = end_cycle ? 2.0 * static_cast<double>(r.macs) / seconds / 1e12 : 0.0;
  r.mac_utilization =
      end_cycle ? static_cast<double>(r.macs) / (static_cast<double>(config_.macs()) * static_cast<double>(end_cycle)) : 0.0;
  r.sram_peak_bytes = plan_.sram_peak_bytes;
  r.vector_int_elements = vector_int_elements_;
  r.vector_float_elements = vector_float_elements_;
  UnitStats* out[] = {&r.load, &r.compute, &r.vector, &r.store};
  r.sram_bytes_read = r.sram_bytes_written = 0;
  for (int i = 0; i < isa::kQueueCount; ++i) {
    *out[i] = units_[i];
    out[i]->busy_cycles = busy_[i].busy_cycles();
    r.sram_bytes_read += units_[i].sram_bytes_read;
    r.sram_bytes_written += units_[i].sram_bytes_written;
  }
  r.mac_array_busy_cycles = r.compute.busy_cycles;
  r.dma_channels = channels_;
  if (trace_) trace_->take(r);
}

}  // namespace npu::sim
