// Energy and the counters it is computed from, hand-checked on a small program
// (config: simtest::config(), 1 GHz, 16x16 WS array, 64 B DDR bursts).
#include <catch2/catch.hpp>

#include "tests/sim/sim_test_util.h"

using namespace simtest;

namespace {

// load A (4096 B) -> gemm 64x32x64 int8 -> requant 2048 -> store 2048 B, chained by tokens.
Program chain() {
  auto rq = make(Opcode::Requantize, kCompute, kStore);
  rq.set(Field::src_addr, 16384);
  rq.set(Field::param_addr, 32768);
  rq.set(Field::dst_addr, 40960);
  rq.set(Field::count, 2048);
  rq.set(Field::channels, 32);
  rq.set(Field::clamp_min, -128);
  rq.set(Field::clamp_max, 127);
  return program({load(0, 0, 4096, 0, 0, kCompute), gemm(0, 4096, 16384, 64, 32, 64, false, false, kLoad, kVector),
                  rq, store(0x10000, 40960, 2048, 1, kVector, 0), halt()});
}

npu::EnergyConfig table() {
  npu::EnergyConfig e;
  e.int8_mac_pj = 0.25;
  e.fp16_mac_pj = 1.0;
  e.sram_byte_pj = 0.5;
  e.ddr_byte_pj = 20.0;
  e.static_mw = 100.0;
  return e;
}

}  // namespace

TEST_CASE("energy of a small program from its counters", "[energy]") {
  auto c = config();
  c.energy = table();
  const auto r = run(chain(), c);

  // Timing: load [1, 293) (32 + 100 + 4096/25.6 = 160); gemm WS ceil(64/16)*ceil(32/16) = 8
  // folds * (32 + 16 + 64 - 2 = 110) = 880: [293, 1173); requant 4 + 2048/16 = 132:
  // [1173, 1305); store 32 + (2048 B = 16 bursts per DDR channel * 5 ns + 100 = 180): [1305, 1517).
  CHECK(r.cycles == 1517);
  CHECK(r.int8_macs == 64 * 32 * 64);  // 131072
  CHECK(r.fp16_macs == 0);
  CHECK(r.ddr_bus_bytes == 4096 + 2048);

  // SRAM traffic per unit:
  //  load writes 4096.
  //  gemm (WS: B stationary, A streamed once per column fold, ceil(32/16) = 2):
  //    reads A 64*64*2 = 8192 + B 64*32 = 2048 = 10240; writes C 64*32*4 = 8192.
  //  requant reads src 2048*4 = 8192 + params 32*8 = 256 = 8448; writes 2048.
  //  store reads 2048.
  CHECK(r.load.sram_bytes_written == 4096);
  CHECK(r.load.sram_bytes_read == 0);
  CHECK(r.compute.sram_bytes_read == 10240);
  CHECK(r.compute.sram_bytes_written == 8192);
  CHECK(r.vector.sram_bytes_read == 8448);
  CHECK(r.vector.sram_bytes_written == 2048);
  CHECK(r.store.sram_bytes_read == 2048);
  CHECK(r.sram_bytes_read == 10240 + 8448 + 2048);     // 20736
  CHECK(r.sram_bytes_written == 4096 + 8192 + 2048);   // 14336

  REQUIRE(r.energy.has_value());
  const auto& e = *r.energy;
  // int8:   131072 * 0.25 pJ            = 32768 pJ   = 0.032768 uJ
  // SRAM:   (20736 + 14336) * 0.5 pJ    = 17536 pJ   = 0.017536 uJ
  // DDR:    6144 * 20 pJ                = 122880 pJ  = 0.12288 uJ
  // static: 100 mW * 1.517 us           = 151.7 nJ   = 0.1517 uJ
  // total                                              = 0.324884 uJ
  // power:  0.324884 uJ / 1.517 us = 0.214162... W; TOPS/W = 262144 ops / 0.324884 uJ / 1e6
  CHECK(e.mac_int8_uj == Approx(0.032768).epsilon(1e-12));
  CHECK(e.mac_fp16_uj == 0.0);
  CHECK(e.sram_uj == Approx(0.017536).epsilon(1e-12));
  CHECK(e.ddr_uj == Approx(0.12288).epsilon(1e-12));
  CHECK(e.static_uj == Approx(0.1517).epsilon(1e-12));
  CHECK(e.total_uj == Approx(0.324884).epsilon(1e-12));
  CHECK(e.average_power_mw == Approx(0.324884 / 1.517 * 1000).epsilon(1e-12));
  CHECK(e.tops_per_watt == Approx(262144.0 / 0.324884 / 1e6).epsilon(1e-12));
}

TEST_CASE("fp16 MACs use the fp16 rate", "[energy]") {
  auto c = config();
  c.energy = table();
  // fp16 gemm 16x16x16: 4096 MACs * 1 pJ = 0.004096 uJ.
  const auto r = run(program({gemm(0, 4096, 8192, 16, 16, 16, true), halt()}), c);
  CHECK(r.fp16_macs == 4096);
  CHECK(r.energy->mac_fp16_uj == Approx(0.004096).epsilon(1e-12));
  CHECK(r.energy->mac_int8_uj == 0.0);
}

TEST_CASE("no energy table, no energy", "[energy]") {
  auto c = config();
  c.energy.reset();
  const auto r = run(chain(), c);
  CHECK_FALSE(r.energy.has_value());
  CHECK(r.sram_bytes_read == 20736);  // the counters are there regardless
}

