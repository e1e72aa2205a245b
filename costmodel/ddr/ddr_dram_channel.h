// One DRAM channel's controller for the command-level model (ddr.model: dram): a request
// queue (dram.queue_depth visible to the scheduler; requests admitted beyond it wait in
// order), one DramBank per bank, the channel-wide JEDEC constraints, all-bank refresh every
// tREFI, and the scheduler (ddr_dram_scheduler.h). Commands are computed one at a time at the
// earliest time they may issue (an event per command, no clock ticks):
//   ACT  needs the bank closed and ready (tRC, tRP), tRRD_S/L since the last ACT, and at
//        most four ACTs in any tFAW;
//   PRE  needs the bank's tRAS/tRTP/tWR; under the open-page policy a row is not closed
//        while a queued request still hits it;
//   RD/WR needs tRCD, tCCD_S/L since the last RD/WR, tWTR_S/L after write data before a RD,
//        tRTW after a RD before a WR, and a free data bus when its data would start;
//   every command waits for the command bus (act/cas/pre_cmd_ns of the standard) and any
//   refresh in progress. Refresh: when a refresh is due and no command could issue before
//   it, all open banks are precharged (PREA, tRP) and REF blocks the channel for tRFC.
// Closed-page policy: a RD/WR auto-precharges its bank unless a queued request hits the row.
#pragma once
#include <cstdint>
#include <deque>
#include <vector>

#include "hwconfig/dram_standards.h"
#include "hwconfig/hardware_config.h"
#include "costmodel/ddr/ddr_dram_bank.h"
#include "costmodel/ddr/ddr_dram_scheduler.h"
#include "costmodel/ddr/ddr_counters.h"
#include "costmodel/timing_error.h"

namespace npu::cost {

struct DramRequest {
  std::uint64_t row = 0;
  std::uint32_t bank = 0, group = 0;
  bool write = false;
  double arrival_ns = 0;
  std::uint64_t age = 0;
  std::uint32_t transfer = 0;
  bool activated = false;  // needed an ACT (a row miss)
};

// Results per DMA transfer, collected across channels.
class DramLedger {
 public:
  struct Entry {
    std::uint32_t transfer = 0;
    std::uint64_t pending = 0;
    double last_data_ns = 0;
    std::uint64_t hits = 0, misses = 0;
    double turnaround_ns = 0;
  };
  Entry& at(std::uint32_t transfer);
  void erase(std::uint32_t transfer);

 private:
  std::vector<Entry> entries_;  // transfers in flight: a handful
};

class DramChannel {
 public:
  DramChannel(const DramStandard& standard, const DramConfig& config, const DramScheduler& scheduler,
              double host_share, DdrCounters& counters, DramLedger& ledger);
  void admit(const DramRequest& r);
  std::size_t pending() const { return queued_ + backlog_.size(); }
  // Issues commands until at most `room` requests are pending; returns when the last RD/WR
  // that got it there issued (or `not_before` when nothing had to issue).
  double run_until_pending(std::size_t room, double not_before);
  // Issues commands until no request of `transfer` is pending.
  void run_until_done(std::uint32_t transfer);
  // Accounts refreshes due up to `end_ns` and closes the busy intervals.
  void finish(double end_ns);

 private:
  enum class Command { Act, Pre, Cas };
  // The queue: dram.queue_depth slots, each bank's requests linked oldest first (the
  // scheduler only ever needs a bank's oldest request, or its oldest row hit).
  struct Slot {
    DramRequest request;
    int next = -1;
  };
  struct BankQueue {
    int head = -1, tail = -1;
  };
  void enqueue(const DramRequest& r);
  void unlink(std::uint32_t bank, int slot);
  void step();
  void refresh();
  void issue(int slot, Command command, double t);
  // Earliest RD/WR for `r` (its row open); `turnaround`: with the tRTW / tWTR constraints.
  double cas_ready(const DramRequest& r, bool turnaround = true) const;
  double act_ready(const DramRequest& r) const;
  // Busy-time bookkeeping for bank-level parallelism: [start, end) on bank `bank`.
  void busy(std::uint32_t bank, double start, double end);

  const DramStandard& s_;
  const DramScheduler& scheduler_;
  bool closed_page_;
  std::size_t depth_;
  double host_stretch_;  // extra data-bus time per burst taken by other agents
  DdrCounters& counters_;
  DramLedger& ledger_;

  std::vector<DramBank> banks_;
  std::vector<Slot> slots_;
  std::vector<int> free_slots_;
  std::vector<BankQueue> bank_queue_;
  std::size_t queued_ = 0;
  std::deque<DramRequest> backlog_;  // admitted beyond the queue depth, in order
  std::vector<std::pair<std::uint32_t, std::uint64_t>> pending_of_;  // transfer -> requests here

  double now_ = 0;            // time of the last command issued
  double cmd_free_ = 0;       // command bus
  double data_free_ = 0;      // end of the last data burst
  bool have_cas_ = false, last_write_ = false;
  std::uint32_t last_cas_group_ = 0;
  double last_cas_ = 0, last_read_cas_ = -1e300, last_write_end_ = -1e300;
  std::uint32_t last_write_group_ = 0;
  double last_act_ = -1e300;
  std::uint32_t last_act_group_ = 0;
  double faw_[4] = {-1e300, -1e300, -1e300, -1e300};  // last four ACTs, oldest first
  double next_refresh_ns_;
  double refresh_end_ = 0;
  // Busy intervals being merged: the channel's and each bank's.
  double active_from_ = 0, active_to_ = -1;
  std::vector<double> bank_from_, bank_to_;
  std::vector<DramCandidate> candidates_;
  std::vector<Command> commands_;
  std::vector<int> picks_;
};

}  // namespace npu::cost
