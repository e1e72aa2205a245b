#include "sim/dma_engine.h"

#include <cstring>

#include <fmt/format.h>

#include "sim/scratchpad.h"
#include "sim/simulator.h"

namespace npu::sim {

DmaEngine::DmaEngine(sc_core::sc_module_name name)
    : sc_module(name), ddr_socket("ddr_socket"), sram_socket("sram_socket"), shared_socket("shared_socket") {}

std::uint8_t* DmaEngine::scratchpad() {
  if (!sram_asked_) {
    sram_ = scratchpad_pointer(sram_socket);
    sram_asked_ = true;
  }
  return sram_;
}

// A gather's piece arrives at its run's timing address (row i % rows, cost::DmaTransfer); the
// data comes from the row the run's index names.
std::uint64_t DmaEngine::gathered_row_address(const cost::DmaTransfer& t, std::uint64_t sram) const {
  const std::uint64_t into = sram - t.sram_addr;
  const std::uint64_t i = t.count1 == 1 ? 0 : into / t.sram_stride1;
  const std::uint64_t offset = into - i * t.sram_stride1;
  std::int32_t r;
  std::memcpy(&r, sram_ + t.index_addr + 4 * i, 4);
  const auto rows = static_cast<std::int64_t>(t.gather_rows);
  const std::int64_t row = r < 0 ? r + rows : r;
  if (row < 0 || row >= rows)
    throw SimError(fmt::format("{}: index {} of run {} is outside [{}, {}) (the table's rows)",
                               cost::instruction_label(t.index, isa::Opcode::Gather), r, i, -rows, rows));
  return t.ddr_addr + static_cast<std::uint64_t>(row) * t.ddr_stride1 + offset;
}

void DmaEngine::move(const cost::DmaTransfer& t, std::uint64_t ddr, std::uint64_t sram, std::uint64_t bytes) {
  scratchpad();
  if (t.gather_rows && sram_) ddr = gathered_row_address(t, sram);
  tlm::tlm_generic_payload& p = payload_;
  p.set_command(t.store ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  p.set_address(t.shared ? ddr - isa::kSharedSramBase : ddr);
  p.set_data_length(static_cast<unsigned>(bytes));
  p.set_streaming_width(static_cast<unsigned>(bytes));
  p.set_byte_enable_ptr(nullptr);
  p.set_dmi_allowed(false);
  p.set_data_ptr(sram_ ? sram_ + sram : nullptr);
  p.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  if (t.multicast_follower() && !t.shared) {
    // Another engine's transfer read these bytes from DDR; this copy only lands here.
    if (!sram_) return;
    if (ddr_socket->transport_dbg(p) != bytes) p.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    else p.set_response_status(tlm::TLM_OK_RESPONSE);
  } else {
    (t.shared ? shared_socket : ddr_socket)->b_transport(p, delay);
  }
  if (p.is_response_error())
    throw SimError(fmt::format("{}: {} access {:#x} + {} bytes failed ({})",
                               cost::instruction_label(t.index, t.gather_rows ? isa::Opcode::Gather : t.store ? isa::Opcode::Store : t.multicast_count > 1 ? isa::Opcode::MulticastLoad : isa::Opcode::Load), t.shared ? "shared SRAM" : "DDR", ddr,
                               bytes, p.get_response_string()));
}

}  // namespace npu::sim
