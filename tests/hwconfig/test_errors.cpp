// Each kind of bad input gives exactly one line: "<file>: <key.path>: <problem> (got <value>)".
#include <catch2/catch.hpp>

#include "hwconfig/hardware_config.h"
#include "tests/hwconfig/test_util.h"

using namespace hwtest;

TEST_CASE("the minimal config is valid", "[hwconfig][errors]") {
  CHECK(error_of(minimal_yaml()) == "<no error>");
}

TEST_CASE("negative and zero sizes", "[hwconfig][errors]") {
  CHECK(error_of(minimal_yaml({{"sram.capacity_kib", "-4"}})) ==
        "configs/x.yaml: sram.capacity_kib: must be > 0 (got -4)");
  CHECK(error_of(minimal_yaml({{"sram.capacity_kib", "0"}})) ==
        "configs/x.yaml: sram.capacity_kib: must be > 0 (got 0)");
  CHECK(error_of(minimal_yaml({{"mac_array.rows", "-1"}})) ==
        "configs/x.yaml: mac_array.rows: must be >= 1 (got -1)");
  CHECK(error_of(minimal_yaml({{"ddr.bandwidth_gbps", "0"}})) ==
        "configs/x.yaml: ddr.bandwidth_gbps: must be > 0 (got 0)");
  CHECK(error_of(minimal_yaml({{"ddr.latency_ns", "-0.5"}})) ==
        "configs/x.yaml: ddr.latency_ns: must be >= 0 (got -0.5)");
  CHECK(error_of(minimal_yaml({{"dma.channels", "0"}})) ==
        "configs/x.yaml: dma.channels: must be >= 1 (got 0)");
  CHECK(error_of(minimal_yaml({{"energy.static_mw", "-1"}})) ==
        "configs/x.yaml: energy.static_mw: must be >= 0 (got -1)");
}

TEST_CASE("upper limits", "[hwconfig][errors]") {
  CHECK(error_of(minimal_yaml({{"sram.capacity_kib", "32768"}})) ==
        "configs/x.yaml: sram.capacity_kib: must be <= 16384, the 16 MiB reach of the ISA's "
        "24-bit SRAM addresses (got 32768)");
  CHECK(error_of(minimal_yaml({{"mac_array.cols", "99999999999999999999999"}})) ==
        "configs/x.yaml: mac_array.cols: must be <= 4096 (got 99999999999999999999999)");
  CHECK(error_of(minimal_yaml({{"mac_array.cols", "-99999999999999999999999"}})) ==
        "configs/x.yaml: mac_array.cols: must be >= 1 (got -99999999999999999999999)");
  CHECK(error_of(minimal_yaml({{"clock.frequency_mhz", "1e400"}})) ==
        "configs/x.yaml: clock.frequency_mhz: must be a finite number (got 1e400)");
  CHECK(error_of(minimal_yaml({{"clock.frequency_mhz", ".inf"}})) ==
        "configs/x.yaml: clock.frequency_mhz: must be a finite number (got .inf)");
  CHECK(error_of(minimal_yaml({{"clock.frequency_mhz", ".nan"}})) ==
        "configs/x.yaml: clock.frequency_mhz: must be a finite number (got .nan)");
}

TEST_CASE("other_agents_share must be within [0, 0.95]", "[hwconfig][errors]") {
  CHECK(error_of(minimal_yaml({{"ddr.other_agents_share", "0.99"}})) ==
        "configs/x.yaml: ddr.other_agents_share: must be <= 0.95 (got 0.99)");
  CHECK(error_of(minimal_yaml({{"ddr.other_agents_share", "-0.1"}})) ==
        "configs/x.yaml: ddr.other_agents_share: must be >= 0 (got -0.1)");
  CHECK(error_of(minimal_yaml({{"ddr.other_agents_share", "0.95"}})) == "<no error>");
  CHECK(error_of(minimal_yaml({{"ddr.other_agents_share", "0"}})) == "<no error>");
}

