// The memory system against hand derivations (config: simtest::config(), 1 cycle = 1 ns):
// DMA channels sharing the DDR bus and the scratchpad port, the banked model's rows and
// activates, scratchpad bank conflicts. sim/README.md "Timing rules" states each rule.
//
// Common arithmetic: simple DDR at 25.6 GB/s over 2 channels with 256 B interleave moves a
// 64 B burst in 5 ns per channel, so an aligned 4 KiB chunk takes 160 ns (32 bursts on each
// channel at once); DMA setup is 32 cycles, DDR latency 100 ns; dma.arbitration_bytes is
// 4096 and the bus goes round robin.
#include <catch2/catch.hpp>

#include "costmodel/dma_cost.h"
#include "tests/sim/sim_test_util.h"

using namespace simtest;

namespace {

// `bytes` contiguous bytes as runs of 32 KiB (len0 is a 16-bit field).
Instruction big_dma(Opcode op, std::uint64_t ddr, std::uint64_t sram, std::uint64_t bytes, int channel) {
  const std::uint64_t run = std::min<std::uint64_t>(bytes, 32768);
  auto i = dma(op, ddr, sram, run, channel);
  i.set(Field::count1, static_cast<std::int64_t>(bytes / run));
  i.set(Field::ddr_stride1, static_cast<std::int64_t>(run));
  i.set(Field::sram_stride1, static_cast<std::int64_t>(run));
  return i;
}

}  // namespace

TEST_CASE("a store issued during a long load shares the bus chunk by chunk", "[memory][arbitration]") {
  // Load 64 KiB on DMA channel 0 (ready 1, requests at 33), store 4 KiB on channel 1 (ready 2,
  // requests at 34). The load's first chunk has the bus [33, 193]; at 193 round robin turns to
  // channel 1: the store's one chunk [193, 353], + 100 latency = 453. (Its scratchpad side,
  // 4096 / 64 = 64 port cycles, is done long before: [97, 161] after the load's first chunk.)
  // The load's 15 other chunks follow [353, 2753]: + 100 = 2853.
  // Reserving the bus when a transfer is issued would have kept the store until 2593 (2853).
  auto c = config();
  c.sram.capacity_bytes = 1 << 20;
  auto r = run(program({big_dma(Opcode::Load, 0, 0, 65536, 0), store(0x100000, 0x20000, 4096, 1), halt()}), c);
  CHECK(r.instructions[1].start_cycle == 2);
  CHECK(r.instructions[1].end_cycle == 453);
  CHECK(r.instructions[0].end_cycle == 2853);
  CHECK(r.cycles == 2853);

  // channel_priority: channel 0 goes first whenever it has a chunk waiting, so the load runs
  // [33, 2593] (ends 2693) and the store gets the bus only after it: [2593, 2753], ends 2853.
  c.dma.arbitration = npu::DmaArbitration::ChannelPriority;
  auto p = run(program({big_dma(Opcode::Load, 0, 0, 65536, 0), store(0x100000, 0x20000, 4096, 1), halt()}), c);
  CHECK(p.instructions[0].end_cycle == 2693);
  CHECK(p.instructions[1].end_cycle == 2853);

  // Arbitrating per burst keeps a lone stream at the whole bus's bandwidth: one 64 B chunk
  // every 2.5 ns (64 B at 25.6 GB/s), each channel booked up to one interleave block (4
  // bursts, 20 ns) ahead. Channel 1's first burst is granted after channel 0's four, 10 ns
  // later, so it finishes 10 ns after channel 0: 1 + 32 + 10 + 2560 + 100 = 2703 (4 KiB
  // chunks: 2693).
  c.dma.arbitration = npu::DmaArbitration::RoundRobin;
  c.dma.arbitration_bytes = 64;
  CHECK(run(program({big_dma(Opcode::Load, 0, 0, 65536, 0), halt()}), c).cycles == 2703);

}

TEST_CASE("a pipelined channel overlaps its next transfer's setup and latency with the one before",
          "[memory][arbitration]") {
  // Two 64 KiB loads on channel 0 (dispatched at 1 and 2); each has the bus for 16 chunks of
  // 160 ns = 2560 and ends 100 (latency) after its last chunk.
  // serial: load 0 [1, 33 + 2560 + 100 = 2693]; load 1 starts at 2693, requests at 2725, bus
  //   [2725, 5285], ends 5385.
  // pipelined: load 1 is taken when load 0 makes its request (33), its setup ends at 65 and it
  //   requests when load 0's last chunk is granted (2433); its first chunk has the bus when load
  //   0's last is through (2593): [2593, 5153], ends 5253, setup and latency paid once.
  auto c = config();
  c.sram.capacity_bytes = 1 << 20;
  const auto two_loads = [] {
    return program({big_dma(Opcode::Load, 0, 0, 65536, 0), big_dma(Opcode::Load, 65536, 65536, 65536, 0), halt()});
  };
  auto s = run(two_loads(), c);
  CHECK(s.instructions[0].end_cycle == 2693);
  CHECK(s.instructions[1].start_cycle == 2693);
  CHECK(s.instructions[1].end_cycle == 5385);
  c.dma.channel_queue = npu::DmaChannelQueue::Pipelined;
  auto p = run(two_loads(), c);
  CHECK(p.instructions[0].end_cycle == 2693);
  CHECK(p.instructions[1].start_cycle == 33);
  CHECK(p.instructions[1].end_cycle == 5253);
  CHECK(p.cycles == 5253);
  // The channel counts its busy time once: 5253 - 1.
  CHECK(p.dma_channels[0].busy_cycles == 5252);
}

