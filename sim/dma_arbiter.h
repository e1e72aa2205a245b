// How the DMA channels share a resource that serves one chunk at a time: the DDR bus and the
// scratchpad's DMA port each have one DmaArbiter. A transfer submits a stream of chunks
// (dma.arbitration_bytes each); whenever the resource is free the arbiter grants the next
// chunk of one of the transfers waiting, by dma.arbitration:
//   round_robin       the next channel after the one granted last that has a chunk waiting;
//   channel_priority  the lowest-numbered channel with a chunk waiting.
// So a transfer's time depends on what else is on the resource while it runs: a short store
// issued during a long load waits for at most one of the load's chunks, then they alternate.
// One SystemC event per chunk (the arbiter's thread waits until the resource is free), none
// per burst unless arbitration_bytes is the burst size. Times are in cycles, as doubles, so
// that chunks of a DDR model that works in ns follow each other without rounding.
#pragma once
#include <cstdint>
#include <vector>

#include <systemc>

namespace npu::sim {

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

// Set by the arbiter when a stream's last chunk has been granted.
struct StreamCompletion {
  bool done = false;
  double done_cycles = 0;  // latest done_cycles of its chunks
};

class DmaArbiter : public sc_core::sc_module {
 public:
  DmaArbiter(sc_core::sc_module_name name, int requesters, bool channel_priority);
  // From requester `id`'s thread, at the current time: the arbiter serves `stream` until it is
  // finished, then sets `completion` and notifies `wake`. One stream per requester at a time.
  void submit(int id, ChunkStream& stream, StreamCompletion& completion, sc_core::sc_event& wake);

 private:
  struct Slot {
    ChunkStream* stream = nullptr;
    StreamCompletion* completion = nullptr;
    sc_core::sc_event* wake = nullptr;
    double request_cycles = 0;
  };
  void run();
  int choose() const;

  std::vector<Slot> slots_;
  bool priority_;
  int active_ = 0, last_ = -1;
  double free_cycles_ = 0;
  bool idle_ = true;
  sc_core::sc_event arrived_;
};

}  // namespace npu::sim
