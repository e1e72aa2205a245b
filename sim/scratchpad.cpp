#include "sim/scratchpad.h"

#include <cstring>

namespace npu::sim {

Scratchpad::Scratchpad(sc_core::sc_module_name name, const SramConfig& config, bool allocate)
    : sc_module(name), socket("socket"), capacity_(config.capacity_bytes) {
  if (allocate) storage_.assign(capacity_, 0);
  socket.register_b_transport(this, &Scratchpad::b_transport);
  socket.register_get_direct_mem_ptr(this, &Scratchpad::get_direct_mem_ptr);
  socket.register_transport_dbg(this, &Scratchpad::transport_dbg);
}

void Scratchpad::b_transport(int, tlm::tlm_generic_payload& p, sc_core::sc_time&) {
  transport_dbg(0, p);
}

unsigned Scratchpad::transport_dbg(int, tlm::tlm_generic_payload& p) {
  const std::uint64_t addr = p.get_address(), len = p.get_data_length();
  if (addr > capacity_ || len > capacity_ - addr) {
    p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return 0;
  }
  if (p.get_data_ptr() && !storage_.empty()) {
    if (p.is_read())
      std::memcpy(p.get_data_ptr(), storage_.data() + addr, len);
    else
      std::memcpy(storage_.data() + addr, p.get_data_ptr(), len);
  }
  p.set_response_status(tlm::TLM_OK_RESPONSE);
  return static_cast<unsigned>(len);
}

bool Scratchpad::get_direct_mem_ptr(int, tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
  if (storage_.empty()) return false;
  dmi.set_dmi_ptr(storage_.data());
  dmi.set_start_address(0);
  dmi.set_end_address(capacity_ - 1);
  dmi.allow_read_write();
  dmi.set_read_latency(sc_core::SC_ZERO_TIME);
  dmi.set_write_latency(sc_core::SC_ZERO_TIME);
  return true;
}

}  // namespace npu::sim