TEST_CASE("wrong types", "[hwconfig][errors]") {
  CHECK(error_of(minimal_yaml({{"mac_array.rows", "abc"}})) ==
        "configs/x.yaml: mac_array.rows: expected an integer (got \"abc\")");
  CHECK(error_of(minimal_yaml({{"mac_array.rows", "32.5"}})) ==
        "configs/x.yaml: mac_array.rows: expected an integer (got \"32.5\")");
  CHECK(error_of(minimal_yaml({{"mac_array.rows", "\"32\""}})) ==
        "configs/x.yaml: mac_array.rows: expected an integer (got \"32\")");
  CHECK(error_of(minimal_yaml({{"mac_array.rows", ""}})) ==
        "configs/x.yaml: mac_array.rows: expected an integer (got null)");
  CHECK(error_of(minimal_yaml({{"mac_array.rows", "[32, 32]"}})) ==
        "configs/x.yaml: mac_array.rows: expected an integer (got a list)");
  CHECK(error_of(minimal_yaml({{"ddr.bandwidth_gbps", "fast"}})) ==
        "configs/x.yaml: ddr.bandwidth_gbps: expected a number (got \"fast\")");
  CHECK(error_of(minimal_yaml({{"ddr.bandwidth_gbps", "{a: 1}"}})) ==
        "configs/x.yaml: ddr.bandwidth_gbps: expected a number (got a mapping)");
  CHECK(error_of(minimal_yaml({{"sram.capacity_kib", "1 MiB"}})) ==
        "configs/x.yaml: sram.capacity_kib: expected an integer (got \"1 MiB\")");
  CHECK(error_of(minimal_yaml({{"name", "[a, b]"}})) ==
        "configs/x.yaml: name: expected a string (got a list)");
  CHECK(error_of("clock: 5\n" + minimal_yaml().substr(minimal_yaml().find("ddr:"))) ==
        "configs/x.yaml: clock: expected a mapping of keys (got \"5\")");
  CHECK(error_of("- a\n- b\n") ==
        "configs/x.yaml: expected a mapping of keys at the top level (got a list)");
  CHECK(error_of("just words\n") ==
        "configs/x.yaml: expected a mapping of keys at the top level (got \"just words\")");
  // Numbers in other spellings are still numbers.
  CHECK(error_of(minimal_yaml({{"ddr.bandwidth_gbps", "+2.56e1"}})) == "<no error>");
  CHECK(error_of(minimal_yaml({{"ddr.latency_ns", "100"}})) == "<no error>");
}

TEST_CASE("powers of two where required", "[hwconfig][errors]") {
  CHECK(error_of(minimal_yaml({{"ddr.burst_bytes", "48"}})) ==
        "configs/x.yaml: ddr.burst_bytes: must be a power of two (got 48)");
  CHECK(error_of(minimal_yaml({{"sram.alignment_bytes", "3"}})) ==
        "configs/x.yaml: sram.alignment_bytes: must be a power of two (got 3)");
  CHECK(error_of(minimal_yaml({{"sram.banks", "12"}})) ==
        "configs/x.yaml: sram.banks: must be a power of two (got 12)");
  CHECK(error_of(minimal_yaml({{"dma.min_alignment_bytes", "6"}})) ==
        "configs/x.yaml: dma.min_alignment_bytes: must be a power of two (got 6)");
  CHECK(error_of(minimal_yaml({{"sram.banks", "1"}})) == "<no error>");
}

