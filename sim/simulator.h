// Entry point of the SystemC NPU model: run one program on one hardware config.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "costmodel/ddr/ddr_model.h"
#include "costmodel/machine/instruction_timing.h"
#include "hwconfig/design_costs.h"
#include "hwconfig/hardware_config.h"
#include "isa/program.h"

namespace npu::sim {

// DDR contents, sparse (pages allocated on first write), owned by the caller so the
// runtime can place inputs before and read outputs after a run.
class DdrImage {
 public:
  static constexpr std::uint64_t kPageBytes = 1 << 16;
  void write(std::uint64_t addr, const void* src, std::uint64_t bytes);
  void read(std::uint64_t addr, void* dst, std::uint64_t bytes) const;  // unwritten bytes read 0
  void place(const isa::Program& program);  // writes every data segment
 private:
  std::map<std::uint64_t, std::vector<std::uint8_t>> pages_;
  std::uint8_t* page(std::uint64_t index);
};

// What the caller knows about one instruction (the runtime: its layer, from the compiler's
// LayerRecord ranges, and the tile it computes); copied into that instruction's trace events.
struct InstructionLabel {
  std::string layer;                         // empty: no layer arg
  std::map<std::string, std::int64_t> tile;  // tile coordinates, e.g. {"oh", 2}, {"oc", 1}
};

struct SimOptions {
  bool timing_only = false;     // skip arithmetic and data movement; cycles are identical
  bool record_trace = false;    // fill SimResult::trace and SimResult::ddr_bandwidth
  bool record_instructions = true;  // fill SimResult::instructions
  // Indexed by instruction; may be shorter than the program (the rest are unlabelled).
  // Read only when record_trace is set.
  std::vector<InstructionLabel> instruction_labels;
  // Non-empty: write a VCD of the unit and DMA-channel busy signals (sc_trace) to this path
  // (".vcd" is appended unless the path ends with it). One VCD time unit = one cycle.
  std::string vcd_path;
};

struct UnitStats {
  std::uint64_t instructions = 0;
  std::uint64_t busy_cycles = 0;   // cycles with at least one instruction of this unit running
  std::uint64_t stall_cycles = 0;  // cycles spent waiting for dependency tokens
  // Load/store only: cycles the unit waited for its transfer's DMA channel to be free
  // (after its tokens arrived, before the transfer started).
  std::uint64_t channel_wait_cycles = 0;
  // Scratchpad traffic caused by this unit's instructions (rules: sim/README.md "Energy").
  std::uint64_t sram_bytes_read = 0;
  std::uint64_t sram_bytes_written = 0;
  // Cycles its instructions (load/store: their transfers' scratchpad side) were stretched
  // because another unit held a scratchpad bank they needed (sim/README.md "Scratchpad banks").
  std::uint64_t bank_conflict_cycles = 0;
};

struct DmaChannelStats {
  std::uint64_t transfers = 0;
  std::uint64_t bytes = 0;        // bytes requested by the transfers
  std::uint64_t bus_bytes = 0;    // whole DDR bursts the transfers moved
  std::uint64_t busy_cycles = 0;
  std::uint64_t bounce_copies = 0;
};

// When each instruction ran (the timing core's record); lets the runtime attribute time to layers.
using cost::InstructionTiming;
using cost::DdrCounters;

struct TraceEvent {
  int engine = 0;      // whose unit or channel (a multi-engine program: one group of tracks each)
  std::string track;   // "load", "compute", "vector", "store", "control", "dma0", ...
  std::string name;    // mnemonic; "load"/"store" on the load/store unit tracks (busy spans)
  std::uint64_t start_cycle = 0;
  std::uint64_t duration_cycles = 0;
  std::uint64_t instruction_index = 0;
  std::map<std::string, std::int64_t> args;  // bytes, m/n/k, tile coordinates ("tile_oh"), ...
  std::string layer;                         // from SimOptions::instruction_labels
};

// A step of the DDR-bandwidth counter: `gbps` holds from `cycle` until the next sample.
struct CounterSample {
  std::uint64_t cycle = 0;
  double gbps = 0;
};

// Energy from the run's counters and the design's costs (hwconfig/design_costs.h; formulas:
// sim/README.md "Energy").
struct EnergyBreakdown {
  double mac_int8_uj = 0;  // int8_macs * int8 MAC pJ
  double mac_fp16_uj = 0;  // fp16_macs * fp16 MAC pJ
  double sram_uj = 0;      // sram_bytes_read * read pJ/B + sram_bytes_written * write pJ/B
  double ddr_uj = 0;       // ddr_bus_bytes * DDR pJ/B
  double vector_uj = 0;    // vector elements * pJ per element (derived model only)
  double dma_uj = 0;       // DMA bytes moved * pJ/B (derived model only)
  double leakage_uj = 0;   // leakage_mw * latency (derived model only)
  double clock_uj = 0;     // clock_mw * latency (derived model only)
  double static_uj = 0;    // static_mw * latency: leakage + clock + uncore (explicit: static_mw)
  double total_uj = 0;
  double static_mw = 0;         // the design's static power
  double average_power_mw = 0;  // total / latency
  double tops_per_watt = 0;     // 2 * macs / total energy
};

struct SimResult {
  std::uint64_t cycles = 0;
  double clock_mhz = 0;
  double latency_us = 0;
  std::uint64_t macs = 0;            // useful multiply-accumulates executed by the array
  std::uint64_t int8_macs = 0;
  std::uint64_t fp16_macs = 0;
  std::uint64_t mac_array_busy_cycles = 0;
  double peak_tops = 0;
  double achieved_tops = 0;          // 2 * macs / time
  double mac_utilization = 0;        // macs / (array MACs * cycles)
  std::uint64_t ddr_bytes_read = 0;      // bytes requested by DMA
  std::uint64_t ddr_bytes_written = 0;
  std::uint64_t ddr_bus_bytes = 0;       // whole bursts moved, including misalignment waste
  std::uint64_t ddr_row_misses = 0;      // = ddr.row_misses
  DdrCounters ddr;
  // The shared SRAM (engines.shared_sram_kib): bytes the DMA moved from and to it (never in the
  // DDR figures) and the cycles its port was moving them (bytes / shared_sram_bytes_per_cycle).
  std::uint64_t shared_sram_bytes_read = 0, shared_sram_bytes_written = 0;
  std::uint64_t shared_sram_busy_cycles = 0;
  std::uint64_t sram_bytes_read = 0;     // all units: sum of UnitStats::sram_bytes_read
  std::uint64_t sram_bytes_written = 0;
  std::uint64_t sram_peak_bytes = 0;     // highest scratchpad address touched + 1
  std::uint64_t vector_int_elements = 0;    // elements the vector unit processed, integer types
  std::uint64_t vector_float_elements = 0;  // fp16/fp32 types
  // Summed over the engines (busy cycles too: engine-cycles); one engine: that engine's.
  UnitStats load, compute, vector, store;
  std::vector<DmaChannelStats> dma_channels;  // engine 0's channels, then engine 1's, ...
  // Per engine (one entry for a one-engine program).
  struct Engine {
    UnitStats load, compute, vector, store;
    std::vector<DmaChannelStats> dma_channels;
    std::uint64_t macs = 0;
    std::uint64_t ddr_bytes_read = 0, ddr_bytes_written = 0;  // its transfers' bytes
    std::uint64_t shared_sram_bytes_read = 0, shared_sram_bytes_written = 0;
    std::uint64_t multicast_bytes_read = 0;  // its mloads' bytes another engine's transfer moved
    std::uint64_t end_cycle = 0;                               // its halt
  };
  std::vector<Engine> engines;
  std::vector<InstructionTiming> instructions;
  std::vector<TraceEvent> trace;
  std::vector<CounterSample> ddr_bandwidth;  // record_trace only; see sim/README.md "Trace"
  std::optional<EnergyBreakdown> energy;     // absent when the config has no energy table
};

// The energy of a result's counters at `costs` (simulate() fills SimResult::energy with it;
// a caller that sums results over several runs can apply it to the sums). Uses cycles,
// clock_mhz, int8/fp16 MACs, SRAM bytes read and written, DDR bus bytes, vector elements and
// DMA bytes.
EnergyBreakdown energy_of(const SimResult& result, const DesignCosts& costs);

// Bad program or config at run time (SRAM overflow, misalignment, deadlock, ...): one line
// naming the instruction index and mnemonic.
struct SimError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Each call elaborates a fresh SystemC design, so it may be called many times per process;
// calls must not overlap (the SystemC kernel is process-global: one simulate() at a time).
// Throws SimError for a bad program, bad config (validate() fails) or deadlock. Timing
// rules: sim/README.md.
SimResult simulate(const isa::Program& program, const HardwareConfig& config, DdrImage& ddr,
                   const SimOptions& options = {});

}  // namespace npu::sim
