// DMA engine: `dma.channels` independent channels shared by the load and store units.
// A unit hands a transfer to channel (channel field % channels) and waits only while that
// channel is busy; channels run concurrently and compete for DDR only through the DDR model.
//
// Transfer time (cycles), measured from the moment the channel starts it:
//   setup_cycles + max(ddr_cycles, sram_cycles) + bounce_cycles
//   ddr_cycles   = latest arrival over the transfer's runs, from the DDR target (each run is
//                  one b_transport issued at start + setup; rounded up to whole cycles)
//   sram_cycles  = ceil(bytes / sram.port_bytes_per_cycle)
//   bounce       = bounce_setup_cycles + ceil(bytes / bounce_bytes_per_cycle) when any run's
//                  DDR address is not a multiple of dma.min_alignment_bytes, else 0
// The copy into the scratchpad goes straight through its DMI pointer (one copy, as the
// hardware does); timing-only runs pass a null data pointer (see ddr_target.h).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "sim/program_plan.h"

namespace npu::sim {

class DmaListener {
 public:
  virtual ~DmaListener() = default;
  virtual void transfer_started(const DmaTransfer& t, std::uint64_t start_cycle) = 0;
  virtual void transfer_finished(const DmaTransfer& t, std::uint64_t start_cycle, std::uint64_t end_cycle) = 0;
  virtual void process_failed(const std::string& message) = 0;
};

class DmaEngine : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<DmaEngine> ddr_socket;
  tlm_utils::simple_initiator_socket<DmaEngine> sram_socket;

  DmaEngine(sc_core::sc_module_name name, const HardwareConfig& config, DmaListener& listener);
  // Called from a unit's thread: waits while the transfer's channel is busy, then starts it.
  void submit(const DmaTransfer& t);

 private:
  struct Channel {
    const DmaTransfer* pending = nullptr;
    sc_core::sc_event start, freed;
    tlm::tlm_generic_payload payload;
  };
  void run_channel(std::size_t index);
  // Issues every run to DDR; returns the DDR arrival of the last byte, in cycles after start.
  std::uint64_t issue_runs(Channel& ch, const DmaTransfer& t);

  DmaListener& listener_;
  std::uint64_t setup_cycles_;
  DmaConfig dma_;
  std::vector<std::unique_ptr<Channel>> channels_;
  std::uint8_t* sram_ = nullptr;  // DMI pointer; null in timing-only runs
  bool sram_asked_ = false;
};

}  // namespace npu::sim