TEST_CASE("choices", "[hwconfig][errors]") {
  CHECK(error_of(minimal_yaml({{"mac_array.dataflow", "xs"}})) ==
        "configs/x.yaml: mac_array.dataflow: must be one of ws, os, is (got \"xs\")");
  CHECK(error_of(minimal_yaml({{"mac_array.dataflow", "WS"}})) ==
        "configs/x.yaml: mac_array.dataflow: must be one of ws, os, is (got \"WS\")");
  CHECK(error_of(minimal_yaml({{"mac_array.dataflow", "[ws]"}})) ==
        "configs/x.yaml: mac_array.dataflow: must be one of ws, os, is (got a list)");
  CHECK(error_of(minimal_yaml({{"ddr.model", "ramulator"}})) ==
        "configs/x.yaml: ddr.model: must be one of simple, banked, dram, ideal (got \"ramulator\")");
  CHECK(error_of(minimal_yaml({{"ddr.model", "banked"}})) == "<no error>");
  CHECK(error_of(minimal_yaml({{"dram.standard", "ddr4-3200"}})) ==
        "configs/x.yaml: dram.standard: must be one of lpddr4x-4266, lpddr5x-8533, ddr5-5600 (got \"ddr4-3200\")");
  CHECK(error_of(minimal_yaml({{"sram.bank_mapping", "striped"}})) ==
        "configs/x.yaml: sram.bank_mapping: must be one of block, interleaved (got \"striped\")");
  CHECK(error_of(minimal_yaml({{"dma.arbitration", "fifo"}})) ==
        "configs/x.yaml: dma.arbitration: must be one of round_robin, channel_priority (got \"fifo\")");
}

TEST_CASE("the dram model's burst and bandwidth follow its standard", "[hwconfig][errors]") {
  // The DRAM model takes both from dram.standard; the keys the compiler and the reports read
  // must agree. LPDDR4X-4266: 2 B x BL16 = 32 B bursts, 8.532 GB/s per channel.
  CHECK(error_of(minimal_yaml({{"ddr.model", "dram"}, {"ddr.burst_bytes", "64"}})) ==
        "configs/x.yaml: ddr.burst_bytes: must be 32 with ddr.model dram and dram.standard lpddr4x-4266 "
        "(channel width x burst length) (got 64)");
  CHECK(error_of(minimal_yaml({{"ddr.model", "dram"}, {"ddr.burst_bytes", "32"}, {"ddr.channels", "2"},
                               {"ddr.bandwidth_gbps", "25.6"}})) ==
        "configs/x.yaml: ddr.bandwidth_gbps: must be 17.064 with ddr.model dram: 2 channels of lpddr4x-4266 at "
        "8.532 GB/s (got 25.6)");
  CHECK(error_of(minimal_yaml({{"ddr.model", "dram"}, {"ddr.burst_bytes", "32"}, {"ddr.channels", "3"},
                               {"ddr.bandwidth_gbps", "25.6"}})) == "<no error>");
  CHECK(error_of(minimal_yaml({{"dma.arbitration_bytes", "32"}})) ==
        "configs/x.yaml: dma.arbitration_bytes: must be >= ddr.burst_bytes (64) (got 32)");
}

TEST_CASE("missing required keys", "[hwconfig][errors]") {
  CHECK(error_of(minimal_yaml({{"ddr.bandwidth_gbps", "<absent>"}})) ==
        "configs/x.yaml: ddr.bandwidth_gbps: missing required key");
  CHECK(error_of(minimal_yaml({{"mac_array.cols", "<absent>"}})) ==
        "configs/x.yaml: mac_array.cols: missing required key");
  CHECK(error_of(minimal_yaml({{"sram.capacity_kib", "<absent>"}})) ==
        "configs/x.yaml: sram.capacity_kib: missing required key");
  CHECK(error_of("") == "configs/x.yaml: clock.frequency_mhz: missing required key");
  CHECK(error_of("# only a comment\n") ==
        "configs/x.yaml: clock.frequency_mhz: missing required key");
}

