#include "hwconfig/hardware_config.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "hwconfig/config_internal.h"
#include "hwconfig/design_costs.h"
#include "hwconfig/dram_standards.h"

namespace npu {

// Every section's defaults are the schema's (config_schema.cpp).
ClockConfig::ClockConfig() : ClockConfig(schema::defaults().clock) {}
DdrConfig::DdrConfig() : DdrConfig(schema::defaults().ddr) {}
SramConfig::SramConfig() : SramConfig(schema::defaults().sram) {}
DmaConfig::DmaConfig() : DmaConfig(schema::defaults().dma) {}
DramConfig::DramConfig() : DramConfig(schema::defaults().dram) {}
MacArrayConfig::MacArrayConfig() : MacArrayConfig(schema::defaults().mac_array) {}
VectorConfig::VectorConfig() : VectorConfig(schema::defaults().vector) {}
ControllerConfig::ControllerConfig() : ControllerConfig(schema::defaults().controller) {}
EnginesConfig::EnginesConfig() : EnginesConfig(schema::defaults().engines) {}
HostConfig::HostConfig() : HostConfig(schema::defaults().host) {}
EnergyConfig::EnergyConfig() : EnergyConfig(*schema::defaults().energy) {}
AreaConfig::AreaConfig() : AreaConfig(*schema::defaults().area) {}

HardwareConfig::HardwareConfig() : HardwareConfig(schema::defaults()) {
  energy.reset();
  area.reset();
}

HardwareConfig::HardwareConfig(BlankConfig blank)
    : clock(blank), ddr(blank), sram(blank), dma(blank), dram(blank), mac_array(blank), vector(blank),
      controller(blank), engines(blank), host(blank) {}

namespace detail {

std::string format_number(double v) {
  if (std::isnan(v)) return ".nan";
  if (std::isinf(v)) return v > 0 ? ".inf" : "-.inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string quote(const std::string& s, std::size_t max_len) {
  std::string out = "\"";
  std::size_t n = 0;
  for (unsigned char ch : s) {
    if (n++ >= max_len) {
      out += "...";
      break;
    }
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (ch < 0x20 || ch == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", ch);
          out += buf;
        } else {
          out += static_cast<char>(ch);
        }
    }
  }
  return out + "\"";
}

std::optional<std::string> range_problem(const schema::Field& f, double v) {
  if (!std::isfinite(v)) return std::string("must be a finite number");
  if (f.min_exclusive ? !(v > f.min) : !(v >= f.min))
    return std::string(f.min_exclusive ? "must be > " : "must be >= ") + format_number(f.min);
  if (v > f.max) {
    std::string p = "must be <= " + format_number(f.max);
    if (*f.note) p += std::string(", ") + f.note;
    return p;
  }
  if (f.power_of_two) {
    auto u = static_cast<unsigned long long>(v);
    if (u == 0 || (u & (u - 1)) != 0) return std::string("must be a power of two");
  }
  return std::nullopt;
}

void fail(const std::string& file, const std::string& path, const std::string& problem,
          const std::string& got) {
  std::string msg = file.empty() ? std::string("<config>") : file;
  if (!path.empty()) msg += ": " + path;
  msg += ": " + problem;
  if (!got.empty()) msg += " (got " + got + ")";
  for (auto& c : msg)
    if (c == '\n' || c == '\r') c = ' ';
  throw ConfigError(msg);
}

}  // namespace detail

namespace {

using schema::Field;
using schema::Kind;

// Checks one field of a built struct; `file` names the source in the message.
void check_field(const Field& f, const HardwareConfig& c, const std::string& file) {
  schema::Slot slot = schema::slot_of(f, c);
  if (std::holds_alternative<std::monostate>(slot)) return;  // optional section absent
  const std::string path = f.path();
  if (std::holds_alternative<std::string*>(slot)) return;
  if (auto* choice = std::get_if<schema::ChoiceRef>(&slot)) {
    // Only a value cast from an integer can be outside its enum.
    if (!choice->valid())
      detail::fail(file, path, "must be one of " + f.choices.names(), std::to_string(choice->index()));
    return;
  }
  double v = 0;
  if (auto* i = std::get_if<int*>(&slot)) v = **i;
  if (auto* x = std::get_if<double*>(&slot)) v = **x;
  if (auto* u = std::get_if<std::uint64_t*>(&slot)) {
    std::uint64_t unit = f.kind == Kind::MiB ? (1ull << 20) : 1024ull;
    v = static_cast<double>(**u) / static_cast<double>(unit);
    if (**u % unit != 0)
      detail::fail(file, path,
                   std::string("must be a whole number of ") + (f.kind == Kind::MiB ? "MiB" : "KiB"),
                   detail::format_number(v));
  }
  if (auto problem = detail::range_problem(f, v))
    detail::fail(file, path, *problem, detail::format_number(v));
}

}  // namespace

