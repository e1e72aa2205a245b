#include "report/layer_table.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

namespace npu::report {

namespace {

std::string si(double v) {
  if (v >= 1e9) return fmt::format("{:.2f}G", v / 1e9);
  if (v >= 1e6) return fmt::format("{:.2f}M", v / 1e6);
  if (v >= 1e3) return fmt::format("{:.1f}k", v / 1e3);
  return fmt::format("{:.0f}", v);
}

std::string clip(const std::string& s, std::size_t width) {
  return s.size() <= width ? s : s.substr(0, width - 1) + "~";
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

double arithmetic_intensity(const LayerTiming& l) {
  return l.ddr_bytes ? static_cast<double>(l.macs) / static_cast<double>(l.ddr_bytes) : 0.0;
}

double layer_achieved_tops(const LayerTiming& l, double clock_mhz) {
  const double us = l.device == "npu" ? static_cast<double>(l.cycles) / clock_mhz : l.host_us;
  return us > 0 ? 2.0 * static_cast<double>(l.macs) / (us * 1e6) : 0.0;
}

std::string layer_roofline_bound(const LayerTiming& l, const Roofline& roof) {
  return l.device == "npu" ? roofline_bound(roof, l.macs, l.ddr_bytes) : "-";
}

nlohmann::json layer_json(const LayerTiming& l, const HardwareConfig& config) {
  const Roofline roof = roofline_of(config);
  nlohmann::json traffic = nlohmann::json::array();
  for (const auto& t : l.traffic)
    traffic.push_back({{"name", t.name}, {"kind", t.kind}, {"size_bytes", t.size_bytes},
                       {"bytes_read", t.bytes_read}, {"bytes_written", t.bytes_written}});
  const double tops = layer_achieved_tops(l, config.clock.frequency_mhz);
  nlohmann::json j = {
      {"name", l.name},
      {"op", l.op},
      {"device", l.device},
      {"macs", l.macs},
      {"cycles", l.cycles},
      {"load_cycles", l.load_cycles},
      {"compute_cycles", l.compute_cycles},
      {"vector_cycles", l.vector_cycles},
      {"store_cycles", l.store_cycles},
      {"stall_cycles", l.stall_cycles},
      {"channel_wait_cycles", l.channel_wait_cycles},
      {"bank_conflict_cycles", l.bank_conflict_cycles},
      {"ddr_row_hits", l.ddr_row_hits},
      {"ddr_row_misses", l.ddr_row_misses},
      {"ddr_turnaround_cycles", l.ddr_turnaround_cycles},
      {"dma_cycles", l.dma_cycles},
      {"ddr_bytes", l.ddr_bytes},
      {"ddr_bytes_read", l.ddr_bytes_read},
      {"ddr_bytes_written", l.ddr_bytes_written},
      {"planned_ddr_bytes", l.planned_ddr_bytes},
      {"arithmetic_intensity", arithmetic_intensity(l)},
      {"achieved_tops", tops},
      {"peak_tops", config.peak_tops()},
      {"attainable_tops", l.ddr_bytes ? roof.attainable_tops(arithmetic_intensity(l)) : config.peak_tops()},
      {"start_cycle", l.start_cycle},
      {"end_cycle", l.end_cycle()},
      {"ddr_compulsory_bytes", l.compulsory_ddr_bytes},
      {"ddr_spill_bytes", l.spill_ddr_bytes},
      {"bound", layer_roofline_bound(l, roof)},
      {"busiest_unit", l.bound()},
      {"ddr_traffic", traffic},
  };
  if (l.device == "cpu") j["host_us"] = l.host_us;
  return j;
}

double overlap_efficiency(const std::vector<LayerTiming>& layers, const HardwareConfig& config, std::uint64_t npu_cycles) {
  const Roofline roof = roofline_of(config);
  double busiest = 0;
  for (const auto& l : layers) {
    if (l.device != "npu") continue;
    const double ddr = roof.ddr_bytes_per_cycle > 0 ? static_cast<double>(l.ddr_bytes) / roof.ddr_bytes_per_cycle : 0;
    busiest += std::max({static_cast<double>(l.compute_cycles), static_cast<double>(l.vector_cycles), ddr});
  }
  return npu_cycles ? busiest / static_cast<double>(npu_cycles) : 0.0;
}

std::vector<std::size_t> layer_order(const std::vector<LayerTiming>& layers, std::size_t top) {
  std::vector<std::size_t> order(layers.size());
  std::iota(order.begin(), order.end(), 0);
  if (top == 0) return order;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return layers[a].cycles > layers[b].cycles; });
  if (order.size() > top) order.resize(top);
  return order;
}

std::string format_layer_table(const std::vector<LayerTiming>& layers, const HardwareConfig& config,
                               std::size_t top) {
  const Roofline roof = roofline_of(config);
  std::string s;
  auto line = [&](auto&&... args) {
    s += fmt::format(std::forward<decltype(args)>(args)...);
    s += '\n';
  };
  if (top) line("{} costliest of {} layers by cycles:", std::min(top, layers.size()), layers.size());
  const char* row =
      "{:<22} {:<16} {:<3} {:>8} {:>8} {:>8} {:>7} {:>9} {:>9} {:>9} {:>8} {:>8} {:>8} {:>8} {:>8} {:>7} {:>6} {:<7}";
  line(row, "layer", "op", "dev", "MACs", "DDR B", "spill B", "MAC/B", "start", "end", "cycles", "load", "compute",
       "vector", "store", "stall", "TOPS", "%peak", "bound");
  for (const std::size_t i : layer_order(layers, top)) {
    const auto& l = layers[i];
    const double tops = layer_achieved_tops(l, config.clock.frequency_mhz);
    const std::string intensity = l.ddr_bytes && l.macs ? fmt::format("{:.1f}", arithmetic_intensity(l)) : "-";
    line(row, clip(l.name, 22), clip(l.op, 16), l.device, si(static_cast<double>(l.macs)),
         si(static_cast<double>(l.ddr_bytes)), si(static_cast<double>(l.spill_ddr_bytes)), intensity, l.start_cycle,
         l.end_cycle(), l.cycles, l.load_cycles, l.compute_cycles, l.vector_cycles,
         l.store_cycles, l.stall_cycles, fmt::format("{:.3f}", tops),
         fmt::format("{:.1f}", 100.0 * tops / config.peak_tops()), layer_roofline_bound(l, roof));
  }
  line("bound: compute or memory by the roofline (ridge {:.1f} MACs/B); '-': no MACs or no DDR bytes, or on the CPU; "
       "start/end: first instruction start and last end on the model timeline (layers overlap); spill B: DDR bytes "
       "of values written and read back within a step",
       roof.ridge_macs_per_byte());
  return s;
}

std::string layers_csv(const std::vector<LayerTiming>& layers, const HardwareConfig& config) {
  const Roofline roof = roofline_of(config);
  std::string s =
      "name,op,device,macs,ddr_bytes,ddr_bytes_read,ddr_bytes_written,arithmetic_intensity,cycles,load_cycles,"
      "compute_cycles,vector_cycles,store_cycles,stall_cycles,channel_wait_cycles,host_us,achieved_tops,peak_tops,"
      "bound,start_cycle,end_cycle,ddr_compulsory_bytes,ddr_spill_bytes\n";
  for (const auto& l : layers)
    s += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_field(l.name),
                     csv_field(l.op), l.device, l.macs, l.ddr_bytes, l.ddr_bytes_read, l.ddr_bytes_written,
                     arithmetic_intensity(l), l.cycles, l.load_cycles, l.compute_cycles, l.vector_cycles,
                     l.store_cycles, l.stall_cycles, l.channel_wait_cycles, l.host_us,
                     layer_achieved_tops(l, config.clock.frequency_mhz), config.peak_tops(),
                     layer_roofline_bound(l, roof), l.start_cycle, l.end_cycle(), l.compulsory_ddr_bytes,
                     l.spill_ddr_bytes);
  return s;
}

}  // namespace npu::report