TEST_CASE("unknown keys name the key and suggest the closest valid one", "[hwconfig][errors]") {
  CHECK(error_of(minimal_yaml({{"sram.capcity_kib", "512"}})) ==
        "configs/x.yaml: sram.capcity_kib: unknown key, did you mean \"sram.capacity_kib\"?");
  CHECK(error_of(minimal_yaml({{"mac_array.Rows", "8"}})) ==
        "configs/x.yaml: mac_array.Rows: unknown key, did you mean \"mac_array.rows\"?");
  CHECK(error_of(minimal_yaml({{"ddr.bandwith_gbps", "8"}})) ==
        "configs/x.yaml: ddr.bandwith_gbps: unknown key, did you mean \"ddr.bandwidth_gbps\"?");
  CHECK(error_of("mac_aray:\n  rows: 8\n" + minimal_yaml()) ==
        "configs/x.yaml: mac_aray: unknown key, did you mean \"mac_array\"?");
  // The right key in the wrong section.
  CHECK(error_of(minimal_yaml({{"sram.bandwidth_gbps", "8"}})) ==
        "configs/x.yaml: sram.bandwidth_gbps: unknown key, did you mean \"ddr.bandwidth_gbps\"?");
  CHECK(error_of("frequency_mhz: 1000\n" + minimal_yaml()) ==
        "configs/x.yaml: frequency_mhz: unknown key, did you mean \"clock.frequency_mhz\"?");
  // Nothing close: list what is valid there.
  CHECK(error_of(minimal_yaml({{"vector.zzzzzzzzzz", "1"}})) ==
        "configs/x.yaml: vector.zzzzzzzzzz: unknown key; valid keys here are lanes, "
        "latency_cycles");
}

TEST_CASE("duplicate keys and multiple documents", "[hwconfig][errors]") {
  CHECK(error_of(minimal_yaml({{"mac_array.rows", "8\n  rows: 16"}})) ==
        "configs/x.yaml: mac_array.rows: duplicate key");
  CHECK(error_of(minimal_yaml() + "clock:\n  frequency_mhz: 500\n") ==
        "configs/x.yaml: clock: duplicate key");
  CHECK(error_of(minimal_yaml() + "---\n" + minimal_yaml()) ==
        "configs/x.yaml:10:1: expected one YAML document, found another here");
  CHECK(error_of(minimal_yaml() + "...\n") == "<no error>");  // an explicit end is fine
}

TEST_CASE("relations between keys", "[hwconfig][errors]") {
  CHECK(error_of(minimal_yaml({{"ddr.interleave_bytes", "32"}})) ==
        "configs/x.yaml: ddr.interleave_bytes: must be >= ddr.burst_bytes (64) (got 32)");
  CHECK(error_of(minimal_yaml({{"ddr.row_bytes", "32"}})) ==
        "configs/x.yaml: ddr.row_bytes: must be >= ddr.burst_bytes (64) (got 32)");
  CHECK(error_of(minimal_yaml({{"sram.capacity_kib", "1"}, {"sram.alignment_bytes", "2048"}})) ==
        "configs/x.yaml: sram.capacity_kib: must be a multiple of sram.alignment_bytes "
        "(2048 bytes) (got 1)");
}

TEST_CASE("YAML syntax errors carry line and column", "[hwconfig][errors]") {
  CHECK(error_of("clock: {frequency_mhz: 1000\nddr: {bandwidth_gbps: 25.6}\n") ==
        "configs/x.yaml:2:4: invalid YAML: end of map flow not found");
  CHECK(error_of("clock:\n  frequency_mhz: 1000\n bad indent: 1\n") ==
        "configs/x.yaml:3:2: invalid YAML: end of map not found");
  // yaml-cpp's LoadAll loops forever on these; the loader must not.
  CHECK(error_of(",") == "configs/x.yaml:1:1: invalid YAML: unexpected \",\"");
  CHECK(error_of(minimal_yaml() + ",\n") == "configs/x.yaml:10:1: invalid YAML: end of map not found");
  CHECK(error_of("a: *nowhere\n") == "configs/x.yaml:1:4: invalid YAML: the referenced anchor is not defined");
}

TEST_CASE("file errors", "[hwconfig][errors]") {
  const std::string missing = source_dir() + "/configs/does-not-exist.yaml";
  CHECK(load_error(missing) == missing + ": file not found");
  const std::string dir = source_dir() + "/configs";
  CHECK(load_error(dir) == dir + ": is a directory, not a file");
  const std::string scratch = scratch_dir("file_errors");
  write_file(scratch + "/big.yaml", std::string(2 << 20, '#'));
  CHECK(load_error(scratch + "/big.yaml") ==
        scratch + "/big.yaml: file too large (2097152 bytes, limit 1048576)");
  write_file(scratch + "/bad.yaml", minimal_yaml({{"sram.capacity_kib", "-4"}}));
  CHECK(load_error(scratch + "/bad.yaml") ==
        scratch + "/bad.yaml: sram.capacity_kib: must be > 0 (got -4)");
}

