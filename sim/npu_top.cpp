#include "sim/npu_top.h"

#include "sim/sim_time.h"
#include "sim/simulator.h"
#include "sim/thread_body.h"
#include "sim/vector_unit.h"

namespace npu::sim {

std::vector<const cost::ProgramPlan*> NpuTop::pointers(const std::vector<cost::ProgramPlan>& plans) {
  std::vector<const cost::ProgramPlan*> out;
  for (const auto& p : plans) out.push_back(&p);
  return out;
}

NpuTop::NpuTop(sc_core::sc_module_name name, const isa::Program& program, const std::vector<cost::ProgramPlan>& plans,
               const HardwareConfig& config, const SimOptions& options, DdrImage& ddr_image)
    : sc_module(name),
      program_(program),
      options_(options),
      mac_(config),
      ddr_("ddr", config, ddr_image),
      shared_("shared_sram", config, !options.timing_only),
      stats_(program, plans, config, options),
      machine_(pointers(plans), config, this, cost::MachineOptions{options.record_instructions, false}) {
  for (std::size_t e = 0; e < plans.size(); ++e) {
    const std::string suffix = plans.size() > 1 ? std::to_string(e) : "";
    sram_.push_back(std::make_unique<Scratchpad>(("sram" + suffix).c_str(), config.sram, !options.timing_only));
    dma_.push_back(std::make_unique<DmaEngine>(("dma" + suffix).c_str()));
    dma_.back()->ddr_socket.bind(ddr_.socket);
    dma_.back()->sram_socket.bind(sram_.back()->socket);
    dma_.back()->shared_socket.bind(shared_.socket);
  }
  if (!options.vcd_path.empty())
    signals_ = std::make_unique<BusySignals>("busy", static_cast<int>(plans.size()), config.dma.channels, options.vcd_path);
  SC_HAS_PROCESS(NpuTop);
  SC_THREAD(run);
  set_stack_size(512 * 1024);  // functional kernels run on this thread's stack
}

// Each cycle the core names: advance SystemC time to it, then let the core handle it (the
// listener calls below move the data at that time).
void NpuTop::run() {
  run_thread_body([&] {
    while (auto cycle = machine_.next_cycle()) {
      const std::uint64_t now = now_cycles();
      if (*cycle > now) sc_core::wait(cycles(*cycle - now));
      machine_.run_at(*cycle);
    }
    // sc_stop() ends the run before the kernel traces the current time step: give the VCD one
    // more cycle so the final busy-signal values reach the file (nothing else is left to run).
    if (signals_) sc_core::wait(cycles(1));
    sc_core::sc_stop();
  }, [this](const char* what) {
    if (error_.empty()) error_ = what;
    sc_core::sc_stop();
  });
}

void NpuTop::instruction_started(const cost::PlannedOp& op, std::uint64_t) {
  if (signals_) signals_->unit(op.engine, op.unit, true);
  if (options_.timing_only) return;
  std::uint8_t* sram = dma_[op.engine]->scratchpad();
  const isa::Instruction& inst = program_.code[op.index];
  try {
    if (op.unit == isa::Unit::Compute)
      mac_.execute(inst, sram);
    else
      execute_vector(inst, sram);
  } catch (const SimError& e) {
    throw SimError(cost::instruction_label(op.index, op.opcode) + ": " + e.what());
  }
}

void NpuTop::instruction_finished(const cost::PlannedOp& op, std::uint64_t start, std::uint64_t end,
                                  std::uint64_t stall, std::uint64_t bank_conflict) {
  if (signals_) signals_->unit(op.engine, op.unit, false);
  stats_.executed(op, start, end, stall, bank_conflict);
}

void NpuTop::dma_issued(const cost::PlannedOp& op, std::uint64_t stall, std::uint64_t channel_wait) {
  stats_.dma_issued(op, stall, channel_wait);
}

void NpuTop::transfer_started(const cost::DmaTransfer& t, std::uint64_t cycle) {
  stats_.transfer_started(t, cycle);
  if (signals_) {
    signals_->unit(t.engine, t.store ? isa::Unit::Store : isa::Unit::Load, true);
    signals_->channel(t.engine, t.channel, true);
  }
}

void NpuTop::transfer_finished(const cost::DmaTransfer& t, std::uint64_t start, std::uint64_t end,
                               const cost::DmaOutcome& outcome) {
  stats_.transfer_finished(t, start, end, outcome);
  if (signals_) {
    signals_->unit(t.engine, t.store ? isa::Unit::Store : isa::Unit::Load, false);
    signals_->channel(t.engine, t.channel, false);
  }
}

void NpuTop::control(const cost::PlannedOp& op, std::uint64_t start, std::uint64_t end) {
  stats_.control(op, start, end);
}

void NpuTop::piece_granted(const cost::DmaTransfer& t, std::uint64_t ddr, std::uint64_t sram, std::uint64_t bytes) {
  dma_[t.engine]->move(t, ddr, sram, bytes);
}

}  // namespace npu::sim
