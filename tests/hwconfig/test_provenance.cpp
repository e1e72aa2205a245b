// `provenance:`: where each value of a preset comes from (public / fitted / guess).
#include <filesystem>

#include <catch2/catch.hpp>

#include "hwconfig/config_schema.h"
#include "hwconfig/hardware_config.h"
#include "hwconfig/provenance.h"
#include "tests/hwconfig/test_util.h"

using namespace hwtest;
using Kind = npu::KeyProvenance::Kind;

TEST_CASE("provenance entries parse and print back", "[hwconfig][provenance]") {
  std::string problem;
  auto p = npu::parse_provenance("public  JEDEC LPDDR5X ", &problem);
  REQUIRE(p);
  CHECK(p->kind == Kind::Public);
  CHECK(p->detail == "JEDEC LPDDR5X");
  p = npu::parse_provenance("fitted 2026-11-30 ai-hub.csv (base 84.8)", &problem);
  REQUIRE(p);
  CHECK(p->kind == Kind::Fitted);
  CHECK(p->date == "2026-11-30");
  CHECK(p->detail == "ai-hub.csv (base 84.8)");
  CHECK(npu::parse_provenance(npu::provenance_text(*p), &problem) == p);
  p = npu::parse_provenance("guess", &problem);
  REQUIRE(p);
  CHECK(p->kind == Kind::Guess);

  CHECK_FALSE(npu::parse_provenance("public", &problem));  // no source
  CHECK(problem.find("source") != std::string::npos);
  CHECK_FALSE(npu::parse_provenance("fitted 2026-13-01 x.csv", &problem));  // no such month
  CHECK_FALSE(npu::parse_provenance("fitted 2026-11-30", &problem));       // no measurement set
  CHECK_FALSE(npu::parse_provenance("measured", &problem));
}

TEST_CASE("provenance: loaded, inherited only with its value, and round-tripped", "[hwconfig][provenance]") {
  const std::string dir = scratch_dir("provenance");
  write_file(dir + "/parent.yaml", minimal_yaml() +
                                       "provenance:\n  clock.frequency_mhz: public a datasheet\n"
                                       "  ddr.bandwidth_gbps: guess\n");
  write_file(dir + "/child.yaml", "base: parent.yaml\nddr:\n  bandwidth_gbps: 30\n");
  const auto parent = npu::load_hardware_config(dir + "/parent.yaml");
  const auto child = npu::load_hardware_config(dir + "/child.yaml");
  CHECK(parent.provenance.at("ddr.bandwidth_gbps").kind == Kind::Guess);
  CHECK(child.provenance.at("clock.frequency_mhz").detail == "a datasheet");
  // the child replaced the value: the parent's "guess" described the parent's value
  CHECK(child.provenance.count("ddr.bandwidth_gbps") == 0);
  CHECK(npu::parse_hardware_config(npu::dump_hardware_config(parent), "dump") .provenance == parent.provenance);

  write_file(dir + "/bad.yaml", minimal_yaml() + "provenance:\n  ddr.bandwith_gbps: guess\n");
  CHECK_THROWS_WITH(npu::load_hardware_config(dir + "/bad.yaml"),
                    Catch::Contains("provenance.ddr.bandwith_gbps") && Catch::Contains("ddr.bandwidth_gbps"));
  write_file(dir + "/bad2.yaml", minimal_yaml() + "provenance:\n  clock.frequency_mhz: rumour\n");
  CHECK_THROWS_WITH(npu::load_hardware_config(dir + "/bad2.yaml"), Catch::Contains("guess"));
}

// Every preset in configs/ says, for every key it has (inherited ones included), whether the
// value is public, fitted or a guess, so `npusim config show PRESET` prints no "unmarked" row.
TEST_CASE("every preset marks every key it has", "[hwconfig][provenance][presets]") {
  namespace fs = std::filesystem;
  int presets = 0;
  for (const auto& e : fs::directory_iterator(source_dir() + "/configs")) {
    if (e.path().extension() != ".yaml") continue;
    ++presets;
    const auto c = npu::load_hardware_config(e.path().string());
    for (const auto& f : npu::schema::fields()) {
      if (!*f.section || std::holds_alternative<std::monostate>(npu::schema::slot_of(f, c))) continue;
      INFO(e.path().filename().string() << ": " << f.path());
      CHECK(c.provenance.count(f.path()) == 1);
    }
  }
  CHECK(presets >= 13);
}
