// The command-level DRAM model (ddr.model: dram) against derivations from its timing sets
// (hwconfig/dram_standards.cpp); sim/README.md "DDR dram" writes each one out.
#include <catch2/catch.hpp>

#include <random>

#include "hwconfig/dram_standards.h"
#include "costmodel/ddr/ddr_dram.h"
#include "tests/sim/sim_test_util.h"

using namespace simtest;
using npu::DramStandard;
using npu::DramStandardId;
using npu::cost::DdrChunk;
using npu::cost::DdrPiece;
using npu::cost::DramDdr;

namespace {

const DramStandardId kStandards[] = {DramStandardId::Lpddr4x_4266, DramStandardId::Lpddr5x_8533,
                                     DramStandardId::Ddr5_5600};

// What each standard streams best with: LPDDR4X has no bank groups; LPDDR5X and DDR5 need
// consecutive bursts in different bank groups to issue at tCCD_S.
npu::DdrAddressMapping mapping_for(DramStandardId standard) {
  return standard == DramStandardId::Lpddr4x_4266 ? npu::DdrAddressMapping::RowBankColumn
                                                  : npu::DdrAddressMapping::RowBankColumnBankGroup;
}

npu::DdrConfig one_channel(const DramStandard& s) {
  npu::DdrConfig d;
  d.model = npu::DdrModel::Dram;
  d.channels = 1;
  d.bandwidth_gbps = s.channel_gbps();
  d.burst_bytes = s.burst_bytes();
  d.interleave_bytes = 256;
  d.latency_ns = 0;
  d.address_mapping = mapping_for(s.id);
  return d;
}

// Serves `pieces` as one transfer in chunks of `per_chunk` pieces, each granted when the bus
// is free again (as the DMA bus arbiter does for a lone transfer); returns the last data's end.
double serve_stream(DramDdr& m, const std::vector<DdrPiece>& pieces, bool write, std::size_t per_chunk,
                    std::uint32_t transfer, double start_ns = 0) {
  double grant = start_ns, done = start_ns;
  for (std::size_t i = 0; i < pieces.size(); i += per_chunk) {
    DdrChunk c;
    c.pieces = &pieces[i];
    c.count = std::min(per_chunk, pieces.size() - i);
    c.write = write;
    c.transfer = transfer;
    c.last = i + per_chunk >= pieces.size();
    c.request_ns = start_ns;
    c.grant_ns = grant;
    const auto t = m.serve(c);
    grant = t.free_ns;
    done = std::max(done, t.done_ns);
  }
  return done;
}

std::vector<DdrPiece> sequential(std::uint64_t bytes, std::uint64_t piece = 4096) {
  std::vector<DdrPiece> p;
  for (std::uint64_t a = 0; a < bytes; a += piece) p.push_back({a, piece});
  return p;
}

}  // namespace

TEST_CASE("dram: a sequential read stream reaches 85-95% of peak", "[dram]") {
  // 2 MiB through the whole simulator (one load of 64 x 32 KiB runs, DMA setup 0, a scratchpad
  // port that is never the limit, no fabric latency): the DRAM time is the run's cycles - 1
  // (dispatch) at 1 GHz. Rows stay open (hits), the next row's ACT is issued while the queue
  // still streams the current one, so what is left is refresh: tRFC every tREFI blocks the
  // channel, so the fraction of peak is at most 1 - tRFC / tREFI (LPDDR4X 380.8 / 3910.5 ns:
  // 0.903; LPDDR5X 280 / 3906: 0.928; DDR5 295 / 3900: 0.924) and row changes cost a little
  // more (within 3 points).
  for (const DramStandardId name : kStandards) {
    INFO(npu::choice_name(name));
    const DramStandard& s = npu::dram_standard(name);
    auto c = config();
    c.ddr = one_channel(s);
    c.dram.standard = name;
    c.dma.setup_cycles = 0;
    c.sram.capacity_bytes = 4 << 20;
    c.sram.port_bytes_per_cycle = 4096;
    auto l = load(0, 0, 32768);
    l.set(Field::count1, 64);
    l.set(Field::ddr_stride1, 32768);
    l.set(Field::sram_stride1, 32768);
    const auto r = run(program({l, halt()}), c);
    const double ns = static_cast<double>(r.cycles - 1);
    const double fraction = (2.0 * 1024 * 1024 / ns) / s.channel_gbps();
    const double refresh_bound = 1.0 - s.tRFC / s.tREFI;
    CHECK(fraction >= 0.85);
    CHECK(fraction <= 0.95);
    CHECK(fraction <= refresh_bound);
    CHECK(fraction >= refresh_bound - 0.03);
    CHECK(r.ddr.row_hit_rate() > 0.95);
    CHECK(r.ddr.refreshes > 0);
  }
}

