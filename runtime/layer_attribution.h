// Which layer the simulated time and traffic belong to: a layer owns the instruction range
// the compiler recorded for it (LayerRecord), and the simulator says when each instruction ran.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "compiled_model.h"
#include "program.h"
#include "simulator.h"

namespace npu::runtime {

struct LayerTiming {
  std::string name;
  std::string op;
  std::string device;                  // "npu" | "cpu"
  std::uint64_t macs = 0;
  std::uint64_t cycles = 0;            // NPU: last end - first start of its instructions; CPU: host time in NPU cycles
  std::uint64_t compute_cycles = 0;    // sum of its MAC-array (compute unit) instruction durations
  std::uint64_t vector_cycles = 0;     // sum of its vector-unit instruction durations
  std::uint64_t dma_cycles = 0;        // sum of its load and store instruction durations
  std::uint64_t ddr_bytes = 0;         // bytes its load and store instructions move
  std::uint64_t planned_ddr_bytes = 0;
  std::uint64_t start_cycle = 0;       // on the model's timeline (NPU steps back to back)
  double host_us = 0;                  // CPU layers: share of their step's host time

  // The unit that kept the layer busiest: "compute", "vector" or "memory" (DMA); "host" on CPU.
  std::string bound() const;
};

// Bytes a load or store moves (len0 * count1 * count2 * count3); 0 for other instructions.
std::uint64_t dma_bytes(const isa::Instruction& inst);

// `timings[i]` is when program.code[i] ran, on the model's timeline; instructions that did
// not run (timings shorter than the code) count nothing. CPU layers come back with only their
// record's fields; the session fills their host time.
std::vector<LayerTiming> attribute_layers(const std::vector<compiler::LayerRecord>& layers,
                                          const isa::Program& program,
                                          const std::vector<sim::InstructionTiming>& timings);

}  // namespace npu::runtime
