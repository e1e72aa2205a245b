// The NPU as SystemC/TLM-2.0 modules around the timing core (costmodel/machine): the DDR
// target, and per engine its scratchpad, its DMA engine's data path and its MAC array and
// vector unit kernels; one thread advances simulated time to each cycle the core names and
// moves the data of what happens then. Wiring, per engine e:
//   DmaEngine e .ddr_socket  -> DdrTarget (shared)
//   DmaEngine e .shared_socket -> SharedSramTarget (shared; 0 bytes without engines.shared_sram_kib)
//   DmaEngine e .sram_socket -> Scratchpad e (DMI; the MAC array and vector unit of e use it too)
// Timing-only runs move no data and give the same cycles: the core's timing never looks at it.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "costmodel/machine/machine.h"
#include "sim/busy_signals.h"
#include "sim/ddr_target.h"
#include "sim/dma_engine.h"
#include "sim/mac_array.h"
#include "sim/scratchpad.h"
#include "sim/shared_sram_target.h"
#include "sim/statistics.h"

namespace npu::sim {

class NpuTop : public sc_core::sc_module, private cost::MachineListener {
 public:
  // `plans`: one per engine (cost::plan_engines).
  NpuTop(sc_core::sc_module_name name, const isa::Program& program, const std::vector<cost::ProgramPlan>& plans,
         const HardwareConfig& config, const SimOptions& options, DdrImage& ddr_image);

  const DdrTarget& ddr() const { return ddr_; }
  const SharedSramTarget& shared_sram() const { return shared_; }
  cost::Machine& machine() { return machine_; }
  Statistics& stats() { return stats_; }
  const std::string& error() const { return error_; }  // first error raised while running

 private:
  void run();
  void instruction_started(const cost::PlannedOp& op, std::uint64_t cycle) override;
  void instruction_finished(const cost::PlannedOp& op, std::uint64_t start, std::uint64_t end, std::uint64_t stall,
                            std::uint64_t bank_conflict) override;
  void dma_issued(const cost::PlannedOp& op, std::uint64_t stall, std::uint64_t channel_wait) override;
  void transfer_started(const cost::DmaTransfer& t, std::uint64_t cycle) override;
  void transfer_finished(const cost::DmaTransfer& t, std::uint64_t start, std::uint64_t end,
                         const cost::DmaOutcome& outcome) override;
  void control(const cost::PlannedOp& op, std::uint64_t start, std::uint64_t end) override;
  void piece_granted(const cost::DmaTransfer& t, std::uint64_t ddr, std::uint64_t sram, std::uint64_t bytes) override;
  static std::vector<const cost::ProgramPlan*> pointers(const std::vector<cost::ProgramPlan>& plans);

  const isa::Program& program_;
  const SimOptions& options_;
  const MacArray mac_;
  DdrTarget ddr_;
  SharedSramTarget shared_;
  std::vector<std::unique_ptr<Scratchpad>> sram_;  // per engine
  std::vector<std::unique_ptr<DmaEngine>> dma_;    // per engine
  Statistics stats_;
  std::unique_ptr<BusySignals> signals_;  // VCD only
  cost::Machine machine_;
  std::string error_;
};

}  // namespace npu::sim
