#include "sim/trace_recorder.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "costmodel/mac_shapes.h"
#include "costmodel/vector_cost.h"
#include "sim/vector_unit.h"

namespace npu::sim {

using cost::ConvShape;
using isa::Field;
using isa::Opcode;

namespace {
std::int64_t i64(std::uint64_t v) { return static_cast<std::int64_t>(v); }
}  // namespace

TraceRecorder::TraceRecorder(const isa::Program& program, const std::vector<ProgramPlan>& plans,
                             const HardwareConfig& config, const std::vector<InstructionLabel>& labels)
    : program_(program), plans_(plans), config_(config), labels_(labels) {
  std::size_t ops = 0, transfers = 0;
  for (const ProgramPlan& p : plans) {
    ops += p.ops.size();
    transfers += p.transfers.size();
  }
  events_.reserve(ops + transfers);
  transfers_.reserve(transfers);
}

TraceEvent& TraceRecorder::add(const PlannedOp& op, const char* track, std::uint64_t start, std::uint64_t end) {
  TraceEvent& e = events_.emplace_back();
  e.engine = op.engine;
  e.track = track;
  e.name = std::string(isa::opcode_info(op.opcode).mnemonic);
  e.start_cycle = start;
  e.duration_cycles = end - start;
  e.instruction_index = op.index;
  if (op.index < labels_.size()) {
    const InstructionLabel& l = labels_[op.index];
    e.layer = l.layer;
    for (const auto& [key, value] : l.tile) e.args["tile_" + key] = value;
  }
  return e;
}

void TraceRecorder::instruction(const PlannedOp& op, const char* track, std::uint64_t start, std::uint64_t end) {
  describe(op, add(op, track, start, end));
}

void TraceRecorder::transfer(const DmaTransfer& t, std::uint64_t start, std::uint64_t end) {
  const ProgramPlan& plan = plans_[t.engine];
  const PlannedOp& op = plan.ops[t.index - plan.ops.front().index];
  // A pipelined channel starts a transfer before the one before ends: overlapping transfers go
  // on a second lane of the channel, so each track's slices follow one another.
  std::string track = "dma" + std::to_string(t.channel);
  for (int lane = 2; lane_end_[{t.engine, track}] > start; ++lane) track = fmt::format("dma{} ({})", t.channel, lane);
  lane_end_[{t.engine, track}] = end;
  TraceEvent& e = add(op, track.c_str(), start, end);
  e.args["channel"] = t.channel;
  describe(op, e);
  transfers_.push_back({start, end, t.bus_bytes});
}

void TraceRecorder::span(int engine, bool store, std::uint64_t start, std::uint64_t end, std::uint64_t transfers,
                         std::uint64_t bytes, std::uint32_t first) {
  TraceEvent& e = events_.emplace_back();
  e.engine = engine;
  e.track = e.name = store ? "store" : "load";
  e.start_cycle = start;
  e.duration_cycles = end - start;
  e.instruction_index = first;
  e.args = {{"transfers", i64(transfers)}, {"bytes", i64(bytes)}};
}

// Instruction-specific args: what a reader needs to recognise the tile.
void TraceRecorder::describe(const PlannedOp& op, TraceEvent& e) const {
  if (op.index >= program_.code.size()) return;  // the implicit halt
  const isa::Instruction& in = program_.code[op.index];
  auto& a = e.args;
  switch (op.unit) {
    case isa::Unit::Load:
    case isa::Unit::Store: {
      const DmaTransfer& t = plans_[op.engine].transfers[op.transfer];
      a["bytes"] = i64(t.bytes);
      a["bus_bytes"] = i64(t.bus_bytes);
      a["ddr_addr"] = i64(t.ddr_addr);
      a["sram_addr"] = i64(t.sram_addr);
      if (t.bounce_cycles) a["bounce_cycles"] = i64(t.bounce_cycles);
      return;
    }
    case isa::Unit::Compute:
      if (op.opcode == Opcode::Drain) {
        a["elements"] = in.get(Field::count);
        break;
      }
      if (op.opcode == Opcode::Gemm) {
        a["m"] = in.get(Field::m);
        a["n"] = in.get(Field::n);
        a["k"] = in.get(Field::k);
      } else {
        const ConvShape s = ConvShape::of(in);
        a["m"] = i64(s.gemm_m());
        a["n"] = i64(s.out_c);
        a["k"] = i64(s.gemm_k());
        a["groups"] = i64(s.groups);
        a["in_h"] = i64(s.in_h);
        a["in_w"] = i64(s.in_w);
        a["in_c"] = i64(s.in_c);
        a["out_h"] = i64(s.out_h);
        a["out_w"] = i64(s.out_w);
        a["out_c"] = i64(s.out_c);
        a["kernel_h"] = i64(s.kernel_h);
        a["kernel_w"] = i64(s.kernel_w);
        a["stride_h"] = i64(s.stride_h);
        a["stride_w"] = i64(s.stride_w);
      }
      a["fp16"] = op.fp16;
      a["macs"] = i64(op.macs);
      break;
    case isa::Unit::Vector: a["elements"] = i64(cost::vector_elements(in)); break;
    case isa::Unit::Control: return;
  }
  a["sram_read"] = i64(op.sram_read_bytes);
  a["sram_written"] = i64(op.sram_write_bytes);
}

std::vector<CounterSample> TraceRecorder::bandwidth() const {
  struct Step {
    std::uint64_t cycle;
    double rate;  // bytes per cycle, + at start, - at end
    int active;
  };
  std::vector<Step> steps;
  steps.reserve(2 * transfers_.size());
  for (const Interval& t : transfers_) {
    if (t.end == t.start) continue;
    const double rate = static_cast<double>(t.bus_bytes) / static_cast<double>(t.end - t.start);
    steps.push_back({t.start, rate, 1});
    steps.push_back({t.end, -rate, -1});
  }
  std::stable_sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.cycle < b.cycle; });
  // bytes/cycle * cycles/us (= MHz) = bytes/us = 1e-3 GB/s
  const double gbps_per_byte_per_cycle = config_.clock.frequency_mhz * 1e-3;
  std::vector<CounterSample> out;
  out.reserve(steps.size() + 1);
  if (steps.empty() || steps.front().cycle > 0) out.push_back({0, 0.0});
  double rate = 0;
  int active = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    rate += steps[i].rate;
    active += steps[i].active;
    if (i + 1 < steps.size() && steps[i + 1].cycle == steps[i].cycle) continue;  // one sample per cycle
    if (active == 0) rate = 0;  // no rounding residue between bursts of activity
    const double gbps = rate * gbps_per_byte_per_cycle;
    if (!out.empty() && out.back().gbps == gbps) continue;  // e.g. one transfer ends as a like one starts
    out.push_back({steps[i].cycle, gbps});
  }
  return out;
}

void TraceRecorder::take(SimResult& r) {
  r.trace = std::move(events_);
  r.ddr_bandwidth = bandwidth();
}

}  // namespace npu::sim
