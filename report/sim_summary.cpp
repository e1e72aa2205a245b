#include "report/sim_summary.h"

#include <algorithm>

#include <fmt/format.h>

#include "report/design_cost_report.h"
#include "report/roofline.h"

namespace npu::report {

namespace {

nlohmann::json unit_json(const sim::UnitStats& u) {
  return {{"instructions", u.instructions},         {"busy_cycles", u.busy_cycles},
          {"stall_cycles", u.stall_cycles},         {"channel_wait_cycles", u.channel_wait_cycles},
          {"sram_bytes_read", u.sram_bytes_read}, {"sram_bytes_written", u.sram_bytes_written},
          {"bank_conflict_cycles", u.bank_conflict_cycles}};
}

double percent(std::uint64_t part, std::uint64_t whole) {
  return whole ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

double achieved_gbps(const sim::SimResult& r) {
  return r.latency_us > 0 ? static_cast<double>(r.ddr_bus_bytes) / (r.latency_us * 1e3) : 0.0;
}

std::string source_of(const HardwareConfig& config) {
  return config.source_path.empty() ? config.name : config.source_path;
}

}  // namespace

std::string energy_missing_note(const HardwareConfig& config) {
  return fmt::format("energy: not modelled ({} has no energy table)", source_of(config));
}

double ddr_bandwidth_utilization(const sim::SimResult& r, const HardwareConfig& config) {
  return config.ddr.bandwidth_gbps > 0 ? achieved_gbps(r) / config.ddr.bandwidth_gbps : 0.0;
}

nlohmann::json sim_report_json(const sim::SimResult& r, const HardwareConfig& config) {
  nlohmann::json dma = nlohmann::json::array();
  for (const auto& c : r.dma_channels)
    dma.push_back({{"transfers", c.transfers}, {"bytes", c.bytes}, {"bus_bytes", c.bus_bytes},
                   {"busy_cycles", c.busy_cycles}, {"bounce_copies", c.bounce_copies}});
  const Roofline roof = roofline_of(config);
  nlohmann::json j = {
      {"config", config.name},
      {"config_path", config.source_path},
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
        {"row_misses", r.ddr_row_misses},
        {"row_hits", r.ddr.row_hits},
        {"row_conflicts", r.ddr.row_conflicts},
        {"row_hit_rate", r.ddr.row_hit_rate()},
        {"refreshes", r.ddr.refreshes},
        {"refresh_ns", r.ddr.refresh_ns},
        {"turnaround_ns", r.ddr.turnaround_ns},
        {"bank_parallelism", r.ddr.bank_parallelism()},
        {"data_bus_fraction", r.ddr.peak_fraction()},
        {"peak_gbps", config.ddr.bandwidth_gbps},
        {"achieved_gbps", achieved_gbps(r)},
        {"bandwidth_utilization", ddr_bandwidth_utilization(r, config)}}},
      {"shared_sram",
       {{"bytes_read", r.shared_sram_bytes_read},
        {"bytes_written", r.shared_sram_bytes_written},
        {"busy_cycles", r.shared_sram_busy_cycles},
        {"capacity_bytes", config.engines.shared_sram_bytes}}},
      {"sram",
       {{"bytes_read", r.sram_bytes_read},
        {"bytes_written", r.sram_bytes_written},
        {"peak_bytes", r.sram_peak_bytes},
        {"capacity_bytes", config.sram.capacity_bytes}}},
      {"load", unit_json(r.load)},
      {"compute", unit_json(r.compute)},
      {"vector", unit_json(r.vector)},
      {"store", unit_json(r.store)},
      {"dma_channels", dma},
      {"roofline",
       {{"peak_macs_per_cycle", roof.peak_macs_per_cycle},
        {"ddr_bytes_per_cycle", roof.ddr_bytes_per_cycle},
        {"ddr_gbps", roof.ddr_gbps},
        {"ridge_macs_per_byte", roof.ridge_macs_per_byte()}}},
  };
  nlohmann::json engines = nlohmann::json::array();
  for (const auto& e : r.engines) {
    nlohmann::json channels = nlohmann::json::array();
    for (const auto& c : e.dma_channels)
      channels.push_back({{"transfers", c.transfers}, {"bytes", c.bytes}, {"bus_bytes", c.bus_bytes},
                          {"busy_cycles", c.busy_cycles}, {"bounce_copies", c.bounce_copies}});
    const auto idle = [&](const sim::UnitStats& u) { return r.cycles - std::min<std::uint64_t>(r.cycles, u.busy_cycles); };
    engines.push_back({{"macs", e.macs},
                       {"ddr_bytes_read", e.ddr_bytes_read},
                       {"ddr_bytes_written", e.ddr_bytes_written},
                       {"shared_sram_bytes_read", e.shared_sram_bytes_read},
                       {"shared_sram_bytes_written", e.shared_sram_bytes_written},
                       {"multicast_bytes_read", e.multicast_bytes_read},
                       {"end_cycle", e.end_cycle},
                       {"load", unit_json(e.load)},
                       {"compute", unit_json(e.compute)},
                       {"vector", unit_json(e.vector)},
                       {"store", unit_json(e.store)},
                       {"idle_cycles",
                        {{"load", idle(e.load)}, {"compute", idle(e.compute)}, {"vector", idle(e.vector)},
                         {"store", idle(e.store)}}},
                       {"dma_channels", channels}});
  }
  j["engines"] = engines;
  add_design_cost_json(j, r, config, design_costs(config));
  return j;
}

