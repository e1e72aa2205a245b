#include "costmodel/ddr/ddr_dram_channel.h"

#include <algorithm>

namespace npu::cost {

DramLedger::Entry& DramLedger::at(std::uint32_t transfer) {
  for (auto& e : entries_)
    if (e.transfer == transfer) return e;
  entries_.push_back(Entry{});
  entries_.back().transfer = transfer;
  return entries_.back();
}

void DramLedger::erase(std::uint32_t transfer) {
  entries_.erase(std::remove_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.transfer == transfer; }),
                 entries_.end());
}

DramChannel::DramChannel(const DramStandard& standard, const DramConfig& config, const DramScheduler& scheduler,
                         double host_share, DdrCounters& counters, DramLedger& ledger)
    : s_(standard),
      scheduler_(scheduler),
      closed_page_(config.page_policy == DramPagePolicy::Closed),
      depth_(static_cast<std::size_t>(std::max(1, config.queue_depth))),
      host_stretch_(standard.tBURST() * host_share / (1.0 - host_share)),
      counters_(counters),
      ledger_(ledger),
      banks_(static_cast<std::size_t>(standard.banks)),
      slots_(depth_),
      bank_queue_(banks_.size()),
      next_refresh_ns_(standard.tREFI),
      bank_from_(banks_.size(), 0.0),
      bank_to_(banks_.size(), -1.0) {
  for (int i = static_cast<int>(depth_) - 1; i >= 0; --i) free_slots_.push_back(i);
}

void DramChannel::enqueue(const DramRequest& r) {
  const int slot = free_slots_.back();
  free_slots_.pop_back();
  slots_[static_cast<std::size_t>(slot)] = Slot{r, -1};
  BankQueue& q = bank_queue_[r.bank];
  if (q.tail >= 0)
    slots_[static_cast<std::size_t>(q.tail)].next = slot;
  else
    q.head = slot;
  q.tail = slot;
  ++queued_;
}

void DramChannel::unlink(std::uint32_t bank, int slot) {
  BankQueue& q = bank_queue_[bank];
  int prev = -1;
  for (int i = q.head; i != slot; i = slots_[static_cast<std::size_t>(i)].next) prev = i;
  const int next = slots_[static_cast<std::size_t>(slot)].next;
  (prev >= 0 ? slots_[static_cast<std::size_t>(prev)].next : q.head) = next;
  if (q.tail == slot) q.tail = prev;
  free_slots_.push_back(slot);
  --queued_;
}

void DramChannel::admit(const DramRequest& r) {
  if (queued_ < depth_)
    enqueue(r);
  else
    backlog_.push_back(r);
  for (auto& [transfer, n] : pending_of_)
    if (transfer == r.transfer) {
      ++n;
      return;
    }
  pending_of_.emplace_back(r.transfer, 1);
}

double DramChannel::run_until_pending(std::size_t room, double not_before) {
  bool issued = false;
  while (pending() > room) {
    step();
    issued = true;
  }
  return issued ? std::max(not_before, last_cas_) : not_before;
}

void DramChannel::run_until_done(std::uint32_t transfer) {
  for (;;) {
    auto it = std::find_if(pending_of_.begin(), pending_of_.end(), [&](const auto& p) { return p.first == transfer; });
    if (it == pending_of_.end()) return;
    step();
  }
}

double DramChannel::cas_ready(const DramRequest& r, bool turnaround) const {
  double t = banks_[r.bank].cas_ready();
  if (have_cas_) t = std::max(t, last_cas_ + (r.group == last_cas_group_ ? s_.tCCD_L : s_.tCCD_S));
  if (turnaround) {
    if (r.write)
      t = std::max(t, last_read_cas_ + s_.tRTW);
    else
      t = std::max(t, last_write_end_ + (r.group == last_write_group_ ? s_.tWTR_L : s_.tWTR_S));
  }
  // Its data may not start before the previous burst's has left the bus.
  return std::max({t, data_free_ - (r.write ? s_.tCWL : s_.tCL), r.arrival_ns, cmd_free_, now_, refresh_end_});
}

