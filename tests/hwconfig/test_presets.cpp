// Every shipped preset loads, validates, round-trips through dump, and says what it claims.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <vector>

#include "hwconfig/config_schema.h"
#include "hwconfig/hardware_config.h"
#include "tests/hwconfig/test_util.h"

using namespace hwtest;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> preset_paths() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(source_dir() + "/configs"))
    if (e.path().extension() == ".yaml") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("every preset loads and validates", "[hwconfig][presets]") {
  auto paths = preset_paths();
  REQUIRE(paths.size() >= 7);
  for (const auto& path : paths) {
    INFO(path);
    npu::HardwareConfig c;
    REQUIRE_NOTHROW(c = npu::load_hardware_config(path));
    REQUIRE_NOTHROW(npu::validate(c));
    CHECK(c.source_path == path);
    CHECK(c.name == fs::path(path).stem().string());  // every preset's name is its file stem
    CHECK(c.peak_tops() > 0);
  }
}

TEST_CASE("the named presets are the promised machines", "[hwconfig][presets]") {
  auto def = npu::load_hardware_config(preset("default.yaml"));
  CHECK(def.mac_array.rows == 32);
  CHECK(def.mac_array.cols == 32);
  CHECK(def.mac_array.dataflow == npu::Dataflow::WeightStationary);
  CHECK(def.clock.frequency_mhz == 1000.0);
  CHECK(def.sram.capacity_bytes == (1u << 20));
  CHECK(def.ddr.bandwidth_gbps == 25.6);
  CHECK(def.dma.channels == 2);
  CHECK(def.energy.has_value());
  CHECK(def.area.has_value());

  auto tiny = npu::load_hardware_config(preset("tiny-8x8.yaml"));
  CHECK(tiny.macs() == 64);
  CHECK(tiny.sram.capacity_bytes == 64 * 1024);
  CHECK(tiny.clock.frequency_mhz == 200.0);
  CHECK(tiny.ddr.model == npu::DdrModel::Simple);

  auto seed = npu::load_hardware_config(preset("seed-5.7tops.yaml"));
  CHECK(seed.macs() == 2048);
  CHECK(seed.clock.frequency_mhz == 1400.0);
  CHECK(std::round(seed.peak_tops() * 100) / 100 == Approx(5.73));

  auto big = npu::load_hardware_config(preset("npu-40tops-55gbps.yaml"));
  CHECK(big.peak_tops() == Approx(40.0).epsilon(1e-12));
  CHECK(big.ddr.bandwidth_gbps == 55.0);

  auto ws = npu::load_hardware_config(preset("ideal-32x32-ws.yaml"));
  CHECK(ws.ddr.model == npu::DdrModel::Ideal);
  CHECK(ws.dma.setup_cycles == 0);
  CHECK(ws.sram.capacity_bytes == 16u << 20);
  CHECK(ws.macs() == 1024);
  CHECK(ws.mac_array.dataflow == npu::Dataflow::WeightStationary);
}

TEST_CASE("the ideal presets differ only in dataflow", "[hwconfig][presets]") {
  auto ws = npu::load_hardware_config(preset("ideal-32x32-ws.yaml"));
  for (auto [file, df] : {std::pair{"ideal-32x32-os.yaml", npu::Dataflow::OutputStationary},
                          std::pair{"ideal-32x32-is.yaml", npu::Dataflow::InputStationary}}) {
    INFO(file);
    auto c = npu::load_hardware_config(preset(file));
    CHECK(c.mac_array.dataflow == df);
    CHECK(c.name == fs::path(file).stem().string());
    c.mac_array.dataflow = ws.mac_array.dataflow;
    c.name = ws.name;
    c.source_path = ws.source_path;
    c.provenance.at("mac_array.dataflow") = ws.provenance.at("mac_array.dataflow");  // says which dataflow
    CHECK(c == ws);
  }
}

TEST_CASE("dump then parse reproduces every preset exactly", "[hwconfig][roundtrip]") {
  for (const auto& path : preset_paths()) {
    INFO(path);
    auto c = npu::load_hardware_config(path);
    std::string text = npu::dump_hardware_config(c);
    auto again = npu::parse_hardware_config(text, c.source_path);
    CHECK(again == c);
    CHECK(npu::dump_hardware_config(again) == text);  // canonical: a fixed point
    CHECK(text.find("base:") == std::string::npos);   // bases are resolved in a dump
  }
}

TEST_CASE("dump writes every key of every present section", "[hwconfig][roundtrip]") {
  auto c = npu::load_hardware_config(preset("default.yaml"));
  std::string text = npu::dump_hardware_config(c);
  for (const auto& f : npu::schema::fields()) {
    INFO(f.path());
    std::string line = (*f.section ? std::string("\n  ") : std::string("\n")) + f.key + ": ";
    CHECK(text.find(line) != std::string::npos);
  }
  // An absent optional section stays absent.
  c.energy.reset();
  c.area.reset();
  text = npu::dump_hardware_config(c);
  CHECK(text.find("energy:") == std::string::npos);
  CHECK(text.find("area:") == std::string::npos);
  CHECK(npu::parse_hardware_config(text, c.source_path) == c);
}

