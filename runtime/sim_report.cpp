#include "sim_report.h"

#include <fmt/format.h>

namespace npu::runtime {

namespace {

nlohmann::json unit_json(const sim::UnitStats& u) {
  return {{"instructions", u.instructions}, {"busy_cycles", u.busy_cycles}, {"stall_cycles", u.stall_cycles}};
}

double percent(std::uint64_t part, std::uint64_t whole) {
  return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

}  // namespace

nlohmann::json sim_report_json(const sim::SimResult& r, const HardwareConfig& config) {
  nlohmann::json dma = nlohmann::json::array();
  for (const auto& c : r.dma_channels)
    dma.push_back({{"transfers", c.transfers}, {"bytes", c.bytes}, {"busy_cycles", c.busy_cycles},
                   {"bounce_copies", c.bounce_copies}});
  return {
      {"config", config.name},
      {"cycles", r.cycles},
      {"latency_us", r.latency_us},
      {"clock_mhz", r.clock_mhz},
      {"macs", r.macs},
      {"int8_macs", r.int8_macs},
      {"fp16_macs", r.fp16_macs},
      {"peak_tops", r.peak_tops},
      {"achieved_tops", r.achieved_tops},
      {"mac_utilization", r.mac_utilization},
      {"ddr",
       {{"bytes_read", r.ddr_bytes_read},
        {"bytes_written", r.ddr_bytes_written},
        {"bus_bytes", r.ddr_bus_bytes},
        {"row_misses", r.ddr_row_misses}}},
      {"sram",
       {{"bytes_read", r.sram_bytes_read}, {"bytes_written", r.sram_bytes_written}, {"peak_bytes", r.sram_peak_bytes}}},
      {"load", unit_json(r.load)},
      {"compute", unit_json(r.compute)},
      {"vector", unit_json(r.vector)},
      {"store", unit_json(r.store)},
      {"dma_channels", dma},
  };
}

std::string format_sim_report(const sim::SimResult& r, const HardwareConfig& config) {
  std::string s;
  auto line = [&](auto&&... args) { s += fmt::format(std::forward<decltype(args)>(args)...); s += '\n'; };
  line("config            {} ({}x{} MACs {}, {:.0f} MHz)", config.name, config.mac_array.rows,
       config.mac_array.cols, dataflow_name(config.mac_array.dataflow), r.clock_mhz);
  line("latency           {} cycles = {:.3f} us", r.cycles, r.latency_us);
  line("TOPS              {:.3f} achieved of {:.3f} peak ({:.1f}% MAC utilization)", r.achieved_tops,
       r.peak_tops, 100.0 * r.mac_utilization);
  line("MACs              {} (int8 {}, fp16 {})", r.macs, r.int8_macs, r.fp16_macs);
  line("DDR               {} B read, {} B written, {} B on the bus", r.ddr_bytes_read, r.ddr_bytes_written,
       r.ddr_bus_bytes);
  line("SRAM              peak {} B of {} B", r.sram_peak_bytes, config.sram.capacity_bytes);
  line("{:<8} {:>12} {:>12} {:>7} {:>12}", "unit", "instructions", "busy cycles", "busy", "stall cycles");
  const std::pair<const char*, const sim::UnitStats*> units[] = {
      {"load", &r.load}, {"compute", &r.compute}, {"vector", &r.vector}, {"store", &r.store}};
  for (const auto& [name, u] : units)
    line("{:<8} {:>12} {:>12} {:>6.1f}% {:>12}", name, u->instructions, u->busy_cycles,
         percent(u->busy_cycles, r.cycles), u->stall_cycles);
  return s;
}

}  // namespace npu::runtime