double DramChannel::act_ready(const DramRequest& r) const {
  double t = banks_[r.bank].act_ready();
  t = std::max(t, last_act_ + (r.group == last_act_group_ ? s_.tRRD_L : s_.tRRD_S));
  return std::max(t, faw_[0] + s_.tFAW);
}

void DramChannel::step() {
  // One candidate per bank with requests: among a bank's requests the oldest row hit (its
  // RD/WR), else the oldest (PRE or ACT) can issue earliest, so FR-FCFS over all queued
  // requests picks among these. A row with a queued hit is never closed for a miss.
  candidates_.clear();
  commands_.clear();
  picks_.clear();
  const bool reorders = scheduler_.reorders();
  std::uint32_t only_bank = 0;
  if (!reorders) {
    std::uint64_t oldest = ~0ull;
    for (std::uint32_t b = 0; b < banks_.size(); ++b) {
      const int h = bank_queue_[b].head;
      if (h >= 0 && slots_[static_cast<std::size_t>(h)].request.age < oldest) {
        oldest = slots_[static_cast<std::size_t>(h)].request.age;
        only_bank = b;
      }
    }
  }
  for (std::uint32_t b = reorders ? 0 : only_bank; b < (reorders ? banks_.size() : only_bank + 1); ++b) {
    const int head = bank_queue_[b].head;
    if (head < 0) continue;
    const DramBank& bank = banks_[b];
    int pick = head;
    Command c;
    double t;
    if (bank.open_row() == DramBank::kClosed) {
      c = Command::Act;
      t = act_ready(slots_[static_cast<std::size_t>(head)].request);
    } else {
      int hit = -1;
      if (reorders) {
        for (int i = head; i >= 0; i = slots_[static_cast<std::size_t>(i)].next)
          if (static_cast<std::int64_t>(slots_[static_cast<std::size_t>(i)].request.row) == bank.open_row()) {
            hit = i;
            break;
          }
      } else if (static_cast<std::int64_t>(slots_[static_cast<std::size_t>(head)].request.row) == bank.open_row()) {
        hit = head;
      }
      if (hit >= 0) {
        pick = hit;
        c = Command::Cas;
        t = cas_ready(slots_[static_cast<std::size_t>(hit)].request);
      } else {
        c = Command::Pre;
        t = bank.pre_ready();
      }
    }
    const DramRequest& r = slots_[static_cast<std::size_t>(pick)].request;
    t = std::max({t, r.arrival_ns, cmd_free_, now_, refresh_end_});
    candidates_.push_back({t, c == Command::Cas, r.age});
    commands_.push_back(c);
    picks_.push_back(pick);
  }
  const std::size_t pick = reorders ? scheduler_.pick(candidates_) : 0;
  const double t = candidates_[pick].time;
  if (next_refresh_ns_ <= t) {
    refresh();
    return;
  }
  issue(picks_[pick], commands_[pick], t);
}

void DramChannel::refresh() {
  const double due = std::max({next_refresh_ns_, now_, cmd_free_, refresh_end_});
  double pre = due;
  bool any_open = false;
  for (const auto& b : banks_)
    if (b.open_row() != DramBank::kClosed) {
      any_open = true;
      pre = std::max(pre, b.pre_ready());
    }
  const double ref = any_open ? pre + s_.tRP : due;  // PREA first when a row is open
  refresh_end_ = ref + s_.tRFC;
  for (auto& b : banks_) b.refreshed(refresh_end_);
  cmd_free_ = std::max(cmd_free_, refresh_end_);
  now_ = ref;
  next_refresh_ns_ += s_.tREFI;
  ++counters_.refreshes;
  counters_.refresh_ns += s_.tRFC;
}

