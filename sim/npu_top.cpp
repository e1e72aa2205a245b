#include "sim/npu_top.h"

#include "sim/sim_time.h"
#include "sim/simulator.h"
#include "sim/thread_body.h"
#include "sim/vector_unit.h"

namespace npu::sim {

NpuTop::NpuTop(sc_core::sc_module_name name, const isa::Program& program, const cost::ProgramPlan& plan,
               const HardwareConfig& config, const SimOptions& options, DdrImage& ddr_image)
    : sc_module(name),
      sram_socket("sram_socket"),
      program_(program),
      options_(options),
      mac_(config),
      ddr_("ddr", config, ddr_image),
      sram_("sram", config.sram, !options.timing_only),
      dma_("dma"),
      stats_(program, plan, config, options),
      machine_(plan, config, this, cost::MachineOptions{options.record_instructions, false}) {
  dma_.ddr_socket.bind(ddr_.socket);
  dma_.sram_socket.bind(sram_.socket);
  sram_socket.bind(sram_.socket);
  if (!options.vcd_path.empty())
    signals_ = std::make_unique<BusySignals>("busy", config.dma.channels, options.vcd_path);
  SC_HAS_PROCESS(NpuTop);
  SC_THREAD(run);
  set_stack_size(512 * 1024);  // functional kernels run on this thread's stack
}

// Each cycle the core names: advance SystemC time to it, then let the core handle it (the
// listener calls below move the data at that time).
void NpuTop::run() {
  run_thread_body([&] {
    if (!options_.timing_only) sram_data_ = scratchpad_pointer(sram_socket);
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
  if (signals_) signals_->unit(op.unit, true);
  if (!sram_data_) return;
  const isa::Instruction& inst = program_.code[op.index];
  try {
    if (op.unit == isa::Unit::Compute)
      mac_.execute(inst, sram_data_);
    else
      execute_vector(inst, sram_data_);
  } catch (const SimError& e) {
    throw SimError(cost::instruction_label(op.index, op.opcode) + ": " + e.what());
  }
}

void NpuTop::instruction_finished(const cost::PlannedOp& op, std::uint64_t start, std::uint64_t end,
                                  std::uint64_t stall, std::uint64_t bank_conflict) {
  if (signals_) signals_->unit(op.unit, false);
  stats_.executed(op, start, end, stall, bank_conflict);
}

void NpuTop::dma_issued(const cost::PlannedOp& op, std::uint64_t stall, std::uint64_t channel_wait) {
  stats_.dma_issued(op, stall, channel_wait);
}

void NpuTop::transfer_started(const cost::DmaTransfer& t, std::uint64_t cycle) {
  stats_.transfer_started(t, cycle);
  if (signals_) {
    signals_->unit(t.store ? isa::Unit::Store : isa::Unit::Load, true);
    signals_->channel(t.channel, true);
  }
}

void NpuTop::transfer_finished(const cost::DmaTransfer& t, std::uint64_t start, std::uint64_t end,
                               const cost::DmaOutcome& outcome) {
  stats_.transfer_finished(t, start, end, outcome);
  if (signals_) {
    signals_->unit(t.store ? isa::Unit::Store : isa::Unit::Load, false);
    signals_->channel(t.channel, false);
  }
}

void NpuTop::control(const cost::PlannedOp& op, std::uint64_t start, std::uint64_t end) {
  stats_.control(op, start, end);
}

void NpuTop::piece_granted(const cost::DmaTransfer& t, std::uint64_t ddr, std::uint64_t sram, std::uint64_t bytes) {
  dma_.move(t, ddr, sram, bytes);
}

}  // namespace npu::sim
