#include "costmodel/machine/chunk_arbiter.h"

#include <algorithm>
#include <cmath>

namespace npu::cost {
namespace {
constexpr double kTolerance = 1e-9;  // a resource free this close to a cycle is free at it
}

ChunkArbiter::ChunkArbiter(int requesters, bool channel_priority)
    : slots_(static_cast<std::size_t>(std::max(1, requesters))), priority_(channel_priority) {}

void ChunkArbiter::submit(int id, ChunkStream& stream, StreamCompletion& completion, std::uint64_t now) {
  Slot& s = slots_[static_cast<std::size_t>(id)];
  s.stream = &stream;
  s.completion = &completion;
  s.request_cycles = static_cast<double>(now);
  completion = StreamCompletion{};
  ++active_;
}

int ChunkArbiter::choose() const {
  const int n = static_cast<int>(slots_.size());
  for (int k = 1; k <= n; ++k) {
    const int id = priority_ ? k - 1 : (last_ + k) % n;
    if (slots_[static_cast<std::size_t>(id)].stream) return id;
  }
  return -1;
}

bool ChunkArbiter::grant(std::uint64_t now) {
  bool granted = false;
  while (active_ > 0 && free_cycles_ <= static_cast<double>(now) + kTolerance) {
    const int id = choose();
    Slot& s = slots_[static_cast<std::size_t>(id)];
    const double at = std::max(free_cycles_, s.request_cycles);
    const ChunkServed served = s.stream->serve_next(at);
    s.completion->done_cycles = std::max(s.completion->done_cycles, served.done_cycles);
    free_cycles_ = std::max(at, served.free_cycles);
    last_ = id;
    granted = true;
    if (s.stream->finished()) {
      s.completion->done = true;
      s = Slot{};
      --active_;
    }
  }
  return granted;
}

std::optional<std::uint64_t> ChunkArbiter::next_cycle() const {
  if (active_ == 0) return std::nullopt;
  return static_cast<std::uint64_t>(std::ceil(free_cycles_ - kTolerance));
}

}  // namespace npu::cost
