#include "report/compare_configs.h"

#include <fmt/format.h>

namespace npu::report {

namespace {

struct Metric {
  const char* name;
  const char* unit;
  nlohmann::json::json_pointer path;
  const char* format;  // fmt spec for one value
};

const std::vector<Metric>& metrics() {
  using P = nlohmann::json::json_pointer;
  static const std::vector<Metric> list = {
      {"latency", "us", P("/latency_us"), "{:.3f}"},
      {"NPU cycles", "", P("/cycles"), "{:.0f}"},
      {"NPU time", "us", P("/npu_latency_us"), "{:.3f}"},
      {"CPU fallback", "us", P("/time/cpu_fallback_us"), "{:.3f}"},
      {"transfers", "us", P("/time/transfer_us"), "{:.3f}"},
      {"peak TOPS", "", P("/peak_tops"), "{:.3f}"},
      {"achieved TOPS", "", P("/achieved_tops"), "{:.3f}"},
      {"MAC utilization", "", P("/mac_utilization"), "{:.4f}"},
      {"DDR read", "B", P("/ddr/bytes_read"), "{:.0f}"},
      {"DDR written", "B", P("/ddr/bytes_written"), "{:.0f}"},
      {"DDR bandwidth use", "", P("/ddr/bandwidth_utilization"), "{:.4f}"},
      {"SRAM peak", "B", P("/sram/peak_bytes"), "{:.0f}"},
      {"energy", "uJ", P("/energy/total_uj"), "{:.3f}"},
      {"DDR energy", "uJ", P("/energy/ddr_uj"), "{:.3f}"},
      {"average power", "mW", P("/energy/average_power_mw"), "{:.1f}"},
      {"TOPS/W", "", P("/energy/tops_per_watt"), "{:.3f}"},
      {"static power", "mW", P("/energy/static_mw"), "{:.2f}"},
      {"area", "mm^2", P("/area/total_mm2"), "{:.3f}"},
      {"peak TOPS/mm^2", "", P("/area/peak_tops_per_mm2"), "{:.3f}"},
      {"energy-delay", "uJ*us", P("/energy/energy_delay_uj_us"), "{:.4g}"},
  };
  return list;
}

nlohmann::json value_at(const nlohmann::json& report, const nlohmann::json::json_pointer& path) {
  if (!report.contains(path)) return nullptr;
  const auto& v = report.at(path);
  return v.is_number() ? v : nlohmann::json(nullptr);
}

}  // namespace

nlohmann::json compare_json(const std::vector<nlohmann::json>& reports) {
  nlohmann::json configs = nlohmann::json::array(), rows = nlohmann::json::array();
  for (const auto& r : reports) configs.push_back(r.value("config", ""));
  for (const auto& m : metrics()) {
    nlohmann::json values = nlohmann::json::array(), ratios = nlohmann::json::array();
    for (const auto& r : reports) values.push_back(value_at(r, m.path));
    for (const auto& v : values) {
      const auto& base = values[0];
      if (v.is_null() || base.is_null() || base.get<double>() == 0) ratios.push_back(nullptr);
      else ratios.push_back(v.get<double>() / base.get<double>());
    }
    rows.push_back({{"name", m.name}, {"unit", m.unit}, {"values", values}, {"ratios", ratios}});
  }
  return {{"configs", configs}, {"metrics", rows}};
}

std::string format_compare(const std::vector<nlohmann::json>& reports) {
  const auto table = compare_json(reports);
  const std::size_t n = reports.size();
  std::string s = fmt::format("{:<22}", "");
  for (std::size_t i = 0; i < n; ++i) s += fmt::format(" {:>18}", fmt::format("{}: {}", char('A' + i), table["configs"][i].get<std::string>()).substr(0, 18));
  for (std::size_t i = 1; i < n; ++i) s += fmt::format(" {:>8}", fmt::format("{}/A", char('A' + i)));
  s += '\n';
  for (std::size_t k = 0; k < table["metrics"].size(); ++k) {
    const auto& row = table["metrics"][k];
    const Metric& m = metrics()[k];
    const std::string unit = row["unit"].get<std::string>();
    s += fmt::format("{:<22}", unit.empty() ? m.name : fmt::format("{} ({})", m.name, unit));
    for (const auto& v : row["values"])
      s += fmt::format(" {:>18}", v.is_null() ? std::string("-") : fmt::format(fmt::runtime(m.format), v.get<double>()));
    for (std::size_t i = 1; i < n; ++i) {
      const auto& r = row["ratios"][i];
      s += fmt::format(" {:>8}", r.is_null() ? std::string("-") : fmt::format("{:.3f}", r.get<double>()));
    }
    s += '\n';
  }
  for (std::size_t i = 0; i < n; ++i)
    if (reports[i].contains("energy_note")) s += fmt::format("{}: {}\n", char('A' + i), reports[i]["energy_note"].get<std::string>());
  return s;
}

}  // namespace npu::report