TEST_CASE("dram: random 64-byte reads reach the activate-limited bandwidth", "[dram]") {
  // 64 B reads at random 64 B-aligned addresses in 1 GiB, 64 to a chunk: each needs its own
  // row, so each costs `acts` ACTs (LPDDR4X, DDR5: one; LPDDR5X, whose 32 B bursts alternate
  // bank groups under row_bank_column_bankgroup: two). ACTs on a channel are at least
  // max(tRRD_S, tFAW / 4) apart and a bank reopens only after tRC, spread over its banks, so
  // the channel moves at most 64 B per acts * max(tRRD_S, tFAW / 4, tRC / banks), never more
  // than the data bus (64 B / burst_bytes * tBURST), and refresh takes 1 - tRFC / tREFI:
  //   LPDDR4X: 64 / max(10.3, 10.1, 7.6) = 6.20 GB/s * 0.903 = 5.60 GB/s (65.7% of 8.53)
  //   LPDDR5X: 64 / (2 * max(5, 5, 3.75)) = 6.40 GB/s * 0.928 = 5.94 GB/s (34.8% of 17.07)
  //   DDR5:    min(64 / max(2.86, 2.86, 1.50), 22.4) = 22.4 GB/s * 0.924 = 20.7 GB/s (92.4%)
  // Random banks sometimes collide in the queue (a bank still busy with its previous row):
  // the measured rate is within 15% below the bound.
  for (const DramStandardId name : kStandards) {
    INFO(npu::choice_name(name));
    const DramStandard& s = npu::dram_standard(name);
    npu::DramConfig dram;
    dram.standard = name;
    DramDdr m(one_channel(s), dram);
    std::mt19937_64 rng(7);
    std::vector<DdrPiece> pieces;
    for (int i = 0; i < 20000; ++i) pieces.push_back({(rng() % (1ull << 30)) / 64 * 64, 64});
    const double done = serve_stream(m, pieces, false, 64, 1);
    const double gbps = 64.0 * static_cast<double>(pieces.size()) / done;
    const int acts = name == DramStandardId::Lpddr5x_8533 ? 2 : 1;
    const double act_gap = acts * std::max({s.tRRD_S, s.tFAW / 4, s.tRC / s.banks});
    const double bus_gap = 64.0 / s.burst_bytes() * s.tBURST();
    const double bound = 64.0 / std::max(act_gap, bus_gap) * (1.0 - s.tRFC / s.tREFI);
    CHECK(gbps <= bound * 1.001);
    CHECK(gbps >= 0.85 * bound);
  }
}

TEST_CASE("dram: reads and writes alternating pay the bus turnaround", "[dram]") {
  // LPDDR4X without refresh (tREFI out of reach), one bank, one open row: 256 B (8 bursts) read,
  // 256 B written, ... in the same row, each its own transfer granted when the bus is free.
  //   RD -> WR: the WR may issue tRTW after the last RD (32 nCK) where it could otherwise
  //     issue as soon as its data follows the read data, tCL + tBURST - tCWL = 26 nCK after:
  //     6 nCK lost.
  //   WR -> RD: the RD waits tWTR (23 nCK) after the write data ends (tCWL + tBURST = 26 nCK
  //     after the WR) where tCCD (8 nCK) would do: 26 + 23 - 8 = 41 nCK lost.
  DramStandard s = npu::dram_standard(DramStandardId::Lpddr4x_4266);
  s.tREFI = 1e15;
  npu::DramConfig dram;
  dram.standard = s.id;
  DramDdr m(one_channel(s), dram, s);
  double grant = 0;
  const int pairs = 50;
  for (int i = 0; i < 2 * pairs; ++i) {
    DdrPiece p{static_cast<std::uint64_t>(i % 2) * 256, 256};
    DdrChunk c;
    c.pieces = &p;
    c.count = 1;
    c.write = i % 2 == 1;
    c.transfer = static_cast<std::uint32_t>(i);
    c.last = true;
    c.grant_ns = grant;
    const auto t = m.serve(c);
    if (i == 2) CHECK(t.turnaround_ns == Approx(41 * s.tck_ns));  // a read after a write
    if (i == 3) CHECK(t.turnaround_ns == Approx(6 * s.tck_ns));   // a write after a read
    grant = t.free_ns;
  }
  const double expected = (pairs * 6 + (pairs - 1) * 41) * s.tck_ns;
  CHECK(m.counters().turnaround_ns == Approx(expected));
  CHECK(m.counters().row_misses == 1);
  CHECK(m.counters().row_hits == 2 * pairs * 8 - 1);
}

