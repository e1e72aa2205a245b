// What a design costs (hwconfig/design_costs.h): derived figures come from the technology
// table for the design's sizes, grow with the design, and every way a derived config can be
// wrong is one line naming the file and key.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>

#include "hwconfig/design_costs.h"
#include "hwconfig/hardware_config.h"
#include "techmodel/tech_table.h"
#include "tests/hwconfig/test_util.h"

using namespace hwtest;

namespace {

std::string derived_yaml(std::map<std::string, std::string> overrides = {}) {
  overrides.emplace("energy.model", "derived");
  return minimal_yaml(overrides);
}

std::string table_7nm() { return source_dir() + "/configs/tech/7nm.yaml"; }

const npu::PartCost& part(const npu::DesignCosts& d, const std::string& name) {
  for (const auto& p : d.parts)
    if (p.name == name) return p;
  throw std::runtime_error("no part " + name);
}

}  // namespace

TEST_CASE("derived costs are the table's figures for the design's sizes", "[hwconfig][costs]") {
  const auto c = npu::parse_hardware_config(derived_yaml({{"sram.banks", "16"}, {"sram.bank_width_bytes", "64"},
                                                          {"vector.lanes", "32"}, {"dma.channels", "2"},
                                                          {"energy.dram_technology", "HBM2"}}),
                                            "x.yaml");
  const auto d = npu::design_costs(c);
  const auto t = npu::tech::load_tech_table(table_7nm());
  const auto sram = npu::tech::sram_figures(*t, 1024, 1, 16, 64);
  REQUIRE(d.derived);
  CHECK(d.tech_nm == 7);
  CHECK(d.sram_read_pj_per_byte == sram.read_pj_per_byte);
  CHECK(d.sram_write_pj_per_byte == sram.write_pj_per_byte);
  CHECK(part(d, "sram").area_mm2 == sram.area_mm2);
  CHECK(part(d, "sram").leakage_mw == sram.leakage_mw);
  CHECK(d.int8_mac_pj == t->mac_int8.energy_pj + t->pe_registers.energy_pj);
  CHECK(part(d, "mac_array").area_mm2 == 1024 * (t->mac_int8.area_um2 + t->pe_registers.area_um2) / 1e6);
  CHECK(part(d, "vector").area_mm2 == 32 * (t->vector_int_lane.area_um2 + t->vector_fp_lane.area_um2) / 1e6);
  CHECK(part(d, "dma").leakage_mw == 2 * npu::tech::dma_channel_for(*t, 64).leakage_uw / 1e3);
  CHECK(d.ddr_pj_per_byte == 8 * 6.25);  // HBM2's first row: hwcomponents-cacti's 6.25 pJ/bit
  // Clock: 48 bits per PE, 64 per lane, 8 x width + 64 per DMA channel; one register-bit write
  // (register_32b / 64) per bit per cycle at 1000 MHz.
  CHECK(d.clocked_bits == 1024 * 48 + 32 * 64 + 2 * (64 * 8 + 64));
  CHECK(d.clock_mw == Approx(d.clocked_bits * t->register_32b.energy_pj / 64 * 1000 * 1e-3).epsilon(1e-12));
  CHECK(d.static_mw() == d.leakage_mw + d.clock_mw + d.uncore_mw);
  double sum = 0;
  for (const auto& p : d.parts) sum += p.area_mm2;
  CHECK(d.area_mm2 == Approx(sum).epsilon(1e-12));
  CHECK(part(d, "fixed").area_mm2 == 0);  // no area section: nothing beyond the table's parts
}

TEST_CASE("area and leakage grow with the scratchpad; its energy per byte does too", "[hwconfig][costs]") {
  npu::DesignCosts previous;
  for (int kib = 128; kib <= 16384; kib *= 2) {
    INFO(kib << " KiB");
    const auto d = npu::design_costs(
        npu::parse_hardware_config(derived_yaml({{"sram.capacity_kib", std::to_string(kib)}}), "x.yaml"));
    if (kib > 128) {
      CHECK(d.area_mm2 > previous.area_mm2);
      CHECK(part(d, "sram").leakage_mw > part(previous, "sram").leakage_mw);
      CHECK(d.sram_read_pj_per_byte >= previous.sram_read_pj_per_byte);
    }
    previous = d;
  }
}

TEST_CASE("explicit costs are the config's own figures", "[hwconfig][costs]") {
  const auto c = npu::load_hardware_config(preset("intel-npu-lunar-lake.yaml"));
  const auto d = npu::design_costs(c);
  CHECK_FALSE(d.derived);
  CHECK_FALSE(d.has_area);  // no area section
  CHECK(d.int8_mac_pj == c.energy->int8_mac_pj);
  CHECK(d.sram_read_pj_per_byte == c.energy->sram_byte_pj);
  CHECK(d.sram_write_pj_per_byte == c.energy->sram_byte_pj);
  CHECK(d.static_mw() == c.energy->static_mw);
  const auto a = npu::design_costs(npu::parse_hardware_config(
      minimal_yaml({{"area.mm2_per_mac", "0.001"}, {"area.mm2_per_sram_kib", "0.002"}, {"area.fixed_mm2", "0.5"}}),
      "x.yaml"));
  CHECK(a.has_area);
  CHECK(a.area_mm2 == Approx(0.001 * 1024 + 0.002 * 1024 + 0.5).epsilon(1e-12));
}