TEST_CASE("round trip keeps awkward doubles and names bit-exact", "[hwconfig][roundtrip]") {
  auto c = npu::parse_hardware_config(minimal_yaml(), "x.yaml");
  c.name = "quote \" backslash \\ tab\t newline\n colon: hash # end";
  c.clock.frequency_mhz = 0.1 + 0.2;                 // 0.30000000000000004
  c.ddr.bandwidth_gbps = 1.0 / 3.0;
  c.ddr.other_agents_share = 0.95;
  c.host.transition_us = 5e-324;                     // smallest subnormal
  c.energy = npu::EnergyConfig{};
  c.energy->ddr_byte_pj = 123456789.123456789;
  c.mac_array.dataflow = npu::Dataflow::InputStationary;
  c.ddr.model = npu::DdrModel::Banked;
  c.ddr.capacity_bytes = 1ull << 40;
  REQUIRE_NOTHROW(npu::validate(c));
  auto again = npu::parse_hardware_config(npu::dump_hardware_config(c), "x.yaml");
  CHECK(again.name == c.name);
  CHECK(again == c);
}

TEST_CASE("only required keys: everything else takes the struct defaults", "[hwconfig]") {
  auto c = npu::parse_hardware_config(minimal_yaml(), "configs/min.yaml");
  npu::HardwareConfig d;
  CHECK(c.name == "min");  // no `name`: the file stem
  CHECK(c.source_path == "configs/min.yaml");
  CHECK(c.ddr.latency_ns == d.ddr.latency_ns);
  CHECK(c.ddr.model == d.ddr.model);
  CHECK(c.dma.setup_cycles == d.dma.setup_cycles);
  CHECK(c.vector.lanes == d.vector.lanes);
  CHECK(c.host.gflops == d.host.gflops);
  CHECK_FALSE(c.energy.has_value());
  CHECK_FALSE(c.area.has_value());

  // An empty optional section turns it on with default values.
  auto e = npu::parse_hardware_config(minimal_yaml() + "energy: {}\narea:\n", "x.yaml");
  REQUIRE(e.energy.has_value());
  REQUIRE(e.area.has_value());
  CHECK(e.energy->int8_mac_pj == npu::EnergyConfig{}.int8_mac_pj);
  CHECK(e.area->fixed_mm2 == npu::AreaConfig{}.fixed_mm2);
}

TEST_CASE("sizes are converted from KiB and MiB to bytes", "[hwconfig]") {
  auto c = npu::parse_hardware_config(
      minimal_yaml({{"sram.capacity_kib", "96"}, {"ddr.capacity_mib", "3"}}), "x.yaml");
  CHECK(c.sram.capacity_bytes == 96u * 1024u);
  CHECK(c.ddr.capacity_bytes == 3u * 1024u * 1024u);
}

TEST_CASE("choice names", "[hwconfig]") {
  CHECK(std::string(npu::choice_name(npu::Dataflow::WeightStationary)) == "ws");
  CHECK(std::string(npu::choice_name(npu::Dataflow::OutputStationary)) == "os");
  CHECK(std::string(npu::choice_name(npu::Dataflow::InputStationary)) == "is");
  CHECK(npu::choice_from_name<npu::Dataflow>("os") == npu::Dataflow::OutputStationary);
  CHECK_FALSE(npu::choice_from_name<npu::Dataflow>("WS").has_value());
  CHECK(std::string(npu::choice_name(npu::DdrModel::Dram)) == "dram");
  CHECK(std::string(npu::choice_name(npu::DramStandardId::Ddr5_5600)) == "ddr5-5600");
  CHECK(npu::choice_from_name<npu::DmaChannelQueue>("pipelined") == npu::DmaChannelQueue::Pipelined);
  CHECK(std::string(npu::choice_name(static_cast<npu::DdrModel>(9))) == "?");
  CHECK(npu::choice_list<npu::DdrModel>().names() == "simple, banked, dram, ideal");
  CHECK(npu::choice_list<npu::SramTiming>().names("|") == "explicit|derived");
}

TEST_CASE("every choice key of the schema names its member's table", "[hwconfig]") {
  // Each Choice row's name table is the one its slot reads and writes (defaults() refuses a
  // row whose table is another enum's); and every value round-trips through YAML.
  npu::HardwareConfig c = npu::schema::defaults();
  for (const auto& f : npu::schema::fields()) {
    if (f.kind != npu::schema::Kind::Choice) continue;
    INFO(f.path());
    const auto slot = f.slot(c);
    const auto& ref = std::get<npu::schema::ChoiceRef>(slot);
    CHECK(ref.list.entries == f.choices.entries);
    for (std::size_t i = 0; i < f.choices.count; ++i) {
      ref.set_index(i);
      const std::string name = npu::config_value_text(c, f);
      CHECK(name == f.choices.entries[i].name);
      // Some values need other keys to match (ddr.model: dram, sram.timing: derived): those are
      // refused by a relation, never as an unknown name.
      const std::string yaml = minimal_yaml({{f.path(), name}});
      const std::string error = error_of(yaml);
      CHECK(error.find("must be one of") == std::string::npos);
      if (error != "<no error>") continue;
      auto again = npu::parse_hardware_config(yaml, "x.yaml");
      CHECK(std::get<npu::schema::ChoiceRef>(f.slot(again)).index() == i);
    }
  }
}

TEST_CASE("configs/README.md documents every key and every preset", "[hwconfig][docs]") {
  std::string readme = read_file(source_dir() + "/configs/README.md");
  REQUIRE_FALSE(readme.empty());
  for (const auto& f : npu::schema::fields()) {
    INFO(f.path());
    CHECK(readme.find("`" + f.path() + "`") != std::string::npos);
  }
  CHECK(readme.find("`base`") != std::string::npos);
  for (const auto& path : preset_paths()) {
    std::string file = fs::path(path).filename().string();
    INFO(file);
    CHECK(readme.find(file) != std::string::npos);
  }
}
