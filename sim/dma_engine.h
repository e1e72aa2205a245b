// The DMA engine's data path: moves each piece of a transfer between the DDR target, or the
// shared SRAM for an address in its window (TLM b_transport), and the scratchpad (its DMI pointer, one copy, as the hardware does) at the
// moment the timing core's bus arbiter grants it. When a piece moves is the core's business
// (costmodel/machine/dma_channels.h); in timing-only runs the payload carries no data pointer
// and only the DDR target's byte counters move.
#pragma once
#include <cstdint>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "costmodel/program_plan.h"

namespace npu::sim {

class DmaEngine : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<DmaEngine> ddr_socket;
  tlm_utils::simple_initiator_socket<DmaEngine> sram_socket;
  // The shared SRAM (sim/shared_sram_target.h), for transfers in its window (DmaTransfer::shared).
  tlm_utils::simple_initiator_socket<DmaEngine> shared_socket;

  explicit DmaEngine(sc_core::sc_module_name name);
  // `bytes` of transfer `t` between DDR `ddr` (or the shared SRAM there) and scratchpad `sram`;
  // SimError if the memory refuses.
  void move(const cost::DmaTransfer& t, std::uint64_t ddr, std::uint64_t sram, std::uint64_t bytes);
  // Its engine's scratchpad bytes (DMI), which the MAC array and vector unit work on; null in
  // timing-only runs.
  std::uint8_t* scratchpad();

 private:
  std::uint64_t gathered_row_address(const cost::DmaTransfer& t, std::uint64_t sram) const;
  tlm::tlm_generic_payload payload_;
  std::uint8_t* sram_ = nullptr;  // DMI pointer; null in timing-only runs
  bool sram_asked_ = false;
};

}  // namespace npu::sim
