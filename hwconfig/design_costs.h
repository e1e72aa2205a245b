// What a design costs in energy, power and area, resolved from its config: either the figures
// the config's `energy:`/`area:` sections state (model: explicit) or, with
// `energy.model: derived`, every part looked up in a technology table (configs/tech/) for its
// size: SRAM by capacity, banks and port width; the MAC array by precision and rows x cols;
// the vector unit by lanes; DMA by channels and port width; DRAM by technology. The one place
// that maps a config onto pJ, mW and mm^2; the simulator's energy and the reports use it.
#pragma once
#include <string>
#include <vector>

#include "hwconfig/hardware_config.h"

namespace npu {

// One part of the design: its area and its leakage (both 0 when the model does not split them).
struct PartCost {
  std::string name;  // "sram", "mac_array", "vector", "dma", "fixed"
  double area_mm2 = 0;
  double leakage_mw = 0;
};

struct DesignCosts {
  bool has_energy = false;  // the config has an `energy:` section
  bool has_area = false;    // an `area:` section, or derived energy (which derives area too)
  bool derived = false;     // energy.model == derived
  std::string tech_table;   // derived: the table file used
  int tech_nm = 0;

  // Dynamic energy per event.
  double int8_mac_pj = 0, fp16_mac_pj = 0;
  double sram_read_pj_per_byte = 0, sram_write_pj_per_byte = 0;
  double ddr_pj_per_byte = 0;
  double vector_int_pj_per_element = 0, vector_fp_pj_per_element = 0;  // derived only
  double dma_pj_per_byte = 0;                                           // derived only

  // Static power, charged over the run's time. Explicit: static_mw only (leakage and clock
  // are not split); derived: leakage (sum of the parts) + clock + uncore.
  double leakage_mw = 0, clock_mw = 0, uncore_mw = 0;
  double static_mw() const { return leakage_mw + clock_mw + uncore_mw; }
  std::uint64_t clocked_bits = 0;  // derived: flip-flops the clock estimate charges

  std::vector<PartCost> parts;  // explicit: areas only; derived: areas and leakage
  double area_mm2 = 0;          // sum of the parts

  std::vector<std::string> notes;  // approximations made (nearest bank count, ...), one line each
  double sram_access_ns = 0;       // derived: CACTI's access time of the scratchpad (0: explicit)
};

// Throws ConfigError naming the config file and key (an unknown technology node, a size
// outside the table, a DRAM technology the table lacks). validate() calls it for derived
// configs, so a loaded config always resolves.
DesignCosts design_costs(const HardwareConfig& config);

// Cycles from a scratchpad bank read request to its data: sram.access_cycles, or with
// sram.timing: derived, ceil(access_ns x clock_GHz) (at least 1) from the technology table at
// the scratchpad's capacity, banks and width (the same lookup as its energy). Memoised per
// (table, sizes, clock), so the cost model may ask once per tiler or simulator.
int sram_access_cycles(const HardwareConfig& config);

}  // namespace npu
