// `base: other.yaml`: a preset overrides a few keys of another.
#include <catch2/catch.hpp>

#include "hwconfig/hardware_config.h"
#include "tests/hwconfig/test_util.h"

using namespace hwtest;

TEST_CASE("base: the including file overrides, the rest is inherited", "[hwconfig][base]") {
  const std::string dir = scratch_dir("base_override");
  write_file(dir + "/parent.yaml", "name: parent\n" + minimal_yaml({{"sram.banks", "8"},
                                                                     {"vector.lanes", "64"},
                                                                     {"energy.static_mw", "7"}}));
  write_file(dir + "/child.yaml",
             "base: parent.yaml\nsram:\n  capacity_kib: 512\nmac_array:\n  dataflow: os\n");
  auto parent = npu::load_hardware_config(dir + "/parent.yaml");
  auto child = npu::load_hardware_config(dir + "/child.yaml");
  CHECK(child.sram.capacity_bytes == 512 * 1024);            // overridden
  CHECK(child.sram.banks == 8);                              // same section, inherited
  CHECK(child.mac_array.dataflow == npu::Dataflow::OutputStationary);
  CHECK(child.mac_array.rows == parent.mac_array.rows);      // deep merge within a section
  CHECK(child.vector.lanes == 64);
  REQUIRE(child.energy.has_value());                         // optional section inherited
  CHECK(child.energy->static_mw == 7);
  CHECK(child.name == "child");                              // a name is never inherited
  CHECK(child.source_path == dir + "/child.yaml");

  // The dump of the child stands alone.
  auto flat = npu::parse_hardware_config(npu::dump_hardware_config(child), child.source_path);
  CHECK(flat == child);
}

TEST_CASE("base: paths are relative to the including file; chains work", "[hwconfig][base]") {
  const std::string dir = scratch_dir("base_chain");
  std::filesystem::create_directories(dir + "/family/variants");
  // A fragment base need not be complete: required keys may come from further down.
  write_file(dir + "/family/common.yaml", "ddr:\n  bandwidth_gbps: 12.8\n  channels: 1\n");
  write_file(dir + "/family/mid.yaml",
             "base: common.yaml\nclock:\n  frequency_mhz: 800\nsram:\n  capacity_kib: 256\n");
  write_file(dir + "/family/variants/leaf.yaml",
             "base: ../mid.yaml\nname: leaf-16\nmac_array:\n  rows: 16\n  cols: 16\n"
             "ddr:\n  channels: 2\n");
  auto c = npu::load_hardware_config(dir + "/family/variants/leaf.yaml");
  CHECK(c.name == "leaf-16");
  CHECK(c.ddr.bandwidth_gbps == 12.8);
  CHECK(c.ddr.channels == 2);
  CHECK(c.clock.frequency_mhz == 800);
  CHECK(c.sram.capacity_bytes == 256 * 1024);
  CHECK(c.macs() == 256);

  // parse_hardware_config resolves base relative to the origin too.
  auto p = npu::parse_hardware_config("base: family/mid.yaml\nmac_array: {rows: 4, cols: 4}\n",
                                      dir + "/inline.yaml");
  CHECK(p.sram.capacity_bytes == 256 * 1024);
  CHECK(p.name == "inline");

  // A fragment alone is missing its required keys.
  CHECK(load_error(dir + "/family/mid.yaml") ==
        dir + "/family/mid.yaml: mac_array.rows: missing required key");
}

TEST_CASE("base: cycles are detected", "[hwconfig][base]") {
  const std::string dir = scratch_dir("base_cycle");
  write_file(dir + "/a.yaml", "base: b.yaml\n");
  write_file(dir + "/b.yaml", "base: ./a.yaml\n");
  CHECK(load_error(dir + "/a.yaml") ==
        dir + "/b.yaml: base: cycle: " + dir + "/a.yaml -> " + dir + "/b.yaml -> " + dir +
            "/a.yaml");
  write_file(dir + "/self.yaml", "base: self.yaml\n");
  CHECK(load_error(dir + "/self.yaml") ==
        dir + "/self.yaml: base: cycle: " + dir + "/self.yaml -> " + dir + "/self.yaml");
}

TEST_CASE("base: errors name the file they are in", "[hwconfig][base]") {
  const std::string dir = scratch_dir("base_errors");
  write_file(dir + "/missing.yaml", "base: nope.yaml\n");
  CHECK(load_error(dir + "/missing.yaml") ==
        dir + "/missing.yaml: base: file not found: " + dir + "/nope.yaml");

  write_file(dir + "/list.yaml", "base: [a.yaml, b.yaml]\n");
  CHECK(load_error(dir + "/list.yaml") == dir + "/list.yaml: base: expected a file name (got a list)");

  write_file(dir + "/typo-parent.yaml", minimal_yaml({{"dma.chanels", "2"}}));
  write_file(dir + "/typo-child.yaml", "base: typo-parent.yaml\n");
  CHECK(load_error(dir + "/typo-child.yaml") ==
        dir + "/typo-parent.yaml: dma.chanels: unknown key, did you mean \"dma.channels\"?");

  write_file(dir + "/bad-parent.yaml", minimal_yaml({{"mac_array.rows", "-3"}}));
  write_file(dir + "/bad-child.yaml", "base: bad-parent.yaml\nsram: {banks: 4}\n");
  CHECK(load_error(dir + "/bad-child.yaml") ==
        dir + "/bad-parent.yaml: mac_array.rows: must be >= 1 (got -3)");
  // ...and overriding the bad value fixes the child.
  write_file(dir + "/fixed-child.yaml", "base: bad-parent.yaml\nmac_array: {rows: 3}\n");
  CHECK(load_error(dir + "/fixed-child.yaml") == "<no error>");

  write_file(dir + "/syntax-parent.yaml", "clock: [\n");
  write_file(dir + "/syntax-child.yaml", "base: syntax-parent.yaml\n");
  CHECK(load_error(dir + "/syntax-child.yaml").rfind(dir + "/syntax-parent.yaml:2:1: invalid YAML: ", 0) == 0);

  // Too deep a chain (no cycle) is refused too.
  for (int i = 0; i < 20; ++i)
    write_file(dir + "/deep" + std::to_string(i) + ".yaml",
               "base: deep" + std::to_string(i + 1) + ".yaml\n");
  write_file(dir + "/deep20.yaml", minimal_yaml());
  CHECK(load_error(dir + "/deep0.yaml") ==
        dir + "/deep15.yaml: base: more than 16 levels of base files");
}
