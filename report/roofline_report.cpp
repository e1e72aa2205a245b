#include "report/roofline_report.h"

#include <fmt/format.h>

#include "report/layer_table.h"
#include "report/roofline.h"

namespace npu::report {

namespace {

bool on_roofline(const LayerTiming& l) { return l.device == "npu" && l.macs > 0 && l.ddr_bytes > 0; }

}  // namespace

nlohmann::json roofline_json(const ModelReport& report, const HardwareConfig& config) {
  const Roofline roof = roofline_of(config);
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& l : report.layers) {
    if (!on_roofline(l)) continue;
    layers.push_back({{"name", l.name},
                      {"op", l.op},
                      {"macs", l.macs},
                      {"ddr_bytes", l.ddr_bytes},
                      {"cycles", l.cycles},
                      {"arithmetic_intensity", arithmetic_intensity(l)},
                      {"achieved_tops", layer_achieved_tops(l, config.clock.frequency_mhz)},
                      {"attainable_tops", roof.attainable_tops(arithmetic_intensity(l))},
                      {"bound", layer_roofline_bound(l, roof)}});
  }
  return {{"config", config.name},
          {"model", report.model},
          {"precision", report.precision},
          {"clock_mhz", config.clock.frequency_mhz},
          {"peak_tops", roof.peak_tops},
          {"ddr_gbps", roof.ddr_gbps},
          {"peak_macs_per_cycle", roof.peak_macs_per_cycle},
          {"ddr_bytes_per_cycle", roof.ddr_bytes_per_cycle},
          {"ridge_macs_per_byte", roof.ridge_macs_per_byte()},
          {"achieved_tops", report.npu.achieved_tops},
          {"layers", layers}};
}

std::string format_roofline(const ModelReport& report, const HardwareConfig& config) {
  const Roofline roof = roofline_of(config);
  std::vector<RooflinePoint> points;
  std::vector<const LayerTiming*> shown;
  for (const auto& l : report.layers) {
    if (!on_roofline(l)) continue;
    points.push_back({l.name, arithmetic_intensity(l), layer_achieved_tops(l, config.clock.frequency_mhz)});
    shown.push_back(&l);
  }
  std::string s;
  auto line = [&](auto&&... args) {
    s += fmt::format(std::forward<decltype(args)>(args)...);
    s += '\n';
  };
  line("roofline of {} ({}x{} MACs at {:g} MHz, DDR {:g} GB/s)", config.name, config.mac_array.rows,
       config.mac_array.cols, config.clock.frequency_mhz, roof.ddr_gbps);
  line("  ceiling  {:.3f} TOPS ({:g} MACs/cycle)", roof.peak_tops, roof.peak_macs_per_cycle);
  line("  slope    {:.3f} TOPS per MAC/B (2 x {:g} GB/s; {:.2f} DDR bytes/cycle)", 2 * roof.ddr_gbps / 1000,
       roof.ddr_gbps, roof.ddr_bytes_per_cycle);
  line("  ridge    {:.1f} MACs per DDR byte ({:.1f} ops/B): below it a layer is memory-bound",
       roof.ridge_macs_per_byte(), 2 * roof.ridge_macs_per_byte());
  line("");
  s += ascii_roofline(roof, points);
  line("");
  line("{:<3} {:<24} {:<16} {:>9} {:>10} {:>9} {:>10} {:>6} {:<7}", "", "layer", "op", "MACs/B", "TOPS", "roof TOPS",
       "cycles", "%roof", "bound");
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const auto& l = *shown[i];
    const double attainable = roof.attainable_tops(points[i].macs_per_byte);
    line("{:<3} {:<24} {:<16} {:>9.1f} {:>10.3f} {:>9.3f} {:>10} {:>5.1f}% {:<7}",
         i < 26 ? std::string(1, static_cast<char>('A' + i)) : std::string("*"), l.name.substr(0, 24),
         l.op.substr(0, 16), points[i].macs_per_byte, points[i].achieved_tops, attainable, l.cycles,
         attainable > 0 ? 100 * points[i].achieved_tops / attainable : 0.0, layer_roofline_bound(l, roof));
  }
  if (shown.empty()) line("(no NPU layer with both MACs and DDR bytes to place)");
  return s;
}

}  // namespace npu::report
