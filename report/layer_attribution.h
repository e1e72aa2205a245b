// Which layer the simulated time and traffic belong to: a layer owns the instruction range
// the compiler recorded for it (LayerRecord), and the simulator says when each instruction ran.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "container/compiled_model.h"
#include "isa/program.h"
#include "report/traffic.h"
#include "sim/simulator.h"

namespace npu::report {

struct LayerTiming {
  std::string name;
  std::string op;
  std::string device;                  // "npu" | "cpu"
  std::uint64_t macs = 0;
  std::uint64_t cycles = 0;            // NPU: last end - first start of its instructions; CPU: host time in NPU cycles
  // Busy cycles per unit over the layer's own instructions: compute and vector instructions
  // never overlap, so theirs are sums of durations; loads (stores) on several DMA channels
  // can, so theirs are the union of the transfers' intervals, as the simulator's unit busy.
  std::uint64_t load_cycles = 0;
  std::uint64_t compute_cycles = 0;
  std::uint64_t vector_cycles = 0;
  std::uint64_t store_cycles = 0;
  std::uint64_t dma_cycles = 0;        // sum of its load and store instruction durations
  std::uint64_t stall_cycles = 0;      // its instructions waiting for dependency tokens
  std::uint64_t channel_wait_cycles = 0;  // its loads/stores waiting for a free DMA channel
  std::uint64_t bank_conflict_cycles = 0; // its instructions stretched by scratchpad bank conflicts
  std::uint64_t ddr_row_hits = 0;         // its loads'/stores' DDR bursts that found their row open
  std::uint64_t ddr_row_misses = 0;       // ... that had to open it (banked, dram)
  double ddr_turnaround_cycles = 0;       // read/write turnaround its transfers paid (dram)
  std::uint64_t ddr_bytes = 0;         // bytes its load and store instructions move
  std::uint64_t ddr_bytes_read = 0;    // ... its loads
  std::uint64_t ddr_bytes_written = 0; // ... its stores
  std::uint64_t planned_ddr_bytes = 0;
  std::uint64_t compulsory_ddr_bytes = 0;  // of ddr_bytes: weights, parameters, step inputs/outputs
  std::uint64_t spill_ddr_bytes = 0;       // of ddr_bytes: values spilled to DDR and read back
  // On the model's timeline (NPU steps back to back): its first instruction's start and its
  // last one's end. Layers overlap: the next one's loads start under this one's compute.
  std::uint64_t start_cycle = 0;
  std::uint64_t end_cycle() const { return start_cycle + cycles; }
  double host_us = 0;                  // CPU layers: share of their step's host time
  std::vector<RegionTraffic> traffic;  // NPU layers: DDR bytes per tensor / constant

  // The unit that kept the layer busiest: "compute", "vector" or "memory" (DMA); "host" on CPU.
  // (Compute- or memory-bound by the config's roofline: roofline_bound in roofline.h.)
  std::string bound() const;
};

// `timings[i]` is when program.code[i] ran, on the model's timeline; instructions that did
// not run (timings shorter than the code) count nothing. CPU layers come back with only their
// record's fields; the session fills their host time.
// `engines[i]`: the engine whose stream holds program.code[i] (engine_of_instructions; empty:
// engine 0 runs everything).
std::vector<LayerTiming> attribute_layers(const std::vector<container::LayerRecord>& layers,
                                          const isa::Program& program,
                                          const std::vector<sim::InstructionTiming>& timings,
                                          const std::vector<std::uint8_t>& engines = {});

// Per instruction of the model's program, the engine whose stream holds it (its step's
// engine_starts).
std::vector<std::uint8_t> engine_of_instructions(const container::CompiledModel& model);

}  // namespace npu::report
