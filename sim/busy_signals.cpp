#include "sim/busy_signals.h"

#include <fmt/format.h>

namespace npu::sim {

BusySignals::BusySignals(sc_core::sc_module_name name, int engines, int dma_channels, const std::string& path)
    : sc_module(name),
      units_(static_cast<std::size_t>(engines * isa::kQueueCount)),
      channels_(static_cast<std::size_t>(engines * dma_channels)),
      dma_channels_(dma_channels) {
  // sc_create_vcd_trace_file appends ".vcd" itself.
  const bool has_ext = path.size() >= 4 && path.compare(path.size() - 4, 4, ".vcd") == 0;
  file_ = sc_core::sc_create_vcd_trace_file(has_ext ? path.substr(0, path.size() - 4).c_str() : path.c_str());
  file_->set_time_unit(1, sc_core::SC_NS);  // 1 ns of sc_time = 1 cycle (sim_time.h)
  const char* const unit_names[isa::kQueueCount] = {"load", "compute", "vector", "store"};
  for (int e = 0; e < engines; ++e) {
    const std::string prefix = engines > 1 ? fmt::format("e{}_", e) : "";
    for (int u = 0; u < isa::kQueueCount; ++u) {
      const std::string n = prefix + unit_names[u];
      Line& line = units_[static_cast<std::size_t>(e * isa::kQueueCount + u)];
      line.signal = std::make_unique<Signal>(n.c_str(), false);
      sc_core::sc_trace(file_, *line.signal, n);
    }
    for (int c = 0; c < dma_channels; ++c) {
      const std::string n = fmt::format("{}dma{}", prefix, c);
      Line& line = channels_[static_cast<std::size_t>(e * dma_channels + c)];
      line.signal = std::make_unique<Signal>(n.c_str(), false);
      sc_core::sc_trace(file_, *line.signal, n);
    }
  }
}

BusySignals::~BusySignals() { sc_core::sc_close_vcd_trace_file(file_); }

void BusySignals::change(Line& line, bool begin) {
  line.active += begin ? 1 : -1;
  // Ends and starts at the same cycle cancel out within the delta: the line stays high.
  line.signal->write(line.active > 0);
}

void BusySignals::unit(int engine, isa::Unit u, bool begin) {
  change(units_[static_cast<std::size_t>(engine * isa::kQueueCount + static_cast<int>(u))], begin);
}

void BusySignals::channel(int engine, std::uint32_t c, bool begin) {
  change(channels_[static_cast<std::size_t>(engine * dma_channels_) + c], begin);
}

}  // namespace npu::sim
