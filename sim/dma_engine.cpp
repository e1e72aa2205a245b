#include "sim/dma_engine.h"

#include <fmt/format.h>

#include "sim/scratchpad.h"
#include "sim/simulator.h"

namespace npu::sim {

DmaEngine::DmaEngine(sc_core::sc_module_name name)
    : sc_module(name), ddr_socket("ddr_socket"), sram_socket("sram_socket") {}

std::uint8_t* DmaEngine::scratchpad() {
  if (!sram_asked_) {
    sram_ = scratchpad_pointer(sram_socket);
    sram_asked_ = true;
  }
  return sram_;
}

void DmaEngine::move(const cost::DmaTransfer& t, std::uint64_t ddr, std::uint64_t sram, std::uint64_t bytes) {
  scratchpad();
  tlm::tlm_generic_payload& p = payload_;
  p.set_command(t.store ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  p.set_address(ddr);
  p.set_data_length(static_cast<unsigned>(bytes));
  p.set_streaming_width(static_cast<unsigned>(bytes));
  p.set_byte_enable_ptr(nullptr);
  p.set_dmi_allowed(false);
  p.set_data_ptr(sram_ ? sram_ + sram : nullptr);
  p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  ddr_socket->b_transport(p, delay);
  if (p.is_response_error())
    throw SimError(fmt::format("{}: DDR access {:#x} + {} bytes failed ({})",
                               cost::instruction_label(t.index, t.store ? isa::Opcode::Store : isa::Opcode::Load), ddr,
                               bytes, p.get_response_string()));
}

}  // namespace npu::sim
