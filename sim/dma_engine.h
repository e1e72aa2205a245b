// DMA engine: `dma.channels` channels shared by the load and store units. A unit hands a
// transfer to channel (channel field % channels) and waits only while that channel is busy.
// A running transfer has two sides, each shared with the other channels' transfers by a
// DmaArbiter, chunk by chunk (dma.arbitration_bytes, dma.arbitration):
//   DDR side:  its chunks go to the DDR timing model in the order the bus arbiter grants them;
//   SRAM side: its chunks use the scratchpad's one DMA port, ceil(bytes / port_bytes_per_cycle)
//              cycles each (cumulative, so a lone transfer takes ceil(bytes / port) in all),
//              plus the bank-conflict stall of each chunk (scratchpad_banks.h).
// Transfer time (cycles), from the moment its channel starts it (request = start + setup):
//   setup_cycles + max(ddr_cycles, sram_cycles) + bounce_cycles
//   ddr_cycles   = ceil(last chunk's arrival - request) (the DDR model works in ns)
//   sram_cycles  = last SRAM-side chunk's end - request
//   bounce       = bounce_setup_cycles + ceil(bytes / bounce_bytes_per_cycle) when any run's
//                  DDR address is not a multiple of dma.min_alignment_bytes, else 0
// dma.channel_queue: serial, a channel takes its next transfer when the one before has
// finished; pipelined, the next one's setup runs while the one before moves data and its
// request follows the one before's last granted chunk (request = max(start + setup, that)),
// so a stream of transfers pays setup and latency once; its time counts from the request:
//   request - start - setup (the wait) + setup_cycles + max(ddr_cycles, sram_cycles) + bounce
// Transfers of one unit (load or store) may run on several channels at once and finish out of
// order; they retire (give their tokens) in the order the unit issued them, so a token from a
// transfer also says every earlier transfer of its unit is done (compiler/backend/dependency_tokens.h
// relies on it). With one channel per unit, retiring is finishing.
// On an idle machine this is the closed form of costmodel/dma_cost.h. Data moves through the
// DDR target's TLM socket when a chunk is granted the bus, straight into the scratchpad's DMI
// pointer (one copy, as the hardware does); timing-only runs pass a null data pointer.
#pragma once
#include "sim/scratchpad_banks.h"
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "sim/dma_arbiter.h"
#include "sim/program_plan.h"

namespace npu::sim {

class DdrTimingModel;

// What a finished transfer met on the way (for per-instruction statistics).
struct DmaOutcome {
  std::uint64_t bank_conflict_cycles = 0;
  std::uint64_t row_hits = 0, row_misses = 0;
  double turnaround_cycles = 0;
};

class DmaListener {
 public:
  virtual ~DmaListener() = default;
  virtual void transfer_started(const DmaTransfer& t, std::uint64_t start_cycle) = 0;
  virtual void transfer_finished(const DmaTransfer& t, std::uint64_t start_cycle, std::uint64_t end_cycle,
                                 const DmaOutcome& outcome) = 0;
  // In issue order per unit: the transfer and every earlier one of its unit have finished.
  virtual void transfer_retired(const DmaTransfer& t) = 0;
  virtual void process_failed(const std::string& message) = 0;
};

class DmaEngine : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<DmaEngine> ddr_socket;
  tlm_utils::simple_initiator_socket<DmaEngine> sram_socket;

  DmaEngine(sc_core::sc_module_name name, const HardwareConfig& config, DmaListener& listener,
            DdrTimingModel& ddr_timing, ScratchpadBanks& banks);
  ~DmaEngine() override;
  // Called from a unit's thread: waits while the transfer's channel is busy, then starts it.
  void submit(const DmaTransfer& t);

 private:
  struct Channel;
  struct Flight;
  class DdrSide;
  class SramSide;
  void run_channel(std::size_t index);
  void run_serial_channel(std::size_t index);
  void finish_channel(std::size_t index);
  // Marks `t` finished and retires the finished transfers at the head of its unit's order.
  void retire_in_order(const DmaTransfer& t);
  // Moves a piece's data (functional runs) and counts it at the DDR target.
  void move_data(Channel& ch, const DmaTransfer& t, std::uint64_t ddr, std::uint64_t sram, std::uint64_t bytes);

  DmaListener& listener_;
  const HardwareConfig& config_;
  DdrTimingModel& ddr_timing_;
  ScratchpadBanks& banks_;
  DmaArbiter bus_, port_;
  std::vector<std::unique_ptr<Channel>> channels_;
  // Per direction (load, store): issued and not yet retired, in issue order, with finished flags.
  std::deque<std::pair<const DmaTransfer*, bool>> issued_[2];
  std::uint8_t* sram_ = nullptr;  // DMI pointer; null in timing-only runs
  bool sram_asked_ = false;
};

}  // namespace npu::sim
