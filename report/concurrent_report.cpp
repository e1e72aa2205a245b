#include "report/concurrent_report.h"

#include <fmt/format.h>

namespace npu::report {
namespace {

double us(std::uint64_t cycles, const HardwareConfig& config) {
  return static_cast<double>(cycles) / config.clock.frequency_mhz;
}

std::uint64_t sum_solo(const runtime::ConcurrentResult& r) {
  std::uint64_t sum = 0;
  for (const auto& m : r.models) sum += m.solo_cycles;
  return sum;
}

}  // namespace

std::string format_concurrent(const runtime::ConcurrentResult& r, const HardwareConfig& config) {
  std::string s = fmt::format("{} models on {} ({} engines, timing only)\n", r.models.size(), config.name,
                              config.engines.count);
  s += fmt::format("{:<32} {:>9} {:>12} {:>14} {:>9}\n", "model", "engines", "alone us", "together us", "slowdown");
  for (const auto& m : r.models)
    s += fmt::format("{:<32} {:>9} {:>12.3f} {:>14.3f} {:>8.3f}x\n", m.path,
                     fmt::format("{}-{}", m.first_engine, m.first_engine + m.engine_count - 1), us(m.solo_cycles, config),
                     us(m.together_cycles, config), m.slowdown());
  const std::uint64_t serial = sum_solo(r);
  s += fmt::format("makespan {:.3f} us together; {:.3f} us one after another on their engines ({:.2f}x)\n",
                   us(r.makespan_cycles, config), us(serial, config),
                   r.makespan_cycles ? static_cast<double>(serial) / static_cast<double>(r.makespan_cycles) : 0.0);
  s += fmt::format("DDR {} B read, {} B written together; slowdowns come from sharing its bandwidth\n",
                   r.combined.ddr_bytes_read, r.combined.ddr_bytes_written);
  return s;
}

nlohmann::json concurrent_json(const runtime::ConcurrentResult& r, const HardwareConfig& config) {
  nlohmann::json models = nlohmann::json::array();
  for (const auto& m : r.models)
    models.push_back({{"model", m.path},
                      {"first_engine", m.first_engine},
                      {"engine_count", m.engine_count},
                      {"solo_cycles", m.solo_cycles},
                      {"together_cycles", m.together_cycles},
                      {"solo_us", us(m.solo_cycles, config)},
                      {"together_us", us(m.together_cycles, config)},
                      {"slowdown", m.slowdown()}});
  return {{"config", config.name},
          {"engines", config.engines.count},
          {"models", models},
          {"makespan_cycles", r.makespan_cycles},
          {"makespan_us", us(r.makespan_cycles, config)},
          {"sum_solo_cycles", sum_solo(r)},
          {"ddr_bytes_read", r.combined.ddr_bytes_read},
          {"ddr_bytes_written", r.combined.ddr_bytes_written}};
}

}  // namespace npu::report
