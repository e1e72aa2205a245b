// The on-chip SRAM scratchpad as a TLM-2.0 target. The DMA engine, the MAC array and the
// vector unit all bind to it and take a DMI pointer, so operands move without copies.
// Timing lives with the initiators (DMA: port bytes per cycle; MAC array and vector unit:
// their per-instruction formulas). In timing-only runs no storage is allocated and DMI is
// refused: nothing touches data.
#pragma once
#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "hwconfig/hardware_config.h"

namespace npu::sim {

class Scratchpad : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<Scratchpad> socket;

  Scratchpad(sc_core::sc_module_name name, const SramConfig& config, bool allocate);
  std::uint64_t capacity_bytes() const { return capacity_; }

 private:
  void b_transport(int id, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload& payload, tlm::tlm_dmi& dmi);
  unsigned transport_dbg(int id, tlm::tlm_generic_payload& payload);

  std::uint64_t capacity_;
  std::vector<std::uint8_t> storage_;
};

// Asks `socket`'s target for a DMI pointer covering address 0 (the whole scratchpad);
// nullptr in timing-only runs.
template <typename Socket>
std::uint8_t* scratchpad_pointer(Socket& socket) {
  tlm::tlm_generic_payload p;
  tlm::tlm_dmi dmi;
  p.set_address(0);
  p.set_command(tlm::TLM_WRITE_COMMAND);
  if (!socket->get_direct_mem_ptr(p, dmi)) return nullptr;
  return dmi.get_dmi_ptr();
}

}  // namespace npu::sim
