// How the DMA channels share a resource that serves one chunk at a time: the DDR bus and each
// engine's scratchpad DMA port. A transfer submits a stream of chunks (dma.arbitration_bytes
// each); whenever the resource is free the arbiter grants the next chunk of one of the streams
// waiting, by dma.arbitration:
//   round_robin       the next requester after the one granted last that has a chunk waiting;
//   channel_priority  the lowest-numbered requester with a chunk waiting.
// So a transfer's time depends on what else is on the resource while it runs: a short store
// issued during a long load waits for at most one of the load's chunks, then they alternate.
// Times are in cycles, as doubles, so that chunks of a DDR model that works in ns follow each
// other without rounding; the arbiter decides at whole cycles (a resource busy until a
// fraction into a cycle grants at the start of the next one).
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

namespace npu::cost {

struct ChunkServed {
  double free_cycles = 0;  // the resource can take the next chunk from here
  double done_cycles = 0;  // this chunk is complete (DDR: last byte arrived)
};

class ChunkStream {
 public:
  virtual ~ChunkStream() = default;
  virtual ChunkServed serve_next(double grant_cycles) = 0;
  virtual bool finished() const = 0;
};

// Set by the arbiter once a stream's last chunk has been granted.
struct StreamCompletion {
  bool done = false;
  double done_cycles = 0;  // latest done_cycles of its chunks
};

class ChunkArbiter {
 public:
  ChunkArbiter(int requesters, bool channel_priority);
  // At `now`: serve `stream` for requester `id` until it is finished, then set `completion`.
  // One stream per requester at a time.
  void submit(int id, ChunkStream& stream, StreamCompletion& completion, std::uint64_t now);
  // Grants chunks while the resource is free at `now`; whether it granted any.
  bool grant(std::uint64_t now);
  // When it will grant next (a stream waits and the resource is busy); nullopt when idle.
  std::optional<std::uint64_t> next_cycle() const;
  // A copy of a machine (Machine::fork) points each waiting requester at the copy of its stream:
  // `rebind(id, stream, completion)` may replace both.
  template <typename Rebind>
  void rebind(Rebind&& rebind) {
    for (std::size_t id = 0; id < slots_.size(); ++id)
      if (slots_[id].stream) rebind(static_cast<int>(id), slots_[id].stream, slots_[id].completion);
  }

 private:
  struct Slot {
    ChunkStream* stream = nullptr;
    StreamCompletion* completion = nullptr;
    double request_cycles = 0;
  };
  int choose() const;

  std::vector<Slot> slots_;
  bool priority_;
  int active_ = 0, last_ = -1;
  double free_cycles_ = 0;
};

}  // namespace npu::cost