TEST_CASE("doubling the DDR pJ per byte doubles the DDR part exactly", "[energy]") {
  auto c = config();
  c.energy = table();
  c.energy->ddr_byte_pj = 17.3;  // not a power of two: the exactness is in the arithmetic
  const auto a = run(chain(), c);
  c.energy->ddr_byte_pj *= 2;
  const auto b = run(chain(), c);
  CHECK(b.energy->ddr_uj == 2 * a.energy->ddr_uj);  // exact, not Approx
  CHECK(b.energy->mac_int8_uj == a.energy->mac_int8_uj);
  CHECK(b.energy->sram_uj == a.energy->sram_uj);
  CHECK(b.energy->static_uj == a.energy->static_uj);
  CHECK(b.energy->total_uj - a.energy->total_uj == Approx(a.energy->ddr_uj));
}

TEST_CASE("the dataflow decides how often the array reads A and B", "[energy]") {
  // gemm m=64, n=32, k=48 (A 3072 B, B 1536 B, C 8192 B), 16x16 array:
  //  WS: A * ceil(32/16) = 6144 + B 1536              = 7680
  //  OS: A * ceil(32/16) = 6144 + B * ceil(64/16) 6144 = 12288
  //  IS: A 3072 + B * ceil(64/16) = 6144               = 9216
  // Accumulating adds one read of C (8192).
  auto reads = [](npu::Dataflow df, bool acc) {
    auto c = config();
    c.mac_array.dataflow = df;
    return run(program({gemm(0, 4096, 8192, 64, 32, 48, false, acc), halt()}), c).compute.sram_bytes_read;
  };
  CHECK(reads(npu::Dataflow::WeightStationary, false) == 7680);
  CHECK(reads(npu::Dataflow::OutputStationary, false) == 12288);
  CHECK(reads(npu::Dataflow::InputStationary, false) == 9216);
  CHECK(reads(npu::Dataflow::WeightStationary, true) == 7680 + 8192);
}

TEST_CASE("DMA bus bytes per channel add up to the DDR model's count", "[energy][dma]") {
  // ddr 32, 4096 B: 65 bursts; ddr 0, 2048 B: 32 bursts; strided 2 x 100 B at 0x1000 and 0x1000 + 130:
  // ceil(100/64) = 2 bursts + ceil((130 % 64 = 2) + 100) / 64) = 2 bursts.
  auto strided = load(0x1000, 8192, 100, 1);
  strided.set(Field::count1, 2);
  strided.set(Field::ddr_stride1, 130);
  strided.set(Field::sram_stride1, 128);
  const auto r = run(program({load(32, 0, 4096, 0), store(0x4000, 4096, 2048, 1), strided, halt()}), config());
  REQUIRE(r.dma_channels.size() == 2);
  CHECK(r.dma_channels[0].bus_bytes == 65 * 64);
  CHECK(r.dma_channels[1].bus_bytes == 32 * 64 + 4 * 64);
  CHECK(r.ddr_bus_bytes == r.dma_channels[0].bus_bytes + r.dma_channels[1].bus_bytes);
}

TEST_CASE("derived energy: every part from the design's costs, reads and writes apart", "[energy][derived]") {
  auto c = config();
  c.energy = npu::EnergyConfig{};
  c.energy->model = npu::EnergyModel::Derived;
  c.energy->dram_technology = "LPDDR4";
  c.energy->uncore_mw = 3;
  const npu::DesignCosts d = npu::design_costs(c);
  REQUIRE(d.derived);
  const auto r = run(chain(), c);
  REQUIRE(r.energy.has_value());
  const auto& e = *r.energy;
  // The same counters as above: 131072 int8 MACs; SRAM 20736 B read, 14336 B written; 6144
  // DDR bus bytes; requant 2048 integer elements; 4096 + 2048 DMA bytes; 1517 cycles at 1 GHz.
  CHECK(r.vector_int_elements == 2048);
  CHECK(r.vector_float_elements == 0);
  CHECK(e.mac_int8_uj == 131072 * d.int8_mac_pj * 1e-6);
  CHECK(e.sram_uj == Approx((20736 * d.sram_read_pj_per_byte + 14336 * d.sram_write_pj_per_byte) * 1e-6).epsilon(1e-12));
  CHECK(d.sram_read_pj_per_byte != d.sram_write_pj_per_byte);  // CACTI's read and write differ
  CHECK(e.ddr_uj == 6144 * (8 * 8.0) * 1e-6);                    // LPDDR4: 8 pJ/bit
  CHECK(e.vector_uj == 2048 * d.vector_int_pj_per_element * 1e-6);
  CHECK(e.dma_uj == 6144 * d.dma_pj_per_byte * 1e-6);
  CHECK(e.leakage_uj == Approx(d.leakage_mw * 1.517 * 1e-3).epsilon(1e-12));
  CHECK(e.clock_uj == Approx(d.clock_mw * 1.517 * 1e-3).epsilon(1e-12));
  CHECK(e.static_uj == Approx((d.leakage_mw + d.clock_mw + 3) * 1.517 * 1e-3).epsilon(1e-12));
  CHECK(e.total_uj == Approx(e.mac_int8_uj + e.sram_uj + e.ddr_uj + e.vector_uj + e.dma_uj + e.static_uj).epsilon(1e-12));
}