void validate(const HardwareConfig& c) {
  const std::string& file = c.source_path;
  for (const auto& f : schema::fields()) check_field(f, c, file);

  // Relations between keys.
  if (c.ddr.interleave_bytes < c.ddr.burst_bytes)
    detail::fail(file, "ddr.interleave_bytes",
                 "must be >= ddr.burst_bytes (" + std::to_string(c.ddr.burst_bytes) + ")",
                 std::to_string(c.ddr.interleave_bytes));
  if (c.ddr.row_bytes < c.ddr.burst_bytes)
    detail::fail(file, "ddr.row_bytes",
                 "must be >= ddr.burst_bytes (" + std::to_string(c.ddr.burst_bytes) + ")",
                 std::to_string(c.ddr.row_bytes));
  if (c.dma.arbitration_bytes < c.ddr.burst_bytes)
    detail::fail(file, "dma.arbitration_bytes",
                 "must be >= ddr.burst_bytes (" + std::to_string(c.ddr.burst_bytes) + ")",
                 std::to_string(c.dma.arbitration_bytes));
  if (c.ddr.model == DdrModel::Dram) {
    // The DRAM model takes the burst and the peak from the standard; the keys every other
    // reader uses (bus-byte counts, roofline, the compiler) must say the same.
    const DramStandard& d = dram_standard(c.dram.standard);
    if (c.ddr.burst_bytes != d.burst_bytes())
      detail::fail(file, "ddr.burst_bytes",
                   "must be " + std::to_string(d.burst_bytes()) + " with ddr.model dram and dram.standard " +
                       d.name() + " (channel width x burst length)",
                   std::to_string(c.ddr.burst_bytes));
    const double peak = d.channel_gbps() * c.ddr.channels;
    if (std::fabs(c.ddr.bandwidth_gbps - peak) > 0.005 * peak)
      detail::fail(file, "ddr.bandwidth_gbps",
                   "must be " + detail::format_number(std::round(peak * 1000.0) / 1000.0) +
                       " with ddr.model dram: " + std::to_string(c.ddr.channels) + " channels of " + d.name() +
                       " at " + detail::format_number(d.channel_gbps()) + " GB/s",
                   detail::format_number(c.ddr.bandwidth_gbps));
  }
  if (c.sram.capacity_bytes % static_cast<std::uint64_t>(c.sram.alignment_bytes) != 0)
    detail::fail(file, "sram.capacity_kib",
                 "must be a multiple of sram.alignment_bytes (" +
                     std::to_string(c.sram.alignment_bytes) + " bytes)",
                 detail::format_number(static_cast<double>(c.sram.capacity_bytes) / 1024.0));
  if (c.sram.timing == SramTiming::Derived) {
    if (!c.energy || !c.energy->derived())
      detail::fail(file, "sram.timing",
                   "derived needs energy.model: derived (its technology table gives the access time; this config has " +
                       std::string(c.energy ? "energy.model: explicit" : "no energy section") + ")");
    if (c.sram.access_cycles != 1)
      detail::fail(file, "sram.access_cycles",
                   "is given by the technology table with sram.timing: derived; set one or the other",
                   std::to_string(c.sram.access_cycles));
  }
  // Derived energy must resolve against its technology table (node, sizes, DRAM technology).
  if (c.energy && c.energy->derived()) design_costs(c);
}

bool operator==(const HardwareConfig& a, const HardwareConfig& b) {
  if (a.name != b.name || a.source_path != b.source_path) return false;
  if (a.energy.has_value() != b.energy.has_value() || a.area.has_value() != b.area.has_value())
    return false;
  if (a.provenance != b.provenance) return false;
  for (const auto& f : schema::fields()) {
    schema::Slot x = schema::slot_of(f, a), y = schema::slot_of(f, b);
    bool same = std::visit(
        [&](auto p) {
          using P = decltype(p);
          if constexpr (std::is_same_v<P, std::monostate>) {
            return std::holds_alternative<std::monostate>(y);
          } else if constexpr (std::is_same_v<P, schema::ChoiceRef>) {
            return p.index() == std::get<P>(y).index();
          } else {
            return *p == *std::get<P>(y);
          }
        },
        x);
    if (!same) return false;
  }
  return true;
}

}  // namespace npu
