// Summing NPU steps: every counter adds up, timelines shift, energy is computed on the totals.
#include <catch2/catch.hpp>

#include "hwconfig/hardware_config.h"
#include "runtime/sim_totals.h"

using namespace npu;
using namespace npu::runtime;

namespace {

sim::SimResult step(std::uint64_t cycles, std::uint64_t macs, std::uint64_t bus_bytes) {
  sim::SimResult r;
  r.cycles = cycles;
  r.macs = r.int8_macs = macs;
  r.ddr_bytes_read = bus_bytes;
  r.ddr_bus_bytes = bus_bytes;
  r.sram_bytes_read = 2 * bus_bytes;
  r.sram_peak_bytes = cycles;  // any distinct value per step
  r.load = {3, cycles / 2, 7, 5, 0, bus_bytes};
  r.compute = {1, cycles / 4, 1, 0, 2 * bus_bytes, 0};
  r.dma_channels = {{2, bus_bytes, bus_bytes, cycles / 2, 1}};
  r.instructions = {{0, 10, 1, 0}, {10, cycles, 0, 2}};
  sim::TraceEvent e;
  e.track = "compute";
  e.start_cycle = 5;
  e.duration_cycles = 5;
  e.instruction_index = 1;
  r.trace = {e};
  r.ddr_bandwidth = {{0, 0.0}, {1, 4.0}, {cycles, 0.0}};
  return r;
}

}  // namespace

TEST_CASE("steps add up counter by counter", "[totals]") {
  HardwareConfig config;
  config.energy = EnergyConfig{};
  sim::SimResult total;
  add_step(total, step(100, 1000, 640), 0, 0);
  add_step(total, step(300, 3000, 1280), 5, 150);  // a CPU step ran in between: 100..150
  finish_totals(total, config);
  CHECK(total.cycles == 400);
  CHECK(total.macs == 4000);
  CHECK(total.ddr_bus_bytes == 1920);
  CHECK(total.sram_bytes_read == 3840);
  CHECK(total.sram_peak_bytes == 300);  // steps run one after another: the largest
  CHECK(total.load.instructions == 6);
  CHECK(total.load.busy_cycles == 200);
  CHECK(total.load.stall_cycles == 14);
  CHECK(total.load.channel_wait_cycles == 10);
  CHECK(total.load.sram_bytes_written == 1920);
  CHECK(total.compute.sram_bytes_read == 3840);
  REQUIRE(total.dma_channels.size() == 1);
  CHECK(total.dma_channels[0].bus_bytes == 1920);
  CHECK(total.dma_channels[0].busy_cycles == 200);
  CHECK(total.dma_channels[0].bounce_copies == 2);
  // timings at whole-program indices, shifted onto the model timeline
  REQUIRE(total.instructions.size() == 7);
  CHECK(total.instructions[6].start_cycle == 160);
  CHECK(total.instructions[6].end_cycle == 450);
  REQUIRE(total.trace.size() == 2);
  CHECK(total.trace[1].start_cycle == 155);
  CHECK(total.trace[1].instruction_index == 6);
  // bandwidth samples on the model timeline; repeated zeros dropped
  REQUIRE(total.ddr_bandwidth.size() == 5);
  CHECK(total.ddr_bandwidth[2].cycle == 100);
  CHECK(total.ddr_bandwidth[3].cycle == 151);
  CHECK(total.ddr_bandwidth[3].gbps == 4.0);
  CHECK(total.ddr_bandwidth[4].cycle == 450);
  // derived figures and energy from the sums
  CHECK(total.latency_us == Approx(0.4));
  CHECK(total.achieved_tops == Approx(2.0 * 4000 / 0.4e-6 / 1e12));
  REQUIRE(total.energy);
  const auto expected = sim::energy_of(total, design_costs(config));
  CHECK(total.energy->ddr_uj == expected.ddr_uj);
  CHECK(total.energy->ddr_uj == Approx(1920 * config.energy->ddr_byte_pj * 1e-6));
  CHECK(total.energy->static_uj == Approx(config.energy->static_mw * 0.4 * 1e-3));
}

TEST_CASE("no energy table: the totals carry no energy", "[totals]") {
  HardwareConfig config;
  sim::SimResult total;
  add_step(total, step(100, 1000, 640), 0, 0);
  finish_totals(total, config);
  CHECK_FALSE(total.energy);
}
