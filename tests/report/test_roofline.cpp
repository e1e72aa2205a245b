// The roofline of a config: ceiling, slope, ridge, and the verdict per layer.
#include <catch2/catch.hpp>

#include "hwconfig/hardware_config.h"
#include "report/layer_table.h"
#include "report/roofline.h"

using namespace npu;
using namespace npu::report;

TEST_CASE("the 40-TOPS preset's ridge is 363.6 MACs (727 ops) per DDR byte", "[roofline]") {
  const auto config = load_hardware_config(NPUSIM_SOURCE_DIR "/configs/npu-40tops-55gbps.yaml");
  const Roofline roof = roofline_of(config);
  CHECK(roof.peak_tops == Approx(40.0));
  CHECK(roof.ddr_gbps == 55.0);
  CHECK(roof.ridge_macs_per_byte() == Approx(16384 / (55e3 / 1220.703125)));
  CHECK(2 * roof.ridge_macs_per_byte() == Approx(40e12 / 55e9));
  // the slope: 2 ops x intensity x bandwidth; the ceiling: peak
  CHECK(roof.attainable_tops(100) == Approx(2 * 100 * 55e9 / 1e12));
  CHECK(roof.attainable_tops(1e6) == Approx(40.0));
  CHECK(roof.attainable_tops(roof.ridge_macs_per_byte()) == Approx(40.0));
}

TEST_CASE("other agents' share of DDR lowers the slope and moves the ridge", "[roofline]") {
  HardwareConfig config;
  config.mac_array.rows = config.mac_array.cols = 32;
  config.clock.frequency_mhz = 1000;
  config.ddr.bandwidth_gbps = 32;
  config.ddr.other_agents_share = 0.5;
  const Roofline roof = roofline_of(config);
  CHECK(roof.ddr_bytes_per_cycle == Approx(16));
  CHECK(roof.ridge_macs_per_byte() == Approx(64));
}

TEST_CASE("compute- or memory-bound by the ridge, '-' without MACs or DDR bytes", "[roofline]") {
  HardwareConfig config;
  config.mac_array.rows = config.mac_array.cols = 32;
  config.clock.frequency_mhz = 1000;
  config.ddr.bandwidth_gbps = 25.6;  // 25.6 B/cycle at 1 GHz, ridge 40 MACs/B
  const Roofline roof = roofline_of(config);
  CHECK(report::roofline_bound(roof, 3999, 100) == "memory");
  CHECK(report::roofline_bound(roof, 4000, 100) == "compute");
  CHECK(report::roofline_bound(roof, 0, 100) == "-");
  CHECK(report::roofline_bound(roof, 100, 0) == "-");
  report::LayerTiming cpu;
  cpu.device = "cpu";
  cpu.macs = 1000;
  cpu.ddr_bytes = 1;
  CHECK(report::layer_roofline_bound(cpu, roof) == "-");
}

TEST_CASE("the ASCII chart draws slope, ceiling, ridge and the points", "[roofline]") {
  HardwareConfig config;
  config.mac_array.rows = config.mac_array.cols = 32;
  config.clock.frequency_mhz = 1000;
  config.ddr.bandwidth_gbps = 25.6;
  const Roofline roof = roofline_of(config);
  const auto text = report::ascii_roofline(roof, {{"a", 2.0, 0.05}, {"b", 400.0, 1.5}});
  CHECK(text.find('/') != std::string::npos);
  CHECK(text.find('-') != std::string::npos);
  CHECK(text.find('|') != std::string::npos);
  CHECK(text.find('A') != std::string::npos);
  CHECK(text.find('B') != std::string::npos);
  CHECK(text.find("ridge '|' at 40.0") != std::string::npos);
}
