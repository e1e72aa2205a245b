#include "sim/dma_arbiter.h"

#include <algorithm>
#include <cmath>

#include "sim/coroutine_stack.h"
#include "sim/sim_time.h"

namespace npu::sim {

DmaArbiter::DmaArbiter(sc_core::sc_module_name name, int requesters, bool channel_priority)
    : sc_module(name), slots_(static_cast<std::size_t>(std::max(1, requesters))), priority_(channel_priority) {
  SC_HAS_PROCESS(DmaArbiter);
  SC_THREAD(run);
}

void DmaArbiter::submit(int id, ChunkStream& stream, StreamCompletion& completion, sc_core::sc_event& wake) {
  Slot& s = slots_[static_cast<std::size_t>(id)];
  s.stream = &stream;
  s.completion = &completion;
  s.wake = &wake;
  s.request_cycles = static_cast<double>(now_cycles());
  completion = StreamCompletion{};
  ++active_;
  // A delta notification: requests made in this same instant all compete for the first grant.
  if (idle_) arrived_.notify(sc_core::SC_ZERO_TIME);
}

int DmaArbiter::choose() const {
  const int n = static_cast<int>(slots_.size());
  for (int k = 1; k <= n; ++k) {
    const int id = priority_ ? k - 1 : (last_ + k) % n;
    if (slots_[static_cast<std::size_t>(id)].stream) return id;
  }
  return -1;
}

void DmaArbiter::run() {
  forget_stale_stack_poison();
  for (;;) {
    if (active_ == 0) {
      idle_ = true;
      sc_core::wait(arrived_);
      idle_ = false;
      continue;
    }
    const double now = static_cast<double>(now_cycles());
    if (free_cycles_ > now + 1e-9) {
      // Busy until a fraction into some cycle: decide at that cycle's start, after requests
      // made in that instant have arrived (one delta later).
      sc_core::wait(cycles(static_cast<std::uint64_t>(std::ceil(free_cycles_ - 1e-9)) - now_cycles()));
      sc_core::wait(sc_core::SC_ZERO_TIME);
      continue;
    }
    const int id = choose();
    Slot& s = slots_[static_cast<std::size_t>(id)];
    const double grant = std::max(free_cycles_, s.request_cycles);
    const ChunkServed served = s.stream->serve_next(grant);
    s.completion->done_cycles = std::max(s.completion->done_cycles, served.done_cycles);
    free_cycles_ = std::max(grant, served.free_cycles);
    last_ = id;
    if (s.stream->finished()) {
      s.completion->done = true;
      s.wake->notify(sc_core::SC_ZERO_TIME);
      s = Slot{};
      --active_;
    }
  }
}

}  // namespace npu::sim
