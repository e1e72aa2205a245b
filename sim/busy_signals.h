// Optional VCD waveform (SimOptions::vcd_path) for GTKWave: one sc_signal<bool> per unit
// (load, compute, vector, store) and per DMA channel (dma0, ...), high while at least one of
// its instructions or transfers runs, recorded through sc_trace. Built only when asked; the
// units call it through a null-checked pointer, so runs without a VCD pay one branch.
// No process is sensitive to these signals, so they cannot change the timing.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "isa/instruction.h"

namespace npu::sim {

class BusySignals : public sc_core::sc_module {
 public:
  // `path` as in SimOptions::vcd_path. The file is opened when the simulation starts.
  // One line per unit and DMA channel of each engine ("compute", "dma0"; with several engines
  // "e1_compute", "e1_dma0", ...).
  BusySignals(sc_core::sc_module_name name, int engines, int dma_channels, const std::string& path);
  ~BusySignals() override;  // closes the VCD file

  void unit(int engine, isa::Unit u, bool begin);
  void channel(int engine, std::uint32_t channel, bool begin);

 private:
  // Load/store are driven from every DMA channel's thread: several writers by design.
  using Signal = sc_core::sc_signal<bool, sc_core::SC_UNCHECKED_WRITERS>;
  struct Line {
    std::unique_ptr<Signal> signal;
    int active = 0;
  };
  static void change(Line& line, bool begin);

  std::vector<Line> units_, channels_;  // engine-major
  int dma_channels_;
  sc_core::sc_trace_file* file_ = nullptr;
};

}  // namespace npu::sim