std::string format_sim_report(const sim::SimResult& r, const HardwareConfig& config) {
  std::string s;
  auto line = [&](auto&&... args) { s += fmt::format(std::forward<decltype(args)>(args)...); s += '\n'; };
  const Roofline roof = roofline_of(config);
  line("config            {} ({}x{} MACs {}, {:.0f} MHz)", config.name, config.mac_array.rows,
       config.mac_array.cols, choice_name(config.mac_array.dataflow), r.clock_mhz);
  line("latency           {} cycles = {:.3f} us", r.cycles, r.latency_us);
  line("TOPS              {:.3f} achieved of {:.3f} peak ({:.1f}% MAC utilization)", r.achieved_tops,
       r.peak_tops, 100.0 * r.mac_utilization);
  line("MACs              {} (int8 {}, fp16 {})", r.macs, r.int8_macs, r.fp16_macs);
  line("DDR               {} B read, {} B written, {} B on the bus: {:.2f} GB/s = {:.1f}% of {:g} GB/s peak",
       r.ddr_bytes_read, r.ddr_bytes_written, r.ddr_bus_bytes, achieved_gbps(r),
       100.0 * ddr_bandwidth_utilization(r, config), config.ddr.bandwidth_gbps);
  if (config.engines.shared_sram_bytes > 0)
    line("shared SRAM       {} B read, {} B written (not in the DDR figures), busy {} cycles = {:.1f}% of the run at {} "
         "B/cycle; {} KiB shared by the engines",
         r.shared_sram_bytes_read, r.shared_sram_bytes_written, r.shared_sram_busy_cycles,
         r.cycles ? 100.0 * static_cast<double>(r.shared_sram_busy_cycles) / static_cast<double>(r.cycles) : 0.0,
         config.engines.shared_sram_bytes_per_cycle, config.engines.shared_sram_bytes / 1024);
  if (r.ddr.row_hits + r.ddr.row_misses > 0)
    line("DDR rows          {:.1f}% row hits ({} hits, {} misses, {} conflicts){}", 100.0 * r.ddr.row_hit_rate(),
         r.ddr.row_hits, r.ddr.row_misses, r.ddr.row_conflicts,
         r.ddr.active_ns > 0
             ? fmt::format("; bank parallelism {:.2f}, data bus {:.1f}% of active time, refresh {:.1f} us, "
                           "read/write turnaround {:.1f} us (summed over channels)",
                           r.ddr.bank_parallelism(), 100.0 * r.ddr.peak_fraction(), r.ddr.refresh_ns / 1e3,
                           r.ddr.turnaround_ns / 1e3)
             : std::string());
  line("roofline          ridge at {:.1f} MACs per DDR byte ({:.1f} ops/B): {:g} MACs/cycle / {:.2f} B/cycle",
       roof.ridge_macs_per_byte(), 2 * roof.ridge_macs_per_byte(), roof.peak_macs_per_cycle,
       roof.ddr_bytes_per_cycle);
  line("SRAM              peak {} B of {} B ({:.1f}%)", r.sram_peak_bytes, config.sram.capacity_bytes,
       percent(r.sram_peak_bytes, config.sram.capacity_bytes));
  std::string channels;
  for (std::size_t i = 0; i < r.dma_channels.size(); ++i) {
    const auto& c = r.dma_channels[i];
    if (c.transfers == 0) continue;
    channels += fmt::format("{}dma{} {} B in {} transfers ({:.1f}% busy)", channels.empty() ? "" : ", ", i, c.bytes,
                            c.transfers, percent(c.busy_cycles, r.cycles));
  }
  line("DMA               {}", channels.empty() ? "no transfers" : channels);
  s += format_design_costs(r, config, design_costs(config));
  // One engine: its units; several: each engine's (busy % of the run), then nothing summed.
  const bool several = r.engines.size() > 1;
  line("{:<{}} {:>12} {:>12} {:>7} {:>12} {:>12} {:>12}", several ? "engine unit" : "unit", several ? 11 : 8,
       "instructions", "busy cycles", "busy", "stall cycles", "channel wait", "bank stall");
  auto unit_rows = [&](const std::string& prefix, const sim::UnitStats& load, const sim::UnitStats& compute,
                       const sim::UnitStats& vector, const sim::UnitStats& store) {
    const std::pair<const char*, const sim::UnitStats*> units[] = {
        {"load", &load}, {"compute", &compute}, {"vector", &vector}, {"store", &store}};
    for (const auto& [name, u] : units)
      line("{:<{}} {:>12} {:>12} {:>6.1f}% {:>12} {:>12} {:>12}", prefix + name, several ? 11 : 8, u->instructions,
           u->busy_cycles, percent(u->busy_cycles, r.cycles), u->stall_cycles, u->channel_wait_cycles,
           u->bank_conflict_cycles);
  };
  if (!several) {
    unit_rows("", r.load, r.compute, r.vector, r.store);
  } else {
    for (std::size_t e = 0; e < r.engines.size(); ++e) {
      const auto& en = r.engines[e];
      unit_rows(fmt::format("{} ", e), en.load, en.compute, en.vector, en.store);
    }
  }
  return s;
}

}  // namespace npu::report
