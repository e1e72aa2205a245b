// The on-chip memory the engines share (engines.shared_sram_kib, Intel's CMX): which DMA
// addresses reach it (the ISA's window from isa::kSharedSramBase) and how it serves the chunks
// its own arbiter grants. The compiler places values in it through the same window.
#pragma once
#include <cstdint>
#include <memory>

#include "costmodel/ddr/ddr_model.h"
#include "hwconfig/hardware_config.h"
#include "isa/instruction_set.h"

namespace npu::cost {

inline bool has_shared_sram(const HardwareConfig& c) { return c.engines.shared_sram_bytes > 0; }

// Whether a DMA span starting at `ddr_addr` reaches the shared SRAM (never without one: the
// window's addresses are plain DDR then, as they were before the key existed).
inline bool in_shared_sram(const HardwareConfig& c, std::uint64_t ddr_addr) {
  return has_shared_sram(c) && ddr_addr >= isa::kSharedSramBase;
}

// For readers of a program without its config (reports): an address in the window. Compilers
// place values there only for a config with a shared SRAM, and DDR allocations never reach it.
inline bool in_shared_sram_window(std::uint64_t ddr_addr) { return ddr_addr >= isa::kSharedSramBase; }

// A wide SRAM port, not a DRAM: no bursts, channels or rows. A chunk of B bytes granted at g
// holds the port until g + B / shared_sram_bytes_per_cycle and its last byte arrives
// shared_sram_latency_cycles later (a transfer's chunks pipeline, so it pays the latency once).
// It answers in the DDR models' terms so a DMA channel times either side the same way;
// counters().bus_bytes are the bytes moved, data_ns the port's busy time.
std::unique_ptr<DdrTimingModel> make_shared_sram_timing(const HardwareConfig& config);

}  // namespace npu::cost