TEST_CASE("a derived config that cannot resolve is one line naming the key", "[hwconfig][costs][errors]") {
  CHECK(error_of(derived_yaml({{"energy.tech_nm", "5"}})) ==
        "configs/x.yaml: energy.tech_nm: no technology table for 5 nm (tables exist for 7, 22, 45 nm, in " +
            source_dir() + "/configs/tech)");
  CHECK(error_of(derived_yaml({{"energy.dram_technology", "LPDDR6"}})) ==
        "configs/x.yaml: energy.dram_technology: no DRAM technology \"LPDDR6\" in " + table_7nm() +
            " (it has LPDDR4, HBM2, HBM3, HBM4, DDR3, LPDDR, DDR4, GDDR6, LPDDR4X, LPDDR5, LPDDR5X, DDR5)");
  const std::string lpddr5 = error_of(derived_yaml({{"energy.dram_technology", "lpddr5"}}));
  CHECK(lpddr5.rfind("configs/x.yaml: energy.dram_technology: LPDDR5 has no energy figure in " + table_7nm(), 0) == 0);
  CHECK(lpddr5.find("leave energy.dram_technology empty and give energy.ddr_byte_pj") != std::string::npos);
  CHECK(error_of(derived_yaml({{"energy.model", "magic"}})) ==
        "configs/x.yaml: energy.model: must be one of explicit, derived (got \"magic\")");
  CHECK(error_of(derived_yaml({{"energy.sram_rw_ports", "3"}})) ==
        "configs/x.yaml: energy.sram_rw_ports: must be <= 2 (got 3)");

  // A table whose capacities stop at 1 MiB (the 7 nm file with its axis divided by 16):
  // a 2 MiB scratchpad is outside it.
  const std::string dir = scratch_dir("design-costs");
  std::string text = read_file(table_7nm());
  const std::string axis = "capacity_kib: [16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]";
  const auto at = text.find(axis);
  REQUIRE(at != std::string::npos);
  text.replace(at, axis.size(), "capacity_kib: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]");
  write_file(dir + "/small.yaml", text);
  write_file(dir + "/cfg.yaml", derived_yaml({{"sram.capacity_kib", "2048"}, {"energy.tech_table", "small.yaml"}}));
  CHECK(load_error(dir + "/cfg.yaml") == dir + "/cfg.yaml: sram.capacity_kib: " + dir +
                                             "/small.yaml: sram: 2048 KiB is outside the table (1 to 1024 KiB)");
  write_file(dir + "/cfg22.yaml", derived_yaml({{"energy.tech_nm", "22"}, {"energy.tech_table", "small.yaml"}}));
  CHECK(load_error(dir + "/cfg22.yaml") ==
        dir + "/cfg22.yaml: energy.tech_nm: " + dir + "/small.yaml is a 7 nm table, not 22 nm");
  write_file(dir + "/nofile.yaml", derived_yaml({{"energy.tech_table", "none.yaml"}}));
  CHECK(load_error(dir + "/nofile.yaml") ==
        dir + "/nofile.yaml: energy.tech_table: " + dir + "/none.yaml: no such technology table");
}

TEST_CASE("a derived config dumps and reads back equal, its table path resolved", "[hwconfig][costs]") {
  const std::string dir = scratch_dir("design-costs-dump");
  write_file(dir + "/copy.yaml", read_file(table_7nm()));
  write_file(dir + "/cfg.yaml", derived_yaml({{"energy.tech_table", "copy.yaml"}}));
  const auto c = npu::load_hardware_config(dir + "/cfg.yaml");
  CHECK(c.energy->tech_table == dir + "/copy.yaml");  // relative to the config file
  const auto again = npu::parse_hardware_config(npu::dump_hardware_config(c), c.source_path);
  CHECK(again == c);
  CHECK(npu::design_costs(again).area_mm2 == npu::design_costs(c).area_mm2);
}

TEST_CASE("derived SRAM timing: ceil(CACTI access time x clock) for the scratchpad's size", "[hwconfig][costs]") {
  // 7 nm, 16 banks x 64 B: access_ns 0.8039 at 1 MiB, 1.052 at 2 MiB, 2.605 at 16 MiB (the
  // table's grid values); at 1 GHz that is 1, 2 and 3 cycles, at 2 GHz 2, 3 and 6.
  const auto t = npu::tech::load_tech_table(table_7nm());
  CHECK(npu::tech::sram_figures(*t, 1024, 1, 16, 64).access_ns == 0.8039);
  CHECK(npu::tech::sram_figures(*t, 16384, 1, 16, 64).access_ns == 2.605);
  auto cycles = [](const char* kib, const char* mhz) {
    return npu::sram_access_cycles(npu::parse_hardware_config(
        derived_yaml({{"sram.timing", "derived"}, {"sram.capacity_kib", kib}, {"sram.banks", "16"},
                      {"sram.bank_width_bytes", "64"}, {"clock.frequency_mhz", mhz}}),
        "x.yaml"));
  };
  CHECK(cycles("1024", "1000") == 1);
  CHECK(cycles("2048", "1000") == 2);
  CHECK(cycles("16384", "1000") == 3);
  CHECK(cycles("1024", "2000") == 2);
  CHECK(cycles("2048", "2000") == 3);
  CHECK(cycles("16384", "2000") == 6);
  // explicit: the key as given, whatever the energy model.
  CHECK(npu::sram_access_cycles(npu::parse_hardware_config(minimal_yaml({{"sram.access_cycles", "4"}}), "x.yaml")) == 4);
  CHECK(npu::sram_access_cycles(npu::parse_hardware_config(minimal_yaml(), "x.yaml")) == 1);

  CHECK(error_of(minimal_yaml({{"sram.timing", "derived"}})) ==
        "configs/x.yaml: sram.timing: derived needs energy.model: derived (its technology table gives the access "
        "time; this config has no energy section)");
  CHECK(error_of(derived_yaml({{"sram.timing", "derived"}, {"sram.access_cycles", "2"}})) ==
        "configs/x.yaml: sram.access_cycles: is given by the technology table with sram.timing: derived; set one or "
        "the other (got 2)");
}
