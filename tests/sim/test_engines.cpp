// Several engines on one NPU: each runs its own stream on its own units, scratchpad and DMA
// channels, all share the DDR, and the streams meet at syncs (isa/ISA.md "sync").
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "costmodel/program_estimate.h"
#include "isa/assembler.h"
#include <fstream>
#include <sstream>
#include "sim/simulator.h"
#include "tests/sim/sim_test_util.h"

using namespace simtest;
using Catch::Matchers::Contains;
using npu::isa::Opcode;

namespace {

Instruction sync() { return make(Opcode::Sync); }

npu::HardwareConfig engines(int n) {
  auto c = config();
  c.engines.count = n;
  c.engines.sync_cycles = 16;
  return c;
}


std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("a sync releases every engine sync_cycles after the last one arrives", "[engines]") {
  // Alone, the slow engine's stream {gemm, barrier, halt} ends at T; with a fast engine beside
  // it and a sync instead of the barrier, both wait for the slow one and go on 16 cycles later.
  const auto slow = gemm(0, 0x10000, 0x20000, 64, 64, 64);
  const auto fast = gemm(0, 0x10000, 0x20000, 16, 16, 16);
  const std::uint64_t alone = run(program({slow, make(Opcode::Barrier), halt()}), config()).cycles;
  const auto r = run(streams({fast, sync(), halt(), slow, sync(), halt()}, {0, 3}), engines(2));
  CHECK(r.cycles == alone + 16);
  REQUIRE(r.engines.size() == 2);
  CHECK(r.engines[0].end_cycle == r.engines[1].end_cycle);
  CHECK(r.engines[0].macs == 16 * 16 * 16);
  CHECK(r.engines[1].macs == 64 * 64 * 64);
  CHECK(r.compute.busy_cycles == r.engines[0].compute.busy_cycles + r.engines[1].compute.busy_cycles);
  // One engine: sync is a barrier.
  CHECK(run(program({slow, sync(), halt()}), engines(1)).cycles == alone);
}

TEST_CASE("engines in different sync groups meet only their own group", "[engines]") {
  // Engines 0-1 and 2-3 each meet twice in their own pair; the fast pair finishes first.
  auto pair_sync = [](int first) {
    auto s = sync();
    s.set(npu::isa::Field::group_first, first);
    s.set(npu::isa::Field::group_count, 2);
    return s;
  };
  const auto small = gemm(0, 0x10000, 0x20000, 16, 16, 16), big = gemm(0, 0x10000, 0x20000, 64, 64, 64);
  const auto r = run(streams({small, pair_sync(0), small, pair_sync(0), halt(),
                              small, pair_sync(0), small, pair_sync(0), halt(),
                              big, pair_sync(2), big, pair_sync(2), halt(),
                              small, pair_sync(2), small, pair_sync(2), halt()},
                             {0, 5, 10, 15}),
                     engines(4));
  REQUIRE(r.engines.size() == 4);
  CHECK(r.engines[0].end_cycle == r.engines[1].end_cycle);
  CHECK(r.engines[2].end_cycle == r.engines[3].end_cycle);
  CHECK(r.engines[0].end_cycle < r.engines[2].end_cycle);
  CHECK(r.cycles == r.engines[2].end_cycle);
  // The slow pair alone on a two-engine NPU takes as long as beside the fast pair (no DDR here).
  const auto alone = run(streams({big, pair_sync(0), big, pair_sync(0), halt(), small, pair_sync(0), small, pair_sync(0), halt()},
                                 {0, 5}),
                         engines(2));
  CHECK(alone.cycles == r.cycles);
}

TEST_CASE("the two-engine convolution gives the one-engine program's output, faster, and the estimate's cycles",
          "[engines]") {
  const std::string dir = std::string(NPUSIM_SOURCE_DIR) + "/examples/";
  const Program one = npu::isa::assemble(read_text(dir + "conv_bias_relu_requant.npuasm"), "one");
  const Program two = npu::isa::assemble(read_text(dir + "conv_two_engines.npuasm"), "two");
  REQUIRE(two.engine_starts.size() == 2);
  auto c = engines(2);
  auto output = [&](const Program& p, bool timing_only, std::uint64_t* cycles) {
    npu::sim::DdrImage ddr;
    ddr.place(p);
    std::vector<std::uint8_t> input(16 * 16 * 16), weights(3 * 3 * 16 * 32);
    Rng rng;
    for (auto& b : input) b = static_cast<std::uint8_t>(rng.i8());
    for (auto& b : weights) b = static_cast<std::uint8_t>(rng.i8());
    ddr.write(0x10000, input.data(), input.size());
    ddr.write(0x20000, weights.data(), weights.size());
    npu::sim::SimOptions o;
    o.timing_only = timing_only;
    *cycles = npu::sim::simulate(p, c, ddr, o).cycles;
    std::vector<std::uint8_t> out(16 * 16 * 32);
    ddr.read(0x40000, out.data(), out.size());
    return out;
  };
  std::uint64_t cycles_one = 0, cycles_two = 0, cycles_two_timing = 0;
  const auto expected = output(one, false, &cycles_one);
  CHECK(output(two, false, &cycles_two) == expected);
  output(two, true, &cycles_two_timing);
  CHECK(cycles_two_timing == cycles_two);
  CHECK(cycles_two < cycles_one);
  CHECK(npu::cost::estimate_engines(two, c) == static_cast<double>(cycles_two));
}

TEST_CASE("streams that do not meet, or more streams than engines, are one-line errors", "[engines]") {
  const auto g = gemm(0, 0x10000, 0x20000, 16, 16, 16);
  CHECK(error_of(streams({g, sync(), halt(), g, halt()}, {0, 3}), engines(2)) ==
        "engine 1 has 0 sync(s) of engines 0-1, engine 0 1: every member must meet the others at each");
  auto out_of_group = sync();
  out_of_group.set(npu::isa::Field::group_first, 1);
  out_of_group.set(npu::isa::Field::group_count, 1);
  CHECK(error_of(streams({g, out_of_group, halt(), g, halt()}, {0, 3}), engines(2)) ==
        "instruction #1 (sync) (engine 0): group_first 1 group_count 1 must lie within the program's 2 engine(s) and "
        "include engine 0");
  CHECK(error_of(streams({g, halt(), g, halt()}, {0, 2}), engines(1)) ==
        "the program has 2 engine streams, the config 1 engine(s) (engines.count)");
  CHECK(error_of(streams({g, g, halt(), g, halt()}, {0, 1}), engines(2)) ==
        "engine 0's stream [0, 1) must end with its halt, and only there");
}

TEST_CASE(".engine in assembly: streams in order, round trip through the binary and the disassembler", "[engines]") {
  const std::string text = ".engine 0\n  halt\n.engine 1\n  sync\n  halt\n";
  const Program p = npu::isa::assemble(text, "t");
  CHECK(p.engine_starts == std::vector<std::uint32_t>{0, 1});
  const Program back = npu::isa::deserialize(npu::isa::serialize(p).data(), npu::isa::serialize(p).size(), "t");
  CHECK(back.engine_starts == p.engine_starts);
  CHECK(npu::isa::assemble(npu::isa::disassemble(back), "again").engine_starts == p.engine_starts);
  CHECK_THROWS_WITH(npu::isa::assemble(".engine 1\n  halt\n", "t"), Contains(".engine 1: engines are numbered in order, 0 comes next"));
  CHECK_THROWS_WITH(npu::isa::assemble(".engine 0\n.engine 1\n  halt\n", "t"), Contains("engine 0 has no instructions"));
}

TEST_CASE("the trace puts each engine's tracks in a group of their own", "[engines]") {
  const auto g = gemm(0, 0x10000, 0x20000, 16, 16, 16);
  const auto r = run(streams({g, sync(), halt(), g, sync(), halt()}, {0, 3}), engines(2), true, true);
  int on_engine_1 = 0;
  for (const auto& e : r.trace) on_engine_1 += e.engine == 1 && e.track == "compute";
  CHECK(on_engine_1 == 1);
}
