#include "sim/busy_signals.h"

#include <fmt/format.h>

namespace npu::sim {

BusySignals::BusySignals(sc_core::sc_module_name name, int dma_channels, const std::string& path)
    : sc_module(name), units_(isa::kQueueCount), channels_(static_cast<std::size_t>(dma_channels)) {
  // sc_create_vcd_trace_file appends ".vcd" itself.
  const bool has_ext = path.size() >= 4 && path.compare(path.size() - 4, 4, ".vcd") == 0;
  file_ = sc_core::sc_create_vcd_trace_file(has_ext ? path.substr(0, path.size() - 4).c_str() : path.c_str());
  file_->set_time_unit(1, sc_core::SC_NS);  // 1 ns of sc_time = 1 cycle (sim_time.h)
  const char* const unit_names[isa::kQueueCount] = {"load", "compute", "vector", "store"};
  for (int u = 0; u < isa::kQueueCount; ++u) {
    units_[u].signal = std::make_unique<Signal>(unit_names[u], false);
    sc_core::sc_trace(file_, *units_[u].signal, unit_names[u]);
  }
  for (std::size_t c = 0; c < channels_.size(); ++c) {
    const std::string n = fmt::format("dma{}", c);
    channels_[c].signal = std::make_unique<Signal>(n.c_str(), false);
    sc_core::sc_trace(file_, *channels_[c].signal, n);
  }
}

BusySignals::~BusySignals() { sc_core::sc_close_vcd_trace_file(file_); }

void BusySignals::change(Line& line, bool begin) {
  line.active += begin ? 1 : -1;
  // Ends and starts at the same cycle cancel out within the delta: the line stays high.
  line.signal->write(line.active > 0);
}

void BusySignals::unit(isa::Unit u, bool begin) { change(units_[static_cast<int>(u)], begin); }

void BusySignals::channel(std::uint32_t c, bool begin) { change(channels_[c], begin); }

}  // namespace npu::sim
