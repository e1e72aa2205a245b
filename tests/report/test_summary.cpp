// The summary's derived figures, the missing-energy line, and compare-configs' ratios.
#include <catch2/catch.hpp>

#include "hwconfig/hardware_config.h"
#include "report/compare_configs.h"
#include "report/sim_summary.h"

using namespace npu;
using namespace npu::report;

namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("DDR bandwidth use is bus bytes over latency x peak bandwidth", "[summary]") {
  HardwareConfig config;  // 1 GHz
  config.ddr.bandwidth_gbps = 20;
  sim::SimResult r;
  r.cycles = 1000;
  r.latency_us = 1.0;
  r.ddr_bus_bytes = 5000;  // 5 GB/s
  CHECK(report::ddr_bandwidth_utilization(r, config) == Approx(0.25));
  const auto j = report::sim_report_json(r, config);
  CHECK(j["ddr"]["achieved_gbps"].get<double>() == Approx(5.0));
  CHECK(j["ddr"]["bandwidth_utilization"].get<double>() == Approx(0.25));
}

TEST_CASE("without an energy table the report says so once and has no energy", "[summary]") {
  HardwareConfig config;
  config.name = "x";
  config.source_path = "configs/x.yaml";
  sim::SimResult r;
  r.cycles = 10;
  r.latency_us = 0.01;
  const auto text = report::format_sim_report(r, config);
  CHECK(count(text, "energy: not modelled (configs/x.yaml has no energy table)") == 1);
  CHECK(count(text, "energy") == 2);  // the one line names the "energy table" too
  const auto j = report::sim_report_json(r, config);
  CHECK(j["energy"].is_null());
  CHECK(j["energy_note"] == "energy: not modelled (configs/x.yaml has no energy table)");
}

TEST_CASE("compare-configs: values per config and ratios to the first", "[summary]") {
  nlohmann::json a = {{"config", "a"}, {"cycles", 200}, {"achieved_tops", 1.0}, {"energy", {{"total_uj", 4.0}}}};
  nlohmann::json b = {{"config", "b"}, {"cycles", 100}, {"achieved_tops", 2.5}, {"energy", nullptr}};
  const auto j = report::compare_json({a, b});
  CHECK(j["configs"] == nlohmann::json({"a", "b"}));
  for (const auto& m : j["metrics"]) {
    if (m["name"] == "NPU cycles") CHECK(m["ratios"][1].get<double>() == Approx(0.5));
    if (m["name"] == "achieved TOPS") CHECK(m["ratios"][1].get<double>() == Approx(2.5));
    if (m["name"] == "energy") CHECK(m["ratios"][1].is_null());
  }
  const auto text = report::format_compare({a, b});
  CHECK(text.find("B/A") != std::string::npos);
  CHECK(text.find("0.500") != std::string::npos);
}
