// DDR as a TLM-2.0 target for data: the caller's DdrImage, one b_transport per piece of a DMA
// run, zero delay. Timing is not in the transport: the timing core's bus arbiter hands chunks
// to the configured DDR timing model (costmodel/ddr) in the order it grants them, because with
// several transfers sharing the bus a chunk's time depends on what the others do while it
// runs, which a blocking transport issued per run cannot see. A payload with a null data
// pointer is a timing-only probe: counters as usual, no data moved (internal sockets only, a
// deliberate departure from the base protocol that keeps timing-only runs identical and cheap).
#pragma once
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "hwconfig/hardware_config.h"

namespace npu::sim {

class DdrImage;

class DdrTarget : public sc_core::sc_module {
 public:
  // Every engine's DMA engine binds here.
  tlm_utils::multi_passthrough_target_socket<DdrTarget> socket;

  DdrTarget(sc_core::sc_module_name name, const HardwareConfig& config, DdrImage& image);

  std::uint64_t bytes_read() const { return bytes_read_; }
  std::uint64_t bytes_written() const { return bytes_written_; }

 private:
  void b_transport(int id, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  // Debug access, not counted: the copies of an mload other engines receive (the group's first
  // engine's transfer read the bytes from DDR once, through b_transport).
  unsigned int transport_dbg(int id, tlm::tlm_generic_payload& payload);

  DdrImage& image_;
  std::uint64_t capacity_;
  std::uint64_t bytes_read_ = 0, bytes_written_ = 0;
};

}  // namespace npu::sim
