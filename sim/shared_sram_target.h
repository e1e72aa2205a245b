// The on-chip memory the engines share (engines.shared_sram_kib) as a TLM-2.0 target: every
// engine's DMA engine binds here and reaches it at the ISA's window (isa::kSharedSramBase;
// addresses arrive here relative to it). Like DdrTarget it carries data and byte counters and
// no timing (the timing core's shared-SRAM arbiter decides when a piece moves); a payload
// with a null data pointer is a timing-only probe. Storage exists only in functional runs and
// starts zeroed each run: a value lives here within one NPU step.
#pragma once
#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "hwconfig/hardware_config.h"

namespace npu::sim {

class SharedSramTarget : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<SharedSramTarget> socket;

  SharedSramTarget(sc_core::sc_module_name name, const HardwareConfig& config, bool allocate);

  std::uint64_t bytes_read() const { return bytes_read_; }
  std::uint64_t bytes_written() const { return bytes_written_; }

 private:
  void b_transport(int id, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);

  std::uint64_t capacity_;
  std::vector<std::uint8_t> storage_;
  std::uint64_t bytes_read_ = 0, bytes_written_ = 0;
};

}  // namespace npu::sim
