#include "sim/trace_writer.h"

#include <algorithm>
#include <map>
#include <string>

#include <fmt/format.h>

namespace npu::sim {
namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20)
          out += fmt::format("\\u{:04x}", c);
        else
          out += ch;
    }
  }
  return out + "\"";
}

// Fixed thread ids so tracks appear in pipeline order: load, compute, vector, store,
// control, then DMA channels, then anything else in order of first use.
int track_id(const std::string& track, std::map<std::string, int>& extra) {
  static const std::map<std::string, int> fixed = {
      {"load", 1}, {"compute", 2}, {"vector", 3}, {"store", 4}, {"control", 5}};
  if (auto it = fixed.find(track); it != fixed.end()) return it->second;
  if (track.rfind("dma", 0) == 0 && track.size() > 3 &&
      track.find_first_not_of("0123456789", 3) == std::string::npos)
    return 10 + std::stoi(track.substr(3));
  auto [it, inserted] = extra.emplace(track, 1000 + static_cast<int>(extra.size()));
  return it->second;
}

}  // namespace

void write_chrome_trace(const SimResult& result, const HardwareConfig& config, std::ostream& out) {
  const double us_per_cycle = 1.0 / config.clock.frequency_mhz;
  // One process (a group of tracks) per engine; a one-engine run keeps pid 1 and its old name.
  const int engines = std::max<int>(1, static_cast<int>(result.engines.size()));
  std::map<std::string, int> extra;
  std::map<std::pair<int, int>, std::string> names;  // (pid, tid) -> track name
  for (int e = 0; e < engines; ++e) {
    // Every unit and DMA channel gets its track, even when idle in this run.
    for (const char* unit : {"load", "compute", "vector", "store"}) names.emplace(std::make_pair(1 + e, track_id(unit, extra)), unit);
    for (int c = 0; c < config.dma.channels; ++c) {
      const std::string track = "dma" + std::to_string(c);
      names.emplace(std::make_pair(1 + e, track_id(track, extra)), track);
    }
  }
  out << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  for (int e = 0; e < engines; ++e) {
    const std::string process = engines > 1 ? fmt::format("npusim {} engine {}", config.name, e) : "npusim " + config.name;
    out << (e ? ",\n" : "")
        << fmt::format("{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{},\"tid\":0,\"args\":{{\"name\":{}}}}}", 1 + e,
                       json_string(process));
  }
  for (const TraceEvent& e : result.trace) {
    const int tid = track_id(e.track, extra);
    const int pid = 1 + e.engine;
    names.emplace(std::make_pair(pid, tid), e.track);
    out << fmt::format(",\n{{\"name\":{},\"cat\":{},\"ph\":\"X\",\"pid\":{},\"tid\":{},\"ts\":{},\"dur\":{},\"args\":{{",
                       json_string(e.name), json_string(e.track), pid, tid,
                       static_cast<double>(e.start_cycle) * us_per_cycle,
                       static_cast<double>(e.duration_cycles) * us_per_cycle);
    out << "\"instruction\":" << e.instruction_index << ",\"start_cycle\":" << e.start_cycle
        << ",\"cycles\":" << e.duration_cycles;
    if (!e.layer.empty()) out << ",\"layer\":" << json_string(e.layer);
    for (const auto& [key, value] : e.args) out << "," << json_string(key) << ":" << value;
    out << "}}";
  }
  // Counter track (the shared DDR, on engine 0's group): Perfetto draws each sample's value
  // until the next one.
  for (const CounterSample& s : result.ddr_bandwidth)
    out << fmt::format(",\n{{\"name\":\"DDR bandwidth\",\"ph\":\"C\",\"pid\":1,\"ts\":{},\"args\":{{\"GB/s\":{}}}}}",
                       static_cast<double>(s.cycle) * us_per_cycle, s.gbps);
  for (const auto& [where, name] : names) {
    const auto [pid, tid] = where;
    out << fmt::format(",\n{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":{}}}}}",
                       pid, tid, json_string(name));
    out << fmt::format(",\n{{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":{},\"tid\":{},\"args\":{{\"sort_index\":{}}}}}",
                       pid, tid, tid);
  }
  out << "\n]}\n";
}

}  // namespace npu::sim
