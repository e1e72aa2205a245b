// The shared SRAM (engines.shared_sram_kib) against hand derivations: a DMA transfer whose DDR
// address is in the ISA's window (isa::kSharedSramBase) moves its bytes to or from the memory
// the engines share, through that memory's own arbiter, at shared_sram_bytes_per_cycle with
// shared_sram_latency_cycles to first data; DDR traffic beside it is not slowed.
//
// Common arithmetic (simtest::config(), 1 cycle = 1 ns): a DMA instruction dispatched at cycle 1
// requests at 1 + 32 (setup); the shared SRAM at 64 B/cycle holds a 4 KiB chunk (the
// arbitration unit) for 64 cycles and its last byte arrives 8 cycles later; the scratchpad port
// (64 B/cycle) takes 64 cycles for it too. The same 4 KiB from DDR: 160 ns on the bus + 100 ns
// latency, ends at 1 + 32 + 260 = 293.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "hwconfig/config_schema.h"
#include "isa/instruction_set.h"
#include "tests/sim/sim_test_util.h"

using namespace simtest;

namespace {

constexpr std::uint64_t kShared = npu::isa::kSharedSramBase;

npu::HardwareConfig with_shared(int engines) {
  auto c = config();
  c.engines.count = engines;
  c.engines.sync_cycles = 16;
  c.engines.shared_sram_bytes = 64 * 1024;
  c.engines.shared_sram_bytes_per_cycle = 64;
  c.engines.shared_sram_latency_cycles = 8;
  return c;
}


}  // namespace

TEST_CASE("a transfer in the shared SRAM window takes the shared SRAM's bandwidth and latency", "[shared_sram]") {
  // 1 + 32 + max(64 + 8 (shared), 64 (port)) = 105, against 293 from DDR.
  const auto c = with_shared(1);
  const auto l = run(program({load(kShared, 0, 4096), halt()}), c);
  CHECK(l.cycles == 105);
  CHECK(l.shared_sram_bytes_read == 4096);
  CHECK(l.shared_sram_busy_cycles == 64);
  CHECK(l.ddr_bytes_read == 0);
  CHECK(l.ddr_bus_bytes == 0);
  const auto s = run(program({store(kShared + 4096, 0, 4096), halt()}), c);
  CHECK(s.cycles == 105);
  CHECK(s.shared_sram_bytes_written == 4096);
  CHECK(s.ddr_bytes_written == 0);
  CHECK(run(program({load(0x1000, 0, 4096), halt()}), c).cycles == 293);

  // 16 B/cycle, 20 cycles: the shared side is the slower one, 256 + 20; 1 + 32 + 276 = 309.
  auto slow = c;
  slow.engines.shared_sram_bytes_per_cycle = 16;
  slow.engines.shared_sram_latency_cycles = 20;
  CHECK(run(program({load(kShared, 0, 4096), halt()}), slow).cycles == 309);

  // Without a shared SRAM the window's addresses are DDR, timed as before.
  CHECK(run(program({load(kShared, 0, 4096), halt()}), config()).cycles == 293);
}

TEST_CASE("engines contend for the shared SRAM chunk by chunk, and not for the DDR", "[shared_sram][engines]") {
  // Two engines load 8 KiB each from the shared SRAM at once (both request at 33). Round robin
  // over requesters (engine x channels + channel: 0 and 2): engine 0's chunks have the memory
  // [33, 97] and [161, 225], engine 1's [97, 161] and [225, 289]; + 8 latency: 233 and 297.
  const auto c = with_shared(2);
  const auto r = run(streams({load(kShared, 0, 8192), halt(), load(kShared + 8192, 0, 8192), halt()}, {0, 2}), c);
  REQUIRE(r.engines.size() == 2);
  CHECK(r.engines[0].end_cycle == 233);
  CHECK(r.engines[1].end_cycle == 297);
  CHECK(r.cycles == 297);
  CHECK(r.shared_sram_busy_cycles == 256);
  CHECK(r.engines[0].shared_sram_bytes_read == 8192);
  CHECK(r.engines[1].shared_sram_bytes_read == 8192);

  // One engine on the shared SRAM, the other on DDR: each takes what it takes alone.
  const auto m = run(streams({load(kShared, 0, 4096), halt(), load(0x1000, 0, 4096), halt()}, {0, 2}), c);
  CHECK(m.engines[0].end_cycle == 105);
  CHECK(m.engines[1].end_cycle == 293);
  CHECK(m.engines[1].ddr_bytes_read == 4096);
  CHECK(m.engines[0].ddr_bytes_read == 0);
}

TEST_CASE("a value one engine stores in the shared SRAM is what another engine loads", "[shared_sram][engines]") {
  // Engine 0: DDR 0x1000 -> its scratchpad -> shared SRAM, then sync. Engine 1: sync, shared
  // SRAM -> its scratchpad -> DDR 0x8000. The bytes arrive intact, the DDR moves only the
  // first load and the last store, and a timing-only run takes the same cycles.
  const auto c = with_shared(2);
  const Program p = streams({load(0x1000, 0, 4096, 0, 0, kStore), store(kShared + 128, 0, 4096, 0, kLoad),
                             make(Opcode::Sync), halt(), make(Opcode::Sync),
                             load(kShared + 128, 256, 4096, 0, 0, kStore), store(0x8000, 256, 4096, 0, kLoad), halt()},
                            {0, 4});
  std::vector<std::uint8_t> bytes(4096);
  Rng rng;
  for (auto& b : bytes) b = static_cast<std::uint8_t>(rng.i8());
  npu::sim::DdrImage ddr;
  ddr.write(0x1000, bytes.data(), bytes.size());
  npu::sim::SimOptions o;
  o.timing_only = false;
  const auto r = npu::sim::simulate(p, c, ddr, o);
  std::vector<std::uint8_t> got(4096);
  ddr.read(0x8000, got.data(), got.size());
  CHECK(got == bytes);
  CHECK(r.ddr_bytes_read == 4096);
  CHECK(r.ddr_bytes_written == 4096);
  CHECK(r.shared_sram_bytes_read == 4096);
  CHECK(r.shared_sram_bytes_written == 4096);
  CHECK(run(p, c, true).cycles == r.cycles);
}

TEST_CASE("a span past the shared SRAM or across the window's edge is refused by name", "[shared_sram][errors]") {
  const auto c = with_shared(1);
  CHECK(error_of(program({load(kShared + 61440, 0, 8192), halt()}), c) ==
        "instruction #0 (load): ddr_addr 0xf000f000 + 8192 bytes exceeds the shared SRAM (65536 bytes from "
        "0xf0000000, engines.shared_sram_kib)");
  CHECK(error_of(program({store(kShared - 64, 0, 128), halt()}), c) ==
        "instruction #0 (store): ddr_addr 0xefffffc0 + 128 bytes runs into the shared SRAM window at 0xf0000000: a "
        "span lies in DDR or in the window");
}

TEST_CASE("the largest shared SRAM a config may have is the ISA's window", "[shared_sram][hwconfig]") {
  int found = 0;
  for (const auto& f : npu::schema::fields())
    if (f.path() == "engines.shared_sram_kib") {
      ++found;
      CHECK(static_cast<std::uint64_t>(f.max) * 1024 == npu::isa::kSharedSramWindowBytes);
    }
  CHECK(found == 1);
}