TEST_CASE("validate() re-checks a config edited in code", "[hwconfig][errors]") {
  auto c = npu::parse_hardware_config(minimal_yaml(), "configs/x.yaml");
  auto error = [](const npu::HardwareConfig& cfg) -> std::string {
    try {
      npu::validate(cfg);
    } catch (const npu::ConfigError& e) {
      return e.what();
    }
    return "<no error>";
  };
  CHECK(error(c) == "<no error>");
  auto d = c;
  d.mac_array.rows = 0;
  CHECK(error(d) == "configs/x.yaml: mac_array.rows: must be >= 1 (got 0)");
  d = c;
  d.sram.capacity_bytes = 1000;
  CHECK(error(d) == "configs/x.yaml: sram.capacity_kib: must be a whole number of KiB (got 0.9765625)");
  d = c;
  d.sram.capacity_bytes = 0;
  CHECK(error(d) == "configs/x.yaml: sram.capacity_kib: must be > 0 (got 0)");
  d = c;
  d.mac_array.dataflow = static_cast<npu::Dataflow>(7);
  CHECK(error(d) == "configs/x.yaml: mac_array.dataflow: must be one of ws, os, is (got 7)");
  d = c;
  d.ddr.model = static_cast<npu::DdrModel>(4);
  CHECK(error(d) == "configs/x.yaml: ddr.model: must be one of simple, banked, dram, ideal (got 4)");
  d = c;
  d.ddr.burst_bytes = 96;
  CHECK(error(d) == "configs/x.yaml: ddr.burst_bytes: must be a power of two (got 96)");
  d = c;
  d.clock.frequency_mhz = -1;
  CHECK(error(d) == "configs/x.yaml: clock.frequency_mhz: must be > 0 (got -1)");
  d = c;
  d.energy = npu::EnergyConfig{};
  d.energy->ddr_byte_pj = -3;
  CHECK(error(d) == "configs/x.yaml: energy.ddr_byte_pj: must be >= 0 (got -3)");
  d = c;
  d.source_path.clear();
  d.ddr.other_agents_share = 1.0;
  CHECK(error(d) == "<config>: ddr.other_agents_share: must be <= 0.95 (got 1)");
}

TEST_CASE("the shared SRAM's keys: sizes within the ISA's window, bandwidth and latency in range",
          "[hwconfig][errors][engines]") {
  CHECK(error_of(minimal_yaml({{"engines.shared_sram_kib", "2048"}})) == "<no error>");
  CHECK(error_of(minimal_yaml({{"engines.shared_sram_kib", "0"}})) == "<no error>");
  CHECK(error_of(minimal_yaml({{"engines.shared_sram_kib", "-1"}})) ==
        "configs/x.yaml: engines.shared_sram_kib: must be >= 0 (got -1)");
  CHECK(error_of(minimal_yaml({{"engines.shared_sram_kib", "262145"}})) ==
        "configs/x.yaml: engines.shared_sram_kib: must be <= 262144, the 256 MiB window of DDR addresses from "
        "the ISA's kSharedSramBase (isa/ISA.md \"Address map\") (got 262145)");
  CHECK(error_of(minimal_yaml({{"engines.shared_sram_kib", "1.5"}})) ==
        "configs/x.yaml: engines.shared_sram_kib: expected an integer (got \"1.5\")");
  CHECK(error_of(minimal_yaml({{"engines.shared_sram_bytes_per_cycle", "0"}})) ==
        "configs/x.yaml: engines.shared_sram_bytes_per_cycle: must be >= 1 (got 0)");
  CHECK(error_of(minimal_yaml({{"engines.shared_sram_latency_cycles", "-3"}})) ==
        "configs/x.yaml: engines.shared_sram_latency_cycles: must be >= 0 (got -3)");
}
