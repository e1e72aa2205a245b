#include "sim/shared_sram_target.h"

#include <cstring>

namespace npu::sim {

SharedSramTarget::SharedSramTarget(sc_core::sc_module_name name, const HardwareConfig& config, bool allocate)
    : sc_module(name), socket("socket"), capacity_(config.engines.shared_sram_bytes) {
  if (allocate) storage_.assign(capacity_, 0);
  socket.register_b_transport(this, &SharedSramTarget::b_transport);
}

void SharedSramTarget::b_transport(int, tlm::tlm_generic_payload& p, sc_core::sc_time&) {
  const std::uint64_t addr = p.get_address(), len = p.get_data_length();
  if (addr > capacity_ || len > capacity_ - addr) {
    p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  const bool write = p.is_write();
  if (unsigned char* data = p.get_data_ptr(); data && !storage_.empty()) {
    if (write)
      std::memcpy(storage_.data() + addr, data, len);
    else
      std::memcpy(data, storage_.data() + addr, len);
  }
  (write ? bytes_written_ : bytes_read_) += len;
  p.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace npu::sim