TEST_CASE("DMA channels share one scratchpad port", "[memory][arbitration]") {
  // Two 4 KiB loads on channels 0 and 1 through an 8 B/cycle port: 512 port cycles each.
  // Port: load 0 [33, 545], load 1 (requests at 34) [545, 1057]. DDR sides end at 293 and
  // 453. Load 0 ends 1 + 32 + max(260, 512) = 545, load 1 at 2 + 32 + max(419, 1023) = 1057.
  auto c = config();
  c.sram.port_bytes_per_cycle = 8;
  auto r = run(program({load(0, 0, 4096, 0), load(8192, 4096, 4096, 1), halt()}), c);
  CHECK(r.instructions[0].end_cycle == 545);
  CHECK(r.instructions[1].end_cycle == 1057);
  CHECK(r.cycles == 1057);
}

TEST_CASE("banked DDR opens rows per channel and bank and overlaps activates", "[memory][ddr]") {
  auto c = config();
  c.ddr.model = npu::DdrModel::Banked;
  c.ddr.row_miss_ns = 30;  // banks 8, row 2 KiB, row_bank_column (the defaults)
  // A channel's local address L = (addr / 512) * 256 + addr % 256; bank = (L / 2048) % 8,
  // row = L / 16384.
  //
  // Stride 2048 B (global) = 1024 B local, all on DDR channel 0: 16 one-burst runs in banks
  // 0,0,1,1,...,7,7 of row 0. All eight activates start at the request (33) and overlap: the
  // bursts go out from 63 back to back, 16 * 5 = 80 ns: end 1 + 32 + 30 + 80 + 100 = 243.
  auto strided = [](std::uint64_t stride) {
    auto l = load(0, 0, 64);
    l.set(Field::count1, 16);
    l.set(Field::ddr_stride1, static_cast<std::int64_t>(stride));
    l.set(Field::sram_stride1, 64);
    return l;
  };
  auto r = run(program({strided(2048), halt()}), c);
  CHECK(r.cycles == 243);
  CHECK(r.ddr.row_misses == 8);
  CHECK(r.ddr.row_hits == 8);
  // Stride 16384 B = 8192 B local: banks 4 apart, a new row every other run (0,4,0,4,...,
  // rows 0,0,1,1,...). A bank must finish its burst before it opens its next row: bank 0's
  // bursts at 63 + 35k, bank 4's 5 ns later, so the 16th ends at 33 + 30 + 35*7 + 10 = 318:
  // end 318 + 100 = 418.
  auto s = run(program({strided(16384), halt()}), c);
  CHECK(s.cycles == 418);
  CHECK(s.ddr.row_misses == 16);
}

TEST_CASE("banked DDR: a sequential stream at the bandwidth its rows allow", "[memory][ddr]") {
  auto c = config();
  c.ddr.model = npu::DdrModel::Banked;
  c.ddr.row_miss_ns = 30;
  // 64 KiB: 32 KiB per channel = 16 rows of 2 KiB in banks 0..7 twice. With 8 banks each row's
  // activate starts at the request and is done long before its bursts are due (a bank reopens
  // after 7 other rows, 7 * 160 ns >> 30 ns): only the first miss shows.
  //   1 + 32 + 30 + 65536 / 25.6 + 100 = 2723.
  auto r = run(program({big_dma(Opcode::Load, 0, 0, 65536, 0), halt()}), c);
  CHECK(r.cycles == 2723);
  CHECK(r.ddr.row_misses == 32);
  // One bank: every row's activate waits for the previous row's last burst, so each 2 KiB row
  // costs 30 + 32 * 5 = 190 ns per channel: 2048 B / 190 ns = 10.8 GB/s per channel instead
  // of 12.8. 16 rows: 1 + 32 + 16 * 190 + 100 = 3173.
  c.ddr.banks = 1;
  CHECK(run(program({big_dma(Opcode::Load, 0, 0, 65536, 0), halt()}), c).cycles == 3173);
}