void DramChannel::issue(int slot, Command command, double t) {
  DramRequest& r = slots_[static_cast<std::size_t>(slot)].request;
  DramBank& b = banks_[r.bank];
  // Turnaround: how much later a RD/WR after the other direction issues than it could
  // without tRTW / tWTR (read before the state below changes).
  const double turnaround = command == Command::Cas && have_cas_ && last_write_ != r.write
                                ? std::max(0.0, t - cas_ready(r, false))
                                : 0.0;
  now_ = t;
  switch (command) {
    case Command::Act:
      b.activate(t, r.row, s_);
      r.activated = true;
      last_act_ = t;
      last_act_group_ = r.group;
      std::rotate(faw_, faw_ + 1, faw_ + 4);
      faw_[3] = t;
      cmd_free_ = t + s_.act_cmd_ns;
      busy(r.bank, t, t + s_.tRCD);
      return;
    case Command::Pre:
      b.precharge(t, s_);
      ++counters_.row_conflicts;
      cmd_free_ = t + s_.pre_cmd_ns;
      busy(r.bank, t, t + s_.tRP);
      return;
    case Command::Cas: break;
  }
  const double data_start = t + (r.write ? s_.tCWL : s_.tCL);
  const double data_end = data_start + s_.tBURST();
  DramLedger::Entry& e = ledger_.at(r.transfer);
  counters_.turnaround_ns += turnaround;
  e.turnaround_ns += turnaround;
  have_cas_ = true;
  last_write_ = r.write;
  last_cas_ = t;
  last_cas_group_ = r.group;
  if (r.write) {
    last_write_end_ = data_end;
    last_write_group_ = r.group;
    b.write(data_end, s_);
  } else {
    last_read_cas_ = t;
    b.read(t, s_);
  }
  data_free_ = data_end + host_stretch_;
  cmd_free_ = t + s_.cas_cmd_ns;
  busy(r.bank, t, data_end);
  counters_.data_ns += s_.tBURST();
  counters_.bus_bytes += static_cast<std::uint64_t>(s_.burst_bytes());
  (r.activated ? counters_.row_misses : counters_.row_hits) += 1;
  (r.activated ? e.misses : e.hits) += 1;
  e.last_data_ns = std::max(e.last_data_ns, data_end);
  --e.pending;
  for (auto it = pending_of_.begin(); it != pending_of_.end(); ++it)
    if (it->first == r.transfer) {
      if (--it->second == 0) pending_of_.erase(it);
      break;
    }
  const std::uint32_t bank = r.bank;
  const auto row = static_cast<std::int64_t>(r.row);
  unlink(bank, slot);
  if (!backlog_.empty()) {
    enqueue(backlog_.front());
    backlog_.pop_front();
  }
  if (closed_page_) {
    // Auto-precharge (RDA/WRA) unless a queued request still hits the row.
    bool wanted = false;
    for (int i = bank_queue_[bank].head; i >= 0 && !wanted; i = slots_[static_cast<std::size_t>(i)].next)
      wanted = static_cast<std::int64_t>(slots_[static_cast<std::size_t>(i)].request.row) == row;
    if (!wanted) b.precharge(b.pre_ready(), s_);
  }
}

void DramChannel::busy(std::uint32_t bank, double start, double end) {
  if (start > active_to_) {
    if (active_to_ >= 0) counters_.active_ns += active_to_ - active_from_;
    active_from_ = start;
    active_to_ = end;
  } else {
    active_to_ = std::max(active_to_, end);
  }
  double& from = bank_from_[bank];
  double& to = bank_to_[bank];
  if (start > to) {
    if (to >= 0) counters_.bank_busy_ns += to - from;
    from = start;
    to = end;
  } else {
    to = std::max(to, end);
  }
}

void DramChannel::finish(double end_ns) {
  while (pending() > 0) step();
  // Refreshes nobody waited for still happened (and still cost the DRAM its time).
  while (next_refresh_ns_ <= end_ns) {
    ++counters_.refreshes;
    counters_.refresh_ns += s_.tRFC;
    next_refresh_ns_ += s_.tREFI;
  }
  if (active_to_ >= 0) counters_.active_ns += active_to_ - active_from_;
  active_to_ = -1;
  for (std::size_t b = 0; b < banks_.size(); ++b) {
    if (bank_to_[b] >= 0) counters_.bank_busy_ns += bank_to_[b] - bank_from_[b];
    bank_to_[b] = -1;
  }
}

}  // namespace npu::cost