TEST_CASE("dram: refresh costs about tRFC / tREFI of the time", "[dram]") {
  // The same 8 MiB read stream with and without refresh: the difference is the refreshes'
  // share of the time, tRFC / tREFI (LPDDR4X 9.7%, LPDDR5X 7.2%, DDR5 7.6%), plus what each
  // refresh costs around it: the open row is precharged first (tRP), reopened after (tRCD),
  // and the read pipeline refills (tCL + tBURST). So the share lies between tRFC / tREFI and
  // (tRFC + tRP + tRCD + tCL + tBURST) / tREFI (LPDDR4X 11.2%, LPDDR5X 8.6%, DDR5 8.9%).
  for (const DramStandardId name : kStandards) {
    INFO(npu::choice_name(name));
    DramStandard s = npu::dram_standard(name);
    npu::DramConfig dram;
    dram.standard = name;
    DramDdr with(one_channel(s), dram, s);
    const double t_with = serve_stream(with, sequential(8 << 20), false, 1, 1);
    s.tREFI = 1e15;
    DramDdr without(one_channel(s), dram, s);
    const double t_without = serve_stream(without, sequential(8 << 20), false, 1, 1);
    const DramStandard& real = npu::dram_standard(name);
    const double share = (t_with - t_without) / t_with;
    CHECK(share >= real.tRFC / real.tREFI);
    CHECK(share <= (real.tRFC + real.tRP + real.tRCD + real.tCL + real.tBURST()) / real.tREFI);
    CHECK(without.counters().refreshes == 0);
    CHECK(with.counters().refresh_ns == Approx(static_cast<double>(with.counters().refreshes) * real.tRFC));
  }
}

TEST_CASE("dram: closed page saves the precharge of a row conflict, FR-FCFS serves row hits first", "[dram]") {
  // LPDDR4X, one channel, no refresh. One read of bank 0 row 0, then, long after, one of
  // bank 0 row 1 (channel-local 2048 * 8 = 16384: row_bank_column puts the next row of a bank
  // banks * row_bytes further on).
  DramStandard s = npu::dram_standard(DramStandardId::Lpddr4x_4266);
  s.tREFI = 1e15;
  auto second_read_ns = [&](npu::DramPagePolicy policy, npu::cost::DdrCounters& counters) {
    npu::DramConfig dram;
    dram.standard = s.id;
    dram.page_policy = policy;
    DramDdr m(one_channel(s), dram, s);
    serve_stream(m, {{0, 32}}, false, 1, 1);
    const double done = serve_stream(m, {{16384, 32}}, false, 1, 2, 10000.0);
    counters = m.counters();
    return done - 10000.0;
  };
  // Open page: row 0 is still open, so PRE (tRP), ACT (tRCD), RD (tCL + tBURST).
  // Closed page: the first read auto-precharged, the bank is ready: ACT, RD.
  npu::cost::DdrCounters open_counters, closed_counters;
  const double open_ns = second_read_ns(npu::DramPagePolicy::Open, open_counters);
  const double closed_ns = second_read_ns(npu::DramPagePolicy::Closed, closed_counters);
  CHECK(open_ns == Approx(s.tRP + s.tRCD + s.tCL + s.tBURST()));
  CHECK(closed_ns == Approx(s.tRCD + s.tCL + s.tBURST()));
  CHECK(open_counters.row_conflicts == 1);
  CHECK(closed_counters.row_conflicts == 0);

  // Three requests in one chunk, bank 0: row 0, row 1, row 0. FR-FCFS serves the second row-0
  // request while row 0 is open (one conflict: row 0 -> row 1); FCFS goes in order (two).
  auto conflicts = [&](npu::DramSchedulerPolicy scheduler) {
    npu::DramConfig dram;
    dram.standard = s.id;
    dram.scheduler = scheduler;
    DramDdr m(one_channel(s), dram, s);
    serve_stream(m, {{0, 32}, {16384, 32}, {32, 32}}, false, 3, 1);
    return m.counters().row_conflicts;
  };
  CHECK(conflicts(npu::DramSchedulerPolicy::FrFcfs) == 1);
  CHECK(conflicts(npu::DramSchedulerPolicy::Fcfs) == 2);
}
