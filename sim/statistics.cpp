#include "statistics.h"

#include <string>

#include "vector_unit.h"

namespace npu::sim {

using isa::Field;
using isa::Opcode;

Statistics::Statistics(const isa::Program& program, const ProgramPlan& plan, const HardwareConfig& config,
                       const SimOptions& options)
    : program_(program), plan_(plan), config_(config), options_(options), channels_(config.dma.channels) {
  if (options.record_instructions) timings_.resize(program.code.size());
}

UnitStats& Statistics::unit(isa::Unit u) { return units_[static_cast<int>(u)]; }

void Statistics::executed(const PlannedOp& op, std::uint64_t start, std::uint64_t end, std::uint64_t stall) {
  UnitStats& u = unit(op.unit);
  ++u.instructions;
  u.stall_cycles += stall;
  BusyTracker& b = busy_[static_cast<int>(op.unit)];
  b.begin(start);
  b.end(end);
  (op.fp16 ? fp16_macs_ : int8_macs_) += op.macs;
  sram_read_ += op.sram_read_bytes;
  sram_written_ += op.sram_write_bytes;
  if (!timings_.empty()) timings_[op.index] = {start, end, stall};
  if (options_.record_trace) trace(op, op.unit == isa::Unit::Compute ? "compute" : "vector", start, end);
}

void Statistics::dma_issued(const PlannedOp& op, std::uint64_t stall) {
  unit(op.unit).stall_cycles += stall;
  if (!timings_.empty()) timings_[op.index].stall_cycles = stall;
}

void Statistics::transfer_started(const DmaTransfer& t, std::uint64_t start) {
  busy_[t.store ? 3 : 0].begin(start);
}

void Statistics::transfer_finished(const DmaTransfer& t, std::uint64_t start, std::uint64_t end) {
  const PlannedOp& op = plan_.ops[t.index];
  ++unit(op.unit).instructions;
  busy_[t.store ? 3 : 0].end(end);
  DmaChannelStats& c = channels_[t.channel];
  ++c.transfers;
  c.bytes += t.bytes;
  c.busy_cycles += end - start;
  if (t.bounce_cycles) ++c.bounce_copies;
  sram_read_ += op.sram_read_bytes;
  sram_written_ += op.sram_write_bytes;
  if (!timings_.empty()) {
    timings_[t.index].start_cycle = start;
    timings_[t.index].end_cycle = end;
  }
  if (options_.record_trace) {
    trace(op, t.store ? "store" : "load", start, end);
    trace(op, nullptr, start, end);
    TraceEvent& e = trace_.back();
    e.track = "dma" + std::to_string(t.channel);
    e.args["channel"] = t.channel;
  }
}

void Statistics::control(const PlannedOp& op, std::uint64_t start, std::uint64_t end) {
  if (op.index < timings_.size()) timings_[op.index] = {start, end, 0};
  if (options_.record_trace && op.index < program_.code.size()) trace(op, "control", start, end);
}

void Statistics::trace(const PlannedOp& op, const char* track, std::uint64_t start, std::uint64_t end) {
  TraceEvent e;
  if (track) e.track = track;
  e.name = std::string(isa::opcode_info(op.opcode).mnemonic);
  e.start_cycle = start;
  e.duration_cycles = end - start;
  e.instruction_index = op.index;
  if (op.index < program_.code.size()) {
    const isa::Instruction& in = program_.code[op.index];
    switch (op.unit) {
      case isa::Unit::Load:
      case isa::Unit::Store: {
        const DmaTransfer& t = plan_.transfers[op.transfer];
        e.args = {{"bytes", static_cast<std::int64_t>(t.bytes)},
                  {"ddr_addr", static_cast<std::int64_t>(t.ddr_addr)},
                  {"sram_addr", static_cast<std::int64_t>(t.sram_addr)}};
        if (t.bounce_cycles) e.args["bounce_cycles"] = static_cast<std::int64_t>(t.bounce_cycles);
        break;
      }
      case isa::Unit::Compute:
        if (op.opcode == Opcode::Gemm) {
          e.args = {{"m", in.get(Field::m)}, {"n", in.get(Field::n)}, {"k", in.get(Field::k)}};
        } else {
          const ConvShape s = ConvShape::of(in);
          e.args = {{"m", static_cast<std::int64_t>(s.gemm_m())},
                    {"n", static_cast<std::int64_t>(s.out_c)},
                    {"k", static_cast<std::int64_t>(s.gemm_k())},
                    {"groups", static_cast<std::int64_t>(s.groups)}};
        }
        e.args["macs"] = static_cast<std::int64_t>(op.macs);
        break;
      case isa::Unit::Vector: e.args = {{"elements", static_cast<std::int64_t>(vector_elements(in))}}; break;
      case isa::Unit::Control: break;
    }
  }
  trace_.push_back(std::move(e));
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
  r.sram_bytes_read = sram_read_;
  r.sram_bytes_written = sram_written_;
  r.sram_peak_bytes = plan_.sram_peak_bytes;
  UnitStats* out[] = {&r.load, &r.compute, &r.vector, &r.store};
  for (int i = 0; i < isa::kQueueCount; ++i) {
    *out[i] = units_[i];
    out[i]->busy_cycles = busy_[i].busy_cycles();
  }
  r.mac_array_busy_cycles = r.compute.busy_cycles;
  r.dma_channels = channels_;
  r.instructions = std::move(timings_);
  r.trace = std::move(trace_);
}

}  // namespace npu::sim
