// The optional VCD of busy signals, and that no observer (trace, energy, VCD) or the
// functional arithmetic changes the timing or the counters.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <unistd.h>

#include "tests/sim/mixed_program.h"
#include "tests/sim/sim_test_util.h"

using namespace simtest;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("npusim_test_" + std::to_string(::getpid()) + "_" + name)).string();
}

npu::sim::SimResult run_with(const Program& p, const npu::HardwareConfig& c, const npu::sim::SimOptions& o) {
  npu::sim::DdrImage ddr;
  return npu::sim::simulate(p, c, ddr, o);
}

}  // namespace

TEST_CASE("VCD: busy signals of units and DMA channels", "[vcd]") {
  const std::string path = temp_path("busy.vcd");
  std::remove(path.c_str());
  npu::sim::SimOptions o;
  o.timing_only = true;
  o.vcd_path = path;
  // gemm [1, 661) then a load on channel 1 that waits for it: [661, 953) (32 + 260).
  const auto r = run_with(program({gemm(0, 8192, 16384, 64, 32, 48, false, false, 0, kLoad),
                                   load(0, 0x8000, 4096, 1, kCompute), halt()}),
                          config(), o);
  CHECK(r.cycles == 953);
  const std::string vcd = read_file(path);
  REQUIRE_FALSE(vcd.empty());
  CHECK(vcd.find("$enddefinitions") != std::string::npos);
  // "$var wire 1 <id> <name> $end": the id of each signal.
  std::map<std::string, std::string> id;
  std::istringstream lines(vcd);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string var, wire, width, code, name;
    if (words >> var >> wire >> width >> code >> name && var == "$var") id[name] = code;
  }
  for (const char* signal : {"load", "compute", "vector", "store", "dma0", "dma1"}) CHECK(id.count(signal) == 1);
  CHECK(vcd.find("1 ns") != std::string::npos);  // timescale: one cycle
  // compute up at 1; compute down, load and dma1 up at 661; load and dma1 down at 953.
  auto at = [&](const char* time, const std::string& changes) {
    return vcd.find(std::string("\n#") + time + "\n" + changes) != std::string::npos;
  };
  CHECK(at("1", "1" + id["compute"] + "\n"));
  CHECK(at("661", "1" + id["load"] + "\n0" + id["compute"] + "\n1" + id["dma1"] + "\n"));
  CHECK(at("953", "0" + id["load"] + "\n0" + id["dma1"] + "\n"));
  std::remove(path.c_str());

  // A path without the extension gets it.
  const std::string bare = temp_path("bare");
  o.vcd_path = bare;
  run_with(program({gemm(0, 8192, 16384, 16, 16, 16), halt()}), config(), o);
  CHECK(std::filesystem::exists(bare + ".vcd"));
  std::remove((bare + ".vcd").c_str());
}

TEST_CASE("trace, energy and VCD leave timing and counters unchanged", "[runs][energy][trace][vcd]") {
  for (auto model : {npu::DdrModel::Simple, npu::DdrModel::Banked, npu::DdrModel::Dram}) {
    auto c = config();
    c.ddr.model = model;
    if (c.ddr.model == npu::DdrModel::Dram) {
      c.ddr.channels = 3;
      c.ddr.bandwidth_gbps = 25.596;
      c.ddr.burst_bytes = 32;
    }
    c.dma.channels = 3;
    const Program p = mixed_program(10);
    npu::sim::SimOptions plain;
    plain.timing_only = true;
    const auto base = run_with(p, c, plain);

    auto observed = plain;
    observed.record_trace = true;
    observed.vcd_path = temp_path("parity.vcd");
    observed.instruction_labels.push_back({"layer", {{"m", 0}}});
    auto ce = c;
    ce.energy = npu::EnergyConfig{};
    const auto all = run_with(p, ce, observed);
    std::remove(observed.vcd_path.c_str());
    CHECK(same_timing(base, all));
    CHECK_FALSE(base.energy.has_value());
    REQUIRE(all.energy.has_value());
    auto no_energy = all;
    no_energy.energy.reset();
    CHECK(same_counters(base, no_energy));

    // Functional execution: identical timing and counters, energy included.
    npu::sim::SimOptions functional;
    const auto f = run_with(p, ce, functional);
    const auto t = run_with(p, ce, plain);
    CHECK(same_counters(f, t));
    CHECK(f.energy->total_uj == t.energy->total_uj);
    CHECK(f.energy->total_uj == all.energy->total_uj);
  }
}
