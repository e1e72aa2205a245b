// mload (isa/ISA.md "mload"): the same DDR bytes into several engines' scratchpads with one DDR
// read; the group's first engine moves them once every member is ready, and every member's copy
// finishes with that transfer.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "costmodel/program_estimate.h"
#include "sim/simulator.h"
#include "tests/sim/sim_test_util.h"

using namespace simtest;
using npu::isa::Opcode;

namespace {

Instruction mload(std::uint64_t ddr, std::uint64_t sram, std::uint64_t len0, std::uint8_t pop = 0, std::uint8_t push = 0) {
  return dma(Opcode::MulticastLoad, ddr, sram, len0, 0, pop, push);
}

npu::HardwareConfig engine_config(int n) {
  auto c = config();
  c.engines.count = n;
  return c;
}

constexpr std::uint64_t kBytes = 8192;

}  // namespace

TEST_CASE("an mload of two engines takes one load's time and reads DDR once", "[engines][multicast]") {
  const auto alone = run(program({load(0x10000, 0, kBytes), halt()}), config());
  const auto both = run(streams({mload(0x10000, 0, kBytes), halt(), mload(0x10000, 0x4000, kBytes), halt()}, {0, 2}),
                        engine_config(2));
  CHECK(both.cycles == alone.cycles);
  CHECK(both.ddr.bus_bytes == alone.ddr.bus_bytes);
  CHECK(both.ddr_bytes_read == alone.ddr_bytes_read);
  REQUIRE(both.engines.size() == 2);
  CHECK(both.engines[0].ddr_bytes_read == kBytes);
  CHECK(both.engines[1].ddr_bytes_read == 0);
  CHECK(both.engines[1].multicast_bytes_read == kBytes);
  CHECK(both.engines[0].end_cycle == both.engines[1].end_cycle);
  // Two loads of the same bytes share the bus: slower, and DDR reads them twice.
  const auto separate =
      run(streams({load(0x10000, 0, kBytes), halt(), load(0x10000, 0x4000, kBytes), halt()}, {0, 2}), engine_config(2));
  CHECK(separate.cycles > both.cycles);
  CHECK(separate.ddr_bytes_read == 2 * kBytes);
  // One engine: an mload is a load.
  CHECK(run(program({mload(0x10000, 0, kBytes), halt()}), engine_config(1)).cycles == alone.cycles);
}

TEST_CASE("an mload starts when its last member is ready", "[engines][multicast]") {
  // Engine 1 must finish a gemm before its copy's bytes are free: the transfer waits for it,
  // so both engines end as engine 1's {gemm, dependent load} alone does.
  const auto g = gemm(0x20000, 0x30000, 0x40000, 64, 64, 64, false, false, 0, kLoad);
  const auto alone = run(program({g, load(0x10000, 0, kBytes, 0, kCompute), halt()}), config());
  const auto r = run(streams({mload(0x10000, 0, kBytes), halt(), g, mload(0x10000, 0x8000, kBytes, kCompute), halt()},
                             {0, 2}),
                     engine_config(2));
  CHECK(r.cycles == alone.cycles);
  CHECK(r.engines[0].end_cycle == r.engines[1].end_cycle);
  CHECK(npu::cost::estimate_engines(streams({mload(0x10000, 0, kBytes), halt(), g,
                                             mload(0x10000, 0x8000, kBytes, kCompute), halt()},
                                            {0, 2}),
                                    engine_config(2)) == static_cast<double>(r.cycles));
}

TEST_CASE("every member's scratchpad gets the bytes; timing-only takes the functional cycles", "[engines][multicast]") {
  // Three engines: each mloads the table to its own address and stores it back to its own place.
  std::vector<Instruction> code;
  std::vector<std::uint32_t> starts;
  for (std::uint64_t e = 0; e < 3; ++e) {
    starts.push_back(static_cast<std::uint32_t>(code.size()));
    code.push_back(mload(0x10000, 0x1000 * (e + 1), kBytes, 0, kStore));
    code.push_back(store(0x100000 + 0x10000 * e, 0x1000 * (e + 1), kBytes, 1, kLoad));
    code.push_back(halt());
  }
  const Program p = streams(code, starts);
  npu::sim::DdrImage ddr;
  std::vector<std::uint8_t> table(kBytes);
  for (std::size_t i = 0; i < table.size(); ++i) table[i] = static_cast<std::uint8_t>(i * 7 + 3);
  ddr.write(0x10000, table.data(), table.size());
  npu::sim::SimOptions o;
  o.timing_only = false;
  const auto functional = npu::sim::simulate(p, engine_config(3), ddr, o);
  for (std::uint64_t e = 0; e < 3; ++e) {
    std::vector<std::uint8_t> back(kBytes);
    ddr.read(0x100000 + 0x10000 * e, back.data(), back.size());
    CHECK(back == table);
  }
  CHECK(run(p, engine_config(3)).cycles == functional.cycles);
  CHECK(functional.ddr_bytes_read == kBytes);
}

TEST_CASE("mloads that do not meet, or read other bytes, are one-line errors", "[engines][multicast]") {
  CHECK(error_of(streams({mload(0x10000, 0, kBytes), halt(), halt()}, {0, 2}), engine_config(2)) ==
        "engine 1 has 0 mload(s) of engines 0-1, engine 0 1: every member must meet the others at each");
  CHECK(error_of(streams({mload(0x10000, 0, kBytes), halt(), mload(0x10040, 0, kBytes), halt()}, {0, 2}), engine_config(2)) ==
        "instruction #2 (mload) (engine 1) is mload 0 of engines 0-1 and reads other DDR bytes than instruction #0 "
        "(mload) (engine 0): ddr_addr 0x10040 len0 8192 count1 1 count2 1 against 0x10000 8192 1 1");
  // Engine 0's mload before a sync, engine 1's after it: neither can go on.
  const std::string deadlock =
      error_of(streams({mload(0x10000, 0, kBytes), make(Opcode::Sync), halt(), make(Opcode::Sync), mload(0x10000, 0, kBytes),
                        halt()},
                       {0, 3}),
               engine_config(2));
  CHECK_THAT(deadlock, Catch::Matchers::Contains("deadlock at cycle"));
  CHECK_THAT(deadlock, Catch::Matchers::Contains(
                           "engine 0: load unit waits at instruction #0 (mload) for engine(s) 1 to reach their copy"));
  CHECK(deadlock.find('\n') == std::string::npos);
}
