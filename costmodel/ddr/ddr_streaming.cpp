// The streaming approximation of a DDR model, for the compiler's trial estimates (thousands of
// candidate schedules per model): a chunk's whole bursts, spread evenly over the channels, at
// the sustained rate and behind the latency that the configured model itself shows on a probe.
// One step per chunk instead of one per burst, so a trial costs a fraction of a simulation;
// the schedule it picks is then timed by the configured model (the simulation and
// `estimated_cycles`).
#include <algorithm>
#include <map>
#include <mutex>
#include <string>

#include <fmt/format.h>

#include "costmodel/ddr/ddr_model.h"
#include "costmodel/dma_cost.h"

namespace npu::cost {
namespace {

constexpr std::uint64_t kProbeChunk = 4096;
constexpr std::uint64_t kProbeBytes = 256 * kProbeChunk;

DdrChunkTiming serve_alone(DdrTimingModel& model, std::uint64_t addr, std::uint64_t bytes, double grant_ns, bool last) {
  const DdrPiece piece{addr, bytes};
  DdrChunk c;
  c.pieces = &piece;
  c.count = 1;
  c.last = last;
  c.request_ns = 0;  // one long transfer requested at 0: its rows may open ahead of its chunks
  c.grant_ns = grant_ns;
  return model.serve(c);
}

// When the last byte of one `bytes`-long read, chunk after chunk, has arrived on an idle model.
double sequential_read_ns(const DdrConfig& ddr, const DramConfig& dram, std::uint64_t bytes) {
  auto model = make_ddr_model(ddr, dram);
  double free_ns = 0, done_ns = 0;
  for (std::uint64_t a = 0; a < bytes; a += kProbeChunk) {
    const DdrChunkTiming t = serve_alone(*model, a, kProbeChunk, free_ns, a + kProbeChunk == bytes);
    free_ns = std::max(free_ns, t.free_ns);
    done_ns = std::max(done_ns, t.done_ns);
  }
  return done_ns;
}

// What the probes found for one DDR configuration: the latency of a lone burst and the
// sustained time of a burst relative to the whole bus's (rows, refresh, turnaround).
struct Probe {
  double latency_ns = 0, stretch = 1.0;
};

Probe probe(const DdrConfig& ddr, const DramConfig& dram, double burst_ns) {
  Probe p;
  p.latency_ns = serve_alone(*make_ddr_model(ddr, dram), 0, static_cast<std::uint64_t>(ddr.burst_bytes), 0, true).done_ns;
  // How much longer a sequential read of twice the bytes takes: the rows' and the pipeline's
  // start cancel out.
  const double ideal_ns = static_cast<double>(kProbeBytes / 2 / static_cast<std::uint64_t>(ddr.burst_bytes)) * burst_ns;
  p.stretch = std::max(1.0, (sequential_read_ns(ddr, dram, kProbeBytes) - sequential_read_ns(ddr, dram, kProbeBytes / 2)) / ideal_ns);
  return p;
}

// The probes cost about as much as a small layer's estimate: once per configuration.
Probe cached_probe(const DdrConfig& ddr, const DramConfig& dram, double burst_ns) {
  static std::mutex mutex;
  static std::map<std::string, Probe> cache;
  const std::string key = fmt::format("{} {} {} {} {} {} {} {} {} {} {} {} {} {} {}", choice_name(ddr.model), ddr.bandwidth_gbps,
                                      ddr.latency_ns, ddr.channels, ddr.burst_bytes, ddr.interleave_bytes, ddr.banks,
                                      ddr.row_bytes, ddr.row_miss_ns, choice_name(ddr.address_mapping), ddr.other_agents_share,
                                      choice_name(dram.standard), choice_name(dram.page_policy),
                                      choice_name(dram.scheduler), dram.queue_depth);
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, probe(ddr, dram, burst_ns)).first;
  return it->second;
}

class StreamingDdr : public DdrTimingModel {
 public:
  StreamingDdr(const DdrConfig& ddr, const DramConfig& dram)
      : burst_bytes_(static_cast<std::uint64_t>(ddr.burst_bytes)),
        burst_ns_(channel_burst_ns(ddr) / std::max(1, ddr.channels)) {
    const Probe p = cached_probe(ddr, dram, burst_ns_);
    latency_ns_ = p.latency_ns;
    stretch_ = p.stretch;
  }

  std::unique_ptr<DdrTimingModel> clone() const override { return std::make_unique<StreamingDdr>(*this); }
  DdrChunkTiming serve(const DdrChunk& c) override {
    std::uint64_t bursts = 0;
    for (std::size_t i = 0; i < c.count; ++i) bursts += run_bursts(c.pieces[i].addr, c.pieces[i].bytes, burst_bytes_);
    DdrChunkTiming t;
    t.free_ns = c.grant_ns + static_cast<double>(bursts) * burst_ns_ * stretch_;
    t.done_ns = t.free_ns + latency_ns_;
    counters_.bus_bytes += bursts * burst_bytes_;
    counters_.data_ns += static_cast<double>(bursts) * burst_ns_;
    return t;
  }

 private:
  std::uint64_t burst_bytes_;
  double burst_ns_;         // one burst's share of the whole bus (all channels)
  double latency_ns_ = 0;   // request to last byte of a lone burst
  double stretch_ = 1.0;    // sustained time over whole-bus burst time (rows, refresh, turnaround)
};

}  // namespace

std::unique_ptr<DdrTimingModel> make_streaming_ddr(const DdrConfig& ddr, const DramConfig& dram) {
  if (ddr.model == DdrModel::Ideal) return make_ideal_ddr(ddr, dram);  // nothing to approximate
  return std::make_unique<StreamingDdr>(ddr, dram);
}

}  // namespace npu::cost
