// One engine's DMA channels (dma.channels, shared by its load and store units). A unit hands a
// transfer to channel (channel field % channels) when that channel accepts one. A running
// transfer has two sides, each shared with the other channels' transfers, chunk by chunk:
//   DDR side:  its chunks go to the DDR timing model in the order the bus arbiter grants them
//              (the shared SRAM's timing and arbiter for a transfer in its window);
//   SRAM side: its chunks use the scratchpad's DMA port, ceil(bytes / port_bytes_per_cycle)
//              cycles each (cumulative, so a lone transfer takes ceil(bytes / port) in all),
//              plus the bank-conflict stall of each chunk (scratchpad_banks.h).
// Transfer time (cycles), from the moment its channel starts it (request = start + setup):
//   setup_cycles + max(ddr_cycles, sram_cycles) + bounce_cycles      (dma_transfer_cycles)
//   ddr_cycles   = ceil(last chunk's arrival - request) (the DDR model works in ns)
//   sram_cycles  = last SRAM-side chunk's end - request
// dma.channel_queue: serial, a channel takes its next transfer when the one before has
// finished; pipelined, it takes the next one as soon as the one before has made its request,
// and that one requests once every chunk of the one before has been granted
// (request = max(start + setup, that)), so a stream of transfers pays setup and latency once.
// Transfers of one unit may finish out of order on different channels; they retire (give
// their tokens) in the order the unit issued them (compiler/dependency_tokens.h relies on it).
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "costmodel/ddr/ddr_model.h"
#include "costmodel/machine/chunk_arbiter.h"
#include "costmodel/machine/instruction_timing.h"
#include "costmodel/program_plan.h"
#include "costmodel/scratchpad_banks.h"
#include "hwconfig/hardware_config.h"

namespace npu::cost {

class MachineListener;
class Multicasts;

class DmaChannels {
 public:
  // `retire` is called for each transfer once it and every earlier one of its unit are done.
  // The bus arbiter is shared with other engines: this engine's channels are its requesters
  // [bus_base, bus_base + channels).
  // `streaming`: the DDR model is the streaming approximation (MachineOptions::streaming_ddr):
  // chunks are cut from the transfer's byte counts without walking its runs, and no data moves.
  // A transfer into the shared SRAM window (DmaTransfer::shared) goes to `shared` through its
  // arbiter `shared_bus` (same requester numbers) instead: null without a shared SRAM.
  struct SharedSram {
    DdrTimingModel* timing = nullptr;
    ChunkArbiter* bus = nullptr;
  };
  DmaChannels(const HardwareConfig& config, const std::vector<PlannedOp>& ops, bool streaming,
              MachineListener& listener, DdrTimingModel& ddr, ChunkArbiter& bus, int bus_base, ScratchpadBanks& banks,
              std::function<void(const DmaTransfer&)> retire, SharedSram shared);
  // A copy of `other` for a forked machine (Machine::fork, which never forks one with a shared
  // SRAM): the same transfers in flight, now `transfers`' (the new plan's, at the indices
  // `other`'s had in `old_transfers`). The copy of the shared bus must then be rebind()-ed to
  // this one's streams.
  DmaChannels(const DmaChannels& other, const std::vector<PlannedOp>& ops, const std::vector<DmaTransfer>& old_transfers,
              const std::vector<DmaTransfer>& transfers, MachineListener& listener, DdrTimingModel& ddr, ChunkArbiter& bus,
              ScratchpadBanks& banks, std::function<void(const DmaTransfer&)> retire);
  void rebind(ChunkArbiter& bus) const;
  ~DmaChannels();

  bool accepting(std::uint32_t channel) const;
  void hand(const DmaTransfer& t);  // only when accepting(t.channel)
  // A follower's copy of an mload (multicasts.h): it takes no channel, retires in its unit's
  // order, and starts and finishes when the group's first engine's transfer does.
  void await(const DmaTransfer& t);
  void copy_started(const DmaTransfer& t, std::uint64_t now);
  void copy_finished(const DmaTransfer& t, std::uint64_t start, std::uint64_t now);
  // The leader's transfers of mloads report their start and end here (null: never multicast).
  void set_multicasts(Multicasts* multicasts) { multicasts_ = multicasts; }
  // Finishes, starts and requests what is due at `now`; whether anything happened.
  bool advance(std::uint64_t now);
  // The scratchpad port grants its chunks (after every request of `now` is in).
  bool grant_port(std::uint64_t now) { return port_.grant(now); }
  std::optional<std::uint64_t> next_cycle() const;
  // For deadlock reports: transfers handed over and not yet retired.
  bool idle() const;

 private:
  struct Flight;
  struct Channel;
  class DdrSide;
  class SramSide;
  std::uint64_t end_of(const Flight& f) const;
  void finished(const Flight& f, std::uint64_t now);
  void retire_in_order(const DmaTransfer& t);

  const HardwareConfig& config_;
  const std::vector<PlannedOp>& ops_;
  bool streaming_;
  MachineListener& listener_;
  DdrTimingModel& ddr_;
  ChunkArbiter& bus_;
  int bus_base_;
  SharedSram shared_;
  ScratchpadBanks& banks_;
  ChunkArbiter port_;
  bool pipelined_;
  std::function<void(const DmaTransfer&)> retire_;
  Multicasts* multicasts_ = nullptr;
  std::vector<std::unique_ptr<Channel>> channels_;
  // Per direction (load, store): handed over and not yet retired, in issue order, with finished flags.
  std::deque<std::pair<const DmaTransfer*, bool>> issued_[2];
  // A fork's copy: each stream of the original (and its completion) -> this one's copy of it.
  struct Copied {
    const ChunkStream* stream;
    const StreamCompletion* completion;
    ChunkStream* copy;
    StreamCompletion* copy_completion;
  };
  std::vector<Copied> copied_;
};

}  // namespace npu::cost
