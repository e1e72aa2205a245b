// The NPU: controller, four units, DMA engine, MAC array, scratchpad and the DDR target,
// wired with TLM-2.0 sockets:
//   DmaEngine.ddr_socket  -> DdrTarget
//   DmaEngine.sram_socket -> Scratchpad  (DMI)
//   compute/vector/load/store .sram_socket -> Scratchpad (DMI for compute and vector)
#pragma once
#include <memory>

#include <systemc>

#include "sim/busy_signals.h"
#include "sim/controller.h"
#include "sim/ddr_target.h"
#include "sim/dma_engine.h"
#include "sim/execution_unit.h"
#include "sim/mac_array.h"
#include "sim/run_state.h"
#include "sim/scratchpad.h"

namespace npu::sim {

class NpuTop : public sc_core::sc_module, private DmaListener {
 public:
  NpuTop(sc_core::sc_module_name name, RunState& state, const MacArray& mac, DdrImage& ddr_image);

  const DdrTarget& ddr() const { return ddr_; }
  DdrTarget& ddr() { return ddr_; }

 private:
  void transfer_started(const DmaTransfer& t, std::uint64_t start_cycle) override;
  void transfer_finished(const DmaTransfer& t, std::uint64_t start_cycle, std::uint64_t end_cycle,
                         const DmaOutcome& outcome) override;
  void transfer_retired(const DmaTransfer& t) override;
  void process_failed(const std::string& message) override;

  RunState& state_;
  DdrTarget ddr_;
  Scratchpad sram_;
  DmaEngine dma_;
  Controller controller_;
  ExecutionUnit load_, compute_, vector_, store_;
  std::unique_ptr<BusySignals> signals_;  // VCD only
};

}  // namespace npu::sim
