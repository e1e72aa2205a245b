// DDR timing models, registered by ddr.model value (Ramulator-style): the timing core's DDR
// bus arbiter (costmodel/machine/chunk_arbiter.h) hands a model one chunk of a DMA transfer at
// a time, in the order it granted them, and the model says when the bus can take the next
// chunk and when this one's last byte has arrived. A new model is its name in
// hwconfig/config_choices.def, one new file and one line in ddr_model_registry.cpp (which does
// not compile without it).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hwconfig/hardware_config.h"
#include "costmodel/ddr/ddr_counters.h"
#include "costmodel/timing_error.h"

namespace npu::cost {

// One contiguous piece of a DMA run (runs are split at multiples of dma.arbitration_bytes,
// which are burst boundaries, so pieces never share a burst).
struct DdrPiece {
  std::uint64_t addr = 0, bytes = 0;
};

struct DdrChunk {
  const DdrPiece* pieces = nullptr;
  std::size_t count = 0;
  bool write = false;
  std::uint32_t transfer = 0;  // the DMA instruction's index
  bool last = false;           // the transfer's last chunk
  double request_ns = 0;  // when the transfer's requests reached the controller
  double grant_ns = 0;    // when the bus arbiter gave this chunk the bus (>= request_ns)
};

struct DdrChunkTiming {
  double free_ns = 0;  // the bus can take the next chunk from here
  // This chunk's last byte has arrived (latency included). A model that keeps requests
  // queued across chunks (dram) may only know it for the last chunk, and answers for the
  // whole transfer there; the transfer's end is the latest done_ns of its chunks.
  double done_ns = 0;
  // What the bursts found (banked, dram; 0 otherwise), for per-instruction stats; summed over
  // the transfer's chunks (dram: all in the last chunk's answer).
  std::uint64_t row_hits = 0, row_misses = 0;
  double turnaround_ns = 0;
};

class DdrTimingModel {
 public:
  virtual ~DdrTimingModel() = default;
  virtual DdrChunkTiming serve(const DdrChunk& chunk) = 0;
  // The run ended at `end_ns`: account what happened since the last chunk (refresh).
  virtual void finish(double end_ns) {}
  // A copy in its current state (Machine::fork), or nullptr for a model that has none.
  virtual std::unique_ptr<DdrTimingModel> clone() const { return nullptr; }
  const DdrCounters& counters() const { return counters_; }

 protected:
  DdrCounters counters_;
};

using DdrModelFactory = std::unique_ptr<DdrTimingModel> (*)(const DdrConfig&, const DramConfig&);

// The model registered for ddr.model.
std::unique_ptr<DdrTimingModel> make_ddr_model(const DdrConfig& ddr, const DramConfig& dram);

// Implementations (each in its own file).
std::unique_ptr<DdrTimingModel> make_simple_ddr(const DdrConfig& ddr, const DramConfig& dram);
std::unique_ptr<DdrTimingModel> make_banked_ddr(const DdrConfig& ddr, const DramConfig& dram);
std::unique_ptr<DdrTimingModel> make_dram_ddr(const DdrConfig& ddr, const DramConfig& dram);
std::unique_ptr<DdrTimingModel> make_ideal_ddr(const DdrConfig& ddr, const DramConfig& dram);

// The configured model's streaming approximation (ddr_streaming.cpp): one step per chunk at the
// model's own sustained rate and latency; what the compiler's trial estimates run.
std::unique_ptr<DdrTimingModel> make_streaming_ddr(const DdrConfig& ddr, const DramConfig& dram);

}  // namespace npu::cost
