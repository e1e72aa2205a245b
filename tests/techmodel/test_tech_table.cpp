// The technology-table reader against the files themselves: at every grid point it returns
// exactly the number written there (read back here with yaml-cpp directly, not through the
// reader), between grid points it is monotone and stays between its neighbours, and a bad
// table or a size outside it is one clear line.
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "techmodel/tech_table.h"

namespace fs = std::filesystem;
using npu::tech::TechTableError;

namespace {

const int kNodes[] = {7, 22, 45};
const char* kFields[] = {"read_pj_per_byte", "write_pj_per_byte", "leakage_mw", "area_mm2"};

std::string table_path(int node) { return std::string(NPUSIM_SOURCE_DIR) + "/configs/tech/" + std::to_string(node) + "nm.yaml"; }

double field_of(const npu::tech::SramFigures& f, const std::string& field) {
  if (field == "read_pj_per_byte") return f.read_pj_per_byte;
  if (field == "write_pj_per_byte") return f.write_pj_per_byte;
  if (field == "leakage_mw") return f.leakage_mw;
  return f.area_mm2;
}

std::string scratch(const std::string& name) {
  fs::path dir = fs::path(NPUSIM_BINARY_DIR) / "techmodel-test-files";
  fs::create_directories(dir);
  return (dir / name).string();
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string error_of(const std::string& path) {
  try {
    npu::tech::load_tech_table(path);
  } catch (const TechTableError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("SRAM figures at grid points are exactly the table's numbers", "[techmodel]") {
  for (int node : kNodes) {
    const auto table = npu::tech::load_tech_table(table_path(node));
    const YAML::Node doc = YAML::LoadFile(table_path(node));
    const YAML::Node caps = doc["sram"]["axes"]["capacity_kib"];
    REQUIRE(table->node_nm == node);
    REQUIRE(table->sram_monotonic);
    std::size_t checked = 0;
    for (const auto& series : doc["sram"]["series"]) {
      const int ports = series["rw_ports"].as<int>(), banks = series["banks"].as<int>();
      const int width = series["port_bytes"].as<int>();
      for (std::size_t i = 0; i < caps.size(); ++i) {
        const auto f = npu::tech::sram_figures(*table, caps[i].as<double>(), ports, banks, width);
        CHECK(f.notes.empty());
        for (const char* field : kFields) {
          const YAML::Node v = series[field][i];
          if (v.IsNull()) continue;
          INFO(node << " nm " << field << " at " << caps[i].as<double>() << " KiB, " << ports << " ports, " << banks
                    << " banks, " << width << " B");
          CHECK(field_of(f, field) == v.as<double>());
          ++checked;
        }
      }
    }
    CHECK(checked == 60 * 11 * 4);  // every series, capacity and field of the generated files
  }
}

TEST_CASE("logic and DRAM figures are the table's numbers", "[techmodel]") {
  const auto t = npu::tech::load_tech_table(table_path(7));
  const YAML::Node doc = YAML::LoadFile(table_path(7));
  CHECK(t->mac_int8.energy_pj == doc["mac"]["units_per_mac"]["int8"]["energy_pj"].as<double>());
  CHECK(t->mac_int8.area_um2 == doc["mac"]["units_per_mac"]["int8"]["area_um2"].as<double>());
  CHECK(t->mac_fp16.energy_pj == doc["mac"]["units_per_mac"]["fp16"]["energy_pj"].as<double>());
  CHECK(std::isnan(t->mac_fp16.leakage_uw));  // null in the file: no figure, not zero
  CHECK(t->pe_registers.energy_pj == doc["mac"]["pe_registers"]["energy_pj_per_mac"].as<double>());
  CHECK(t->vector_int_lane.area_um2 == doc["vector"]["components"]["int_lane_requant"]["area_um2"].as<double>());
  CHECK(t->register_32b.energy_pj == doc["vector"]["components"]["register_32b"]["energy_pj"].as<double>());
  const YAML::Node channels = doc["dma"]["channel"];
  REQUIRE(t->dma_channels.size() == channels.size());
  for (std::size_t i = 0; i < channels.size(); ++i)
    CHECK(t->dma_channels[i].energy_pj_per_byte == channels[i]["energy_pj_per_byte"].as<double>());
  CHECK(npu::tech::dma_channel_for(*t, 64).width_bytes == 64);
  CHECK(npu::tech::dma_channel_for(*t, 1024).width_bytes == 128);  // clamped to the widest
  CHECK(npu::tech::dma_channel_for(*t, 24).width_bytes == 32);     // nearest in log scale (tie: larger)
  REQUIRE(t->find_dram("lpddr4"));
  CHECK(*t->find_dram("LPDDR4")->energy_pj_per_bit == 8.0);
  CHECK(*t->find_dram("hbm2")->energy_pj_per_bit == 6.25);  // the first row of a technology is its default
  REQUIRE(t->find_dram("LPDDR5"));
  CHECK_FALSE(t->find_dram("LPDDR5")->energy_pj_per_bit.has_value());
  CHECK(t->find_dram("LPDDR6") == nullptr);
}

TEST_CASE("between grid points the SRAM figures are monotone and between their neighbours", "[techmodel]") {
  for (int node : kNodes) {
    const auto table = npu::tech::load_tech_table(table_path(node));
    const auto& caps = table->capacity_kib;
    for (const auto& s : table->sram) {
      double previous[4] = {0, 0, 0, 0};
      for (std::size_t i = 0; i + 1 < caps.size(); ++i) {
        for (int step = 0; step <= 16; ++step) {
          const double at = caps[i] * std::pow(caps[i + 1] / caps[i], step / 16.0);
          const auto f = npu::tech::sram_figures(*table, at, s.rw_ports, s.banks, s.port_bytes);
          for (int k = 0; k < 4; ++k) {
            const double v = field_of(f, kFields[k]);
            const std::vector<double>* column[] = {&s.read_pj_per_byte, &s.write_pj_per_byte, &s.leakage_mw, &s.area_mm2};
            const double lo = (*column[k])[i], hi = (*column[k])[i + 1];
            INFO(node << " nm " << kFields[k] << " at " << at << " KiB, banks " << s.banks << ", port " << s.port_bytes);
            CHECK(v >= previous[k]);
            CHECK(v >= lo * (1 - 1e-12));
            CHECK(v <= hi * (1 + 1e-12));
            previous[k] = v;
          }
        }
      }
    }
  }
}

TEST_CASE("SRAM lookup off the axes: nearest banks and width, small sizes scaled, large ones refused", "[techmodel]") {
  const auto t = npu::tech::load_tech_table(table_path(7));
  const auto at32 = npu::tech::sram_figures(*t, 1024, 1, 32, 64);
  const auto at64 = npu::tech::sram_figures(*t, 1024, 1, 64, 64);  // 64 banks: beyond the axis
  CHECK(at64.banks == 32);
  CHECK(at64.area_mm2 == at32.area_mm2);
  REQUIRE(at64.notes.size() == 1);
  CHECK_THAT(at64.notes[0], Catch::Contains("64 banks taken as 32"));

  const auto at16k = npu::tech::sram_figures(*t, 16, 1, 16, 64);
  const auto at4k = npu::tech::sram_figures(*t, 4, 1, 16, 64);  // below 16 KiB
  CHECK(at4k.read_pj_per_byte == at16k.read_pj_per_byte);
  CHECK(at4k.area_mm2 == at16k.area_mm2 * 0.25);
  CHECK(at4k.leakage_mw == at16k.leakage_mw * 0.25);
  CHECK_THAT(at4k.notes.at(0), Catch::Contains("below the table's smallest capacity"));

  try {
    npu::tech::sram_figures(*t, 32768, 1, 16, 64);
    FAIL("no error");
  } catch (const TechTableError& e) {
    CHECK(std::string(e.what()) == table_path(7) + ": sram: 32768 KiB is outside the table (16 to 16384 KiB)");
  }
  CHECK_THROWS_AS(npu::tech::sram_figures(*t, 1024, 3, 16, 64), TechTableError);  // no 3-port series
}

TEST_CASE("interpolation is log-log and exact at grid points", "[techmodel]") {
  const std::vector<double> x = {16, 64, 256}, y = {1, 4, NAN};
  CHECK(npu::tech::interpolate_log_log(x, y, 16) == 1);
  CHECK(npu::tech::interpolate_log_log(x, y, 32) == Approx(2.0).epsilon(1e-12));  // power law y = x/16
  CHECK(std::isnan(npu::tech::interpolate_log_log(x, y, 128)));  // null above: no neighbour
}

TEST_CASE("a bad table is one line naming the file and key", "[techmodel]") {
  const std::string good = read_text(table_path(7));
  auto variant = [&](const std::string& name, const std::string& from, const std::string& to) {
    std::string text = good;
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
    const std::string path = scratch(name);
    std::ofstream(path) << text;
    return path;
  };
  const auto version = variant("v2.yaml", "format_version: 1", "format_version: 2");
  CHECK(error_of(version) == version + ": format_version: this npusim reads version 1 (got 2)");
  const auto format = variant("fmt.yaml", "format: \"npusim-tech-table\"", "format: \"other\"");
  CHECK(error_of(format) == format + ": format: expected \"npusim-tech-table\"");
  const auto axis = variant("axis.yaml", "capacity_kib: [16, 32,", "capacity_kib: [32, 16,");
  CHECK(error_of(axis) == axis + ": sram.axes.capacity_kib: values must increase");
  const auto missing = variant("nomac.yaml", "  pe_registers:", "  pe_regs:");
  CHECK(error_of(missing) == missing + ": mac.pe_registers: missing");
  const auto negative = variant("neg.yaml", "leakage_mw: [0.00128,", "leakage_mw: [-0.00128,");
  CHECK_THAT(error_of(negative), Catch::Contains(": sram.series[0].leakage_mw: values must be positive"));
  CHECK(error_of(scratch("absent.yaml")) == scratch("absent.yaml") + ": no such technology table");
  for (const auto& e : {error_of(version), error_of(axis), error_of(negative)}) CHECK(e.find('\n') == std::string::npos);
}
