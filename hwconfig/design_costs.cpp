#include "hwconfig/design_costs.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>

#include "hwconfig/config_internal.h"
#include "techmodel/tech_table.h"

namespace npu {
namespace {

constexpr double kUm2PerMm2 = 1e6;
constexpr double kUwPerMw = 1e3;
// Flip-flops per PE (8-bit input, 8-bit weight, 32-bit partial sum: mac.pe_registers.bits),
// per vector lane (its two 32-bit registers: vector.components.int_lane_requant) and per DMA
// channel besides its staging register (32-bit address and delta registers).
constexpr std::uint64_t kBitsPerPe = 8 + 8 + 32;
constexpr std::uint64_t kBitsPerVectorLane = 2 * 32;
constexpr std::uint64_t kDmaAddressBits = 2 * 32;

[[noreturn]] void fail(const HardwareConfig& c, const std::string& path, const std::string& problem) {
  detail::fail(c.source_path, path, problem);
}

std::string node_list() {
  std::string out;
  for (int n : tech::available_tech_nodes()) out += (out.empty() ? "" : ", ") + std::to_string(n);
  return out.empty() ? "none" : out;
}

std::shared_ptr<const tech::TechTable> table_for(const HardwareConfig& c) {
  const EnergyConfig& e = *c.energy;
  const bool custom = !e.tech_table.empty();
  const std::string path = custom ? e.tech_table : tech::default_tech_table_path(e.tech_nm);
  std::error_code ec;
  if (!custom && !std::filesystem::is_regular_file(path, ec))
    fail(c, "energy.tech_nm", "no technology table for " + std::to_string(e.tech_nm) + " nm (tables exist for " +
                                  node_list() + " nm, in " + std::filesystem::path(path).parent_path().string() + ")");
  std::shared_ptr<const tech::TechTable> table;
  try {
    table = tech::load_tech_table(path);
  } catch (const tech::TechTableError& err) {
    fail(c, custom ? "energy.tech_table" : "energy.tech_nm", err.what());
  }
  if (table->node_nm != e.tech_nm)
    fail(c, "energy.tech_nm",
         path + " is a " + std::to_string(table->node_nm) + " nm table, not " + std::to_string(e.tech_nm) + " nm");
  return table;
}

void add_part(DesignCosts& d, const char* name, double area_mm2, double leakage_mw) {
  d.parts.push_back({name, area_mm2, leakage_mw});
  d.area_mm2 += area_mm2;
  d.leakage_mw += leakage_mw;
}

void explicit_costs(const HardwareConfig& c, DesignCosts& d) {
  if (c.energy) {
    const EnergyConfig& e = *c.energy;
    d.int8_mac_pj = e.int8_mac_pj;
    d.fp16_mac_pj = e.fp16_mac_pj;
    d.sram_read_pj_per_byte = d.sram_write_pj_per_byte = e.sram_byte_pj;
    d.ddr_pj_per_byte = e.ddr_byte_pj;
    d.uncore_mw = e.static_mw;  // leakage and clock are not split out in this model
  }
  if (c.area) {
    const AreaConfig& a = *c.area;
    const double engines = c.engines.count;
    add_part(d, "sram", engines * a.mm2_per_sram_kib * static_cast<double>(c.sram.capacity_bytes) / 1024.0, 0);
    add_part(d, "mac_array", engines * a.mm2_per_mac * c.macs(), 0);
    add_part(d, "fixed", a.fixed_mm2, 0);
  }
}

double uw(double leakage_uw) { return std::isnan(leakage_uw) ? 0.0 : leakage_uw; }

void derived_costs(const HardwareConfig& c, DesignCosts& d) {
  const EnergyConfig& e = *c.energy;
  const auto table = table_for(c);
  const tech::TechTable& t = *table;
  d.tech_table = t.path;
  d.tech_nm = t.node_nm;

  tech::SramFigures sram;
  try {
    sram = tech::sram_figures(t, static_cast<double>(c.sram.capacity_bytes) / 1024.0, e.sram_rw_ports, c.sram.banks,
                              c.sram.bank_width_bytes);  // CACTI's port: one bank's access
  } catch (const tech::TechTableError& err) {
    fail(c, "sram.capacity_kib", err.what());
  }
  d.notes = sram.notes;
  d.sram_access_ns = sram.access_ns;
  d.sram_read_pj_per_byte = sram.read_pj_per_byte;
  d.sram_write_pj_per_byte = sram.write_pj_per_byte;
  // Every engine has its own scratchpad, array, vector lanes and DMA channels.
  const double engines = c.engines.count;
  add_part(d, "sram", engines * sram.area_mm2, engines * sram.leakage_mw);

  const double macs = static_cast<double>(c.total_macs());
  d.int8_mac_pj = t.mac_int8.energy_pj + t.pe_registers.energy_pj;
  d.fp16_mac_pj = t.mac_fp16.energy_pj + t.pe_registers.energy_pj;
  add_part(d, "mac_array", macs * (t.mac_int8.area_um2 + t.pe_registers.area_um2) / kUm2PerMm2,
           macs * (uw(t.mac_int8.leakage_uw) + uw(t.pe_registers.leakage_uw)) / kUwPerMw);

  const double lanes = engines * c.vector.lanes;
  d.vector_int_pj_per_element = t.vector_int_lane.energy_pj;
  d.vector_fp_pj_per_element = t.vector_fp_lane.energy_pj;
  add_part(d, "vector", lanes * (t.vector_int_lane.area_um2 + t.vector_fp_lane.area_um2) / kUm2PerMm2,
           lanes * (uw(t.vector_int_lane.leakage_uw) + uw(t.vector_fp_lane.leakage_uw)) / kUwPerMw);
  // The FP lane has no leakage figure (literature gives none): it counts 0 (configs/README.md).

  const tech::DmaChannel& dma = tech::dma_channel_for(t, c.sram.port_bytes_per_cycle);
  d.dma_pj_per_byte = dma.energy_pj_per_byte;
  const double channels = engines * c.dma.channels;
  add_part(d, "dma", channels * dma.area_um2 / kUm2PerMm2, channels * uw(dma.leakage_uw) / kUwPerMw);

  add_part(d, "fixed", c.area ? c.area->fixed_mm2 : 0.0, 0);

  if (e.dram_technology.empty()) {
    d.ddr_pj_per_byte = e.ddr_byte_pj;
  } else {
    const tech::DramTechnology* dram = t.find_dram(e.dram_technology);
    if (!dram)
      fail(c, "energy.dram_technology",
           "no DRAM technology \"" + e.dram_technology + "\" in " + t.path + " (it has " + t.dram_names() + ")");
    if (!dram->energy_pj_per_bit)
      fail(c, "energy.dram_technology",
           dram->technology + " has no energy figure in " + t.path + " (" + dram->note +
               "); leave energy.dram_technology empty and give energy.ddr_byte_pj");
    d.ddr_pj_per_byte = 8.0 * *dram->energy_pj_per_bit;
  }

  // Clock: no table models the clock tree. Every flip-flop of the array, the vector lanes and
  // the DMA channels is charged one register-bit write per cycle (register_32b is one write +
  // one read of 32 bits), an ungated clock's pin and wire load at the upper end; clock_scale
  // scales it (0 = fully gated). pJ per cycle x MHz x 1e-3 = mW.
  d.clocked_bits = static_cast<std::uint64_t>(macs) * kBitsPerPe +
                   static_cast<std::uint64_t>(lanes) * kBitsPerVectorLane +
                   static_cast<std::uint64_t>(channels) * (8ull * static_cast<unsigned>(dma.width_bytes) + kDmaAddressBits);
  const double pj_per_bit_cycle = t.register_32b.energy_pj / 64.0;
  d.clock_mw = e.clock_scale * static_cast<double>(d.clocked_bits) * pj_per_bit_cycle * c.clock.frequency_mhz * 1e-3;
  d.uncore_mw = e.uncore_mw;
}

}  // namespace

int sram_access_cycles(const HardwareConfig& c) {
  switch (c.sram.timing) {
    case SramTiming::Explicit: return c.sram.access_cycles;
    case SramTiming::Derived: break;
  }
  const EnergyConfig& e = *c.energy;  // validate(): derived timing needs derived energy
  static std::mutex mutex;
  static std::map<std::string, int> memo;
  const std::string key = e.tech_table + "|" + std::to_string(e.tech_nm) + "|" + std::to_string(e.sram_rw_ports) + "|" +
                          std::to_string(c.sram.capacity_bytes) + "|" + std::to_string(c.sram.banks) + "|" +
                          std::to_string(c.sram.bank_width_bytes) + "|" + detail::format_number(c.clock.frequency_mhz);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = memo.find(key); it != memo.end()) return it->second;
  }
  const double access_ns = design_costs(c).sram_access_ns;
  // Whole cycles, with sim/sim_time.h's tolerance (a time that is a whole number of cycles on
  // paper does not round up through floating-point noise).
  const int cycles = std::max(1, static_cast<int>(std::ceil(access_ns / c.cycle_ns() - 1e-6)));
  std::lock_guard<std::mutex> lock(mutex);
  memo.emplace(key, cycles);
  return cycles;
}

DesignCosts design_costs(const HardwareConfig& c) {
  DesignCosts d;
  d.has_energy = c.energy.has_value();
  d.derived = c.energy && c.energy->derived();
  d.has_area = d.derived || c.area.has_value();
  if (d.derived)
    derived_costs(c, d);
  else
    explicit_costs(c, d);
  return d;
}

}  // namespace npu