TEST_CASE("DMA and the MAC array on the same scratchpad bank", "[memory][sram]") {
  // 16 banks of 64 KiB (block mapping), 64 B per bank per cycle, ideal DDR so the transfer
  // is its setup + scratchpad port time. The gemm (m=512, n=16, k=16 on 16x16 WS:
  // 32 + 16 + 510 = 558 cycles) reads A (8 KiB at 0) and B (256 B at 8192) and writes C
  // (32 KiB at 16384), all in bank 0: 512*16 + 16*16 + 4*512*16 = 41216 B in 558 cycles, more
  // than the bank's 64 B/cycle, so it keeps bank 0 busy every cycle (fraction 1).
  auto c = config();
  c.ddr.model = npu::DdrModel::Ideal;
  const auto g = gemm(0, 8192, 16384, 512, 16, 16);
  // The gemm runs [1, 559). The load (ready 2, requests at 34) writes 4 KiB: 64 port cycles
  // into bank 0, also every cycle: each of its cycles collides, it waits 64 more:
  // 2 + 32 + 128 = 162.
  auto same = run(program({g, load(0, 0xC000, 4096), halt()}), c);
  CHECK(same.instructions[1].end_cycle == 162);
  CHECK(same.load.bank_conflict_cycles == 64);
  CHECK(same.instructions[1].bank_conflict_cycles == 64);
  CHECK(same.compute.bank_conflict_cycles == 0);
  // The same load into bank 5 (0x50000): no conflict, 2 + 32 + 64 = 98.
  auto apart = run(program({g, load(0, 0x50000, 4096), halt()}), c);
  CHECK(apart.instructions[1].end_cycle == 98);
  CHECK(apart.load.bank_conflict_cycles == 0);

  // The other way round: the load's port chunk [20, 84) is running when the gemm starts at
  // 40 (dispatch 20 cycles, no DMA setup). The gemm is the newcomer: it shares 44 cycles with
  // the load, every one a collision, and runs 558 + 44: ends 642.
  c.controller.dispatch_cycles = 20;
  c.dma.setup_cycles = 0;
  auto late = run(program({load(0, 0xC000, 4096), g, halt()}), c);
  CHECK(late.instructions[0].end_cycle == 84);
  CHECK(late.instructions[1].end_cycle == 642);
  CHECK(late.compute.bank_conflict_cycles == 44);
  CHECK(late.load.bank_conflict_cycles == 0);

  // Interleaved banks (64 B stripes over 16 banks): both spread over all banks. The gemm puts
  // 512 (A) + 2048 (C) B in each bank, + 64 (B) in banks 0-3: fractions 2560 / (64 * 558) =
  // 0.07168 and 2624 / 35712 = 0.07348. The load puts 256 B in each bank in 64 cycles: 1/16.
  // Collisions per cycle: (12 * 0.07168 + 4 * 0.07348) / 16 = 0.07213; stall
  // ceil(64 * 0.07213) = ceil(4.62) = 5.
  c = config();
  c.ddr.model = npu::DdrModel::Ideal;
  c.sram.bank_mapping = npu::SramBankMapping::Interleaved;
  auto spread = run(program({g, load(0, 0x30000, 4096), halt()}), c);
  CHECK(spread.load.bank_conflict_cycles == 5);
  CHECK(spread.instructions[1].end_cycle == 98 + 5);
}

TEST_CASE("the compiler's DMA estimate follows the simulator's DDR rules", "[memory][estimate]") {
  // costmodel's DmaEstimate (what the tiler uses) against a lone load simulated from cycle 1:
  // simple and banked walk the same burst rules (costmodel/ddr_timing.h), so a 64 KiB load
  // (2 runs of 32 KiB) agrees to the cycle; dram is estimated with the banked rules on the
  // standard's geometry and its average refresh share, so it is compared on 1 MiB (about ten
  // refresh intervals): within 5 %.
  for (const auto model : {npu::DdrModel::Simple, npu::DdrModel::Banked, npu::DdrModel::Dram}) {
    INFO(npu::choice_name(model));
    auto c = config();
    c.ddr.model = model;
    std::uint64_t bytes = 65536;
    if (c.ddr.model == npu::DdrModel::Dram) {
      c.ddr.channels = 3;
      c.ddr.bandwidth_gbps = 25.596;
      c.ddr.burst_bytes = 32;
      bytes = 1 << 20;
    }
    const npu::cost::DmaEstimate estimate(c);
    double cycles = 0, bus = 0;
    estimate.linear(bytes, cycles, bus);
    const auto r = run(program({big_dma(Opcode::Load, 0, 0, bytes, 0), halt()}), c);
    const double simulated = static_cast<double>(r.instructions[0].end_cycle - r.instructions[0].start_cycle);
    CHECK(bus == Approx(static_cast<double>(r.ddr_bus_bytes)));
    if (c.ddr.model == npu::DdrModel::Dram)
      CHECK(cycles == Approx(simulated).epsilon(0.05));
    else
      CHECK(cycles == Approx(simulated).margin(1.0));
  }
}
