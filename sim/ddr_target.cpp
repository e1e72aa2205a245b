#include "sim/ddr_target.h"

#include "sim/simulator.h"

namespace npu::sim {

DdrTarget::DdrTarget(sc_core::sc_module_name name, const HardwareConfig& config, DdrImage& image)
    : sc_module(name),
      socket("socket"),
      image_(image),
      capacity_(config.ddr.capacity_bytes) {
  socket.register_b_transport(this, &DdrTarget::b_transport);
  socket.register_transport_dbg(this, &DdrTarget::transport_dbg);
}

unsigned int DdrTarget::transport_dbg(int, tlm::tlm_generic_payload& p) {
  const std::uint64_t addr = p.get_address(), len = p.get_data_length();
  if (addr > capacity_ || len > capacity_ - addr || !p.get_data_ptr()) return 0;
  if (p.is_write())
    image_.write(addr, p.get_data_ptr(), len);
  else
    image_.read(addr, p.get_data_ptr(), len);
  return static_cast<unsigned int>(len);
}

void DdrTarget::b_transport(int, tlm::tlm_generic_payload& p, sc_core::sc_time&) {
  const std::uint64_t addr = p.get_address(), len = p.get_data_length();
  if (addr > capacity_ || len > capacity_ - addr) {
    p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  const bool write = p.is_write();
  if (unsigned char* data = p.get_data_ptr()) {
    if (write)
      image_.write(addr, data, len);
    else
      image_.read(addr, data, len);
  }
  (write ? bytes_written_ : bytes_read_) += len;
  p.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace npu::sim
