#include "report/design_cost_report.h"

#include <filesystem>

#include <fmt/format.h>

#include "report/sim_summary.h"

namespace npu::report {
namespace {

double per(double numerator, double denominator) { return denominator > 0 ? numerator / denominator : 0.0; }

std::string source_of(const HardwareConfig& config) {
  return config.source_path.empty() ? config.name : config.source_path;
}

// A table path as the user would type it: relative to the working directory when inside it.
std::string shown_path(const std::string& path) {
  std::error_code ec;
  const auto relative = std::filesystem::relative(path, ec).string();
  return ec || relative.empty() || relative.rfind("..", 0) == 0 ? path : relative;
}

}  // namespace

void add_design_cost_json(nlohmann::json& j, const sim::SimResult& r, const HardwareConfig& config,
                          const DesignCosts& c) {
  if (r.energy) {
    const auto& e = *r.energy;
    j["energy"] = {{"mac_int8_uj", e.mac_int8_uj},
                   {"mac_fp16_uj", e.mac_fp16_uj},
                   {"sram_uj", e.sram_uj},
                   {"ddr_uj", e.ddr_uj},
                   {"vector_uj", e.vector_uj},
                   {"dma_uj", e.dma_uj},
                   {"leakage_uj", e.leakage_uj},
                   {"clock_uj", e.clock_uj},
                   {"static_uj", e.static_uj},
                   {"total_uj", e.total_uj},
                   {"static_mw", e.static_mw},
                   {"average_power_mw", e.average_power_mw},
                   {"tops_per_watt", e.tops_per_watt},
                   {"inferences_per_joule", per(1e6, e.total_uj)},
                   {"energy_delay_uj_us", e.total_uj * r.latency_us}};
  } else {
    j["energy"] = nullptr;
    j["energy_note"] = energy_missing_note(config);
  }
  if (c.has_area) {
    nlohmann::json area = {{"total_mm2", c.area_mm2},
                           {"peak_tops_per_mm2", per(r.peak_tops, c.area_mm2)},
                           {"achieved_tops_per_mm2", per(r.achieved_tops, c.area_mm2)}};
    for (const auto& p : c.parts) area[p.name + "_mm2"] = p.area_mm2;
    j["area"] = area;
  } else {
    j["area"] = nullptr;
    j["area_note"] = fmt::format("area: not modelled ({} has no area section and explicit energy)", source_of(config));
  }
  if (c.derived) {
    nlohmann::json leakage = {{"total_mw", c.leakage_mw}};
    for (const auto& p : c.parts)
      if (p.name != "fixed") leakage[p.name + "_mw"] = p.leakage_mw;
    leakage["clock_mw"] = c.clock_mw;
    leakage["uncore_mw"] = c.uncore_mw;
    j["leakage"] = leakage;
  } else {
    j["leakage"] = nullptr;
  }
  j["cost_model"] = {{"model", choice_name(c.derived ? EnergyModel::Derived : EnergyModel::Explicit)},
                     {"tech_nm", c.derived ? nlohmann::json(c.tech_nm) : nlohmann::json(nullptr)},
                     {"tech_table", c.tech_table},
                     {"notes", c.notes}};
}

std::string format_design_costs(const sim::SimResult& r, const HardwareConfig& config, const DesignCosts& c) {
  std::string s;
  auto line = [&](auto&&... args) {
    s += fmt::format(std::forward<decltype(args)>(args)...);
    s += '\n';
  };
  if (r.energy) {
    const auto& e = *r.energy;
    std::string derived_parts;
    if (c.derived)
      derived_parts = fmt::format(", vector {:.3f}, DMA {:.3f}", e.vector_uj, e.dma_uj);
    std::string static_split;
    if (c.derived) static_split = fmt::format(" (leakage {:.3f}, clock {:.3f})", e.leakage_uj, e.clock_uj);
    line("energy            {:.3f} uJ: MAC int8 {:.3f} + fp16 {:.3f}, SRAM {:.3f}, DDR {:.3f}{}, static {:.3f}{}",
         e.total_uj, e.mac_int8_uj, e.mac_fp16_uj, e.sram_uj, e.ddr_uj, derived_parts, e.static_uj, static_split);
    line("power             {:.1f} mW average ({:.1f} mW static), {:.3f} TOPS/W, {:.0f} inferences/J, "
         "energy-delay {:.4g} uJ*us",
         e.average_power_mw, e.static_mw, e.tops_per_watt, per(1e6, e.total_uj), e.total_uj * r.latency_us);
  } else {
    line("{}", energy_missing_note(config));
  }
  if (c.has_area) {
    std::string parts;
    for (const auto& p : c.parts) parts += fmt::format("{}{} {:.4g}", parts.empty() ? "" : ", ", p.name, p.area_mm2);
    line("area              {:.4g} mm^2 ({}); {:.3f} peak TOPS/mm^2, {:.3f} achieved", c.area_mm2, parts,
         per(r.peak_tops, c.area_mm2), per(r.achieved_tops, c.area_mm2));
  }
  if (c.derived) {
    std::string parts;
    for (const auto& p : c.parts)
      if (p.name != "fixed") parts += fmt::format("{}{} {:.4g}", parts.empty() ? "" : ", ", p.name, p.leakage_mw);
    line("static power      {:.4g} mW: leakage {:.4g} ({}), clock {:.4g} ({} flip-flops), uncore {:.4g}",
         c.static_mw(), c.leakage_mw, parts, c.clock_mw, c.clocked_bits, c.uncore_mw);
    line("cost model        derived from {} ({} nm)", shown_path(c.tech_table), c.tech_nm);
    for (const auto& n : c.notes) line("                  {}", n);
  }
  return s;
}

}  // namespace npu::report
