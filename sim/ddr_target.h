// DDR as a TLM-2.0 target: timing from the configured DdrTimingModel, data from the
// caller's DdrImage. One b_transport per contiguous DMA run; the annotated delay goes in as
// the request's offset from now and comes back as the offset at which its last byte arrives
// (whole cycles, rounded up). A payload with a null data pointer is a timing-only probe:
// timing and counters as usual, no data moved (internal sockets only, a deliberate
// departure from the base protocol that keeps timing-only runs identical and cheap).
#pragma once
#include <memory>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "hwconfig/hardware_config.h"
#include "sim/ddr_model.h"

namespace npu::sim {

class DdrImage;

class DdrTarget : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<DdrTarget> socket;

  DdrTarget(sc_core::sc_module_name name, const HardwareConfig& config, DdrImage& image);

  std::uint64_t bytes_read() const { return bytes_read_; }
  std::uint64_t bytes_written() const { return bytes_written_; }
  const DdrTimingModel& model() const { return *model_; }

 private:
  void b_transport(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);

  DdrImage& image_;
  std::unique_ptr<DdrTimingModel> model_;
  double cycle_ns_;
  std::uint64_t capacity_;
  std::uint64_t bytes_read_ = 0, bytes_written_ = 0;
};

}  // namespace npu::sim
