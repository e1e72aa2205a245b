// Timing rules with hand-computed expectations (config: simtest::config(), 1 cycle = 1 ns).
//
// Common arithmetic: the controller spends 1 dispatch cycle per instruction, so instruction
// i (0-based) is ready for its unit at cycle i+1 unless a queue was full. An idle unit
// starts an instruction at its ready cycle; halt ends when everything has finished.
#include <catch2/catch.hpp>
#include <tuple>

#include "tests/sim/sim_test_util.h"

using namespace simtest;
using npu::Dataflow;

namespace {

// Ten identical gemm tiles back to back on the compute unit, then halt.
npu::sim::SimResult gemm_stream(Dataflow df, bool fp16) {
  auto c = config();
  c.mac_array.dataflow = df;
  std::vector<Instruction> code;
  for (int i = 0; i < 10; ++i) code.push_back(gemm(0, 8192, 16384, 64, 32, 48, fp16));
  code.push_back(halt());
  return run(program(code), c);
}

}  // namespace

TEST_CASE("compute-bound gemm stream follows the systolic formulas", "[timing]") {
  // m=64, n=32, k=48 on 16x16:
  //  WS: ceil(48/16)*ceil(32/16) = 6 folds * (2*16 + 16 + 64 - 2 = 110) = 660 cycles
  //  OS: ceil(64/16)*ceil(32/16) = 8 folds * (48 + 16 + 16 - 2 = 78)    = 624 cycles
  //  IS: ceil(48/16)*ceil(64/16) = 12 folds * (2*16 + 16 + 32 - 2 = 78) = 936 cycles
  // The first gemm is ready at cycle 1 (one dispatch), the rest follow back to back
  // (dispatch is far ahead), halt ends at 1 + 10 * tile.
  auto ws = gemm_stream(Dataflow::WeightStationary, false);
  CHECK(ws.cycles == 1 + 10 * 660);
  CHECK(ws.compute.busy_cycles == 10 * 660);
  CHECK(ws.compute.instructions == 10);
  CHECK(ws.macs == 10ull * 64 * 32 * 48);
  CHECK(ws.instructions[3].start_cycle == 1 + 3 * 660);
  CHECK(ws.instructions[3].end_cycle == 1 + 4 * 660);
  CHECK(ws.mac_utilization == Approx(10.0 * 64 * 32 * 48 / (256.0 * 6601)));
  CHECK(ws.achieved_tops == Approx(2.0 * 10 * 64 * 32 * 48 / (6601e-9) / 1e12));

  CHECK(gemm_stream(Dataflow::OutputStationary, false).cycles == 1 + 10 * 624);
  CHECK(gemm_stream(Dataflow::InputStationary, false).cycles == 1 + 10 * 936);
  // fp16 takes fp16_cycles_per_op = 2 int8 slots per MAC.
  auto h = gemm_stream(Dataflow::WeightStationary, true);
  CHECK(h.cycles == 1 + 10 * 1320);
  CHECK(h.fp16_macs == 10ull * 64 * 32 * 48);
}

TEST_CASE("overlapped folds pay the fill and drain once, then max(T, R) per fold", "[timing]") {
  // mac_array.fold_overlap overlapped, m=64, n=32, k=48 on 16x16 (R = 16):
  //  WS: 6 folds, T = m = 64: 110 + 5 * max(64, 16) = 430
  //  OS: 8 folds, T = k = 48: 78 + 7 * 48 = 414
  //  IS: 12 folds, T = n = 32: 78 + 11 * 32 = 430
  // and a fold shorter than the reload: OS with k = 8: 4 * 2 folds, 8 + 30 = 38 + 7 * max(8, 16) = 150.
  for (auto [df, k, tile] : {std::tuple<Dataflow, int, std::uint64_t>{Dataflow::WeightStationary, 48, 430},
                             {Dataflow::OutputStationary, 48, 414},
                             {Dataflow::InputStationary, 48, 430},
                             {Dataflow::OutputStationary, 8, 150}}) {
    INFO(npu::choice_name(df) << " k " << k);
    auto c = config();
    c.mac_array.dataflow = df;
    c.mac_array.fold_overlap = npu::FoldOverlap::Overlapped;
    std::vector<Instruction> code;
    for (int i = 0; i < 10; ++i) code.push_back(gemm(0, 8192, 16384, 64, 32, k, false));
    code.push_back(halt());
    const auto r = run(program(code), c);
    CHECK(r.cycles == 1 + 10 * tile);
    CHECK(r.compute.busy_cycles == 10 * tile);
  }
  // One fold: the same as serial.
  auto c = config();
  c.mac_array.fold_overlap = npu::FoldOverlap::Overlapped;
  CHECK(run(program({gemm(0, 8192, 16384, 16, 16, 16, false), halt()}), c).cycles == 1 + (2 * 16 + 16 + 16 - 2));
}

TEST_CASE("a scratchpad that answers later costs access_cycles - 1 per fold", "[timing]") {
  // WS, m=64, n=32, k=48 on 16x16: 6 folds of 110 cycles; sram.access_cycles 3 adds 2 per
  // fold: 660 + 12 = 672 per gemm. fp16 doubles the folds' work, not the wait: 1320 + 12.
  for (bool fp16 : {false, true}) {
    auto c = config();
    c.sram.access_cycles = 3;
    std::vector<Instruction> code;
    for (int i = 0; i < 10; ++i) code.push_back(gemm(0, 8192, 16384, 64, 32, 48, fp16));
    code.push_back(halt());
    CHECK(run(program(code), c).cycles == 1 + 10 * ((fp16 ? 1320 : 660) + 12));
  }
  // OS: 8 folds * 78 + 8 * 2; IS: 12 folds * 78 + 12 * 2.
  for (auto [df, tile] : {std::pair<Dataflow, std::uint64_t>{Dataflow::OutputStationary, 624 + 16}, {Dataflow::InputStationary, 936 + 24}}) {
    auto c = config();
    c.sram.access_cycles = 3;
    c.mac_array.dataflow = df;
    CHECK(run(program({gemm(0, 8192, 16384, 64, 32, 48, false), halt()}), c).cycles == 1 + tile);
  }
}

namespace {
// len0 is a 16-bit field: big contiguous loads are `runs` back-to-back runs.
Instruction contiguous_load(std::uint64_t bytes, int runs) {
  auto l = load(0, 0, bytes / runs);
  l.set(Field::count1, runs);
  l.set(Field::ddr_stride1, static_cast<std::int64_t>(bytes / runs));
  l.set(Field::sram_stride1, static_cast<std::int64_t>(bytes / runs));
  return l;
}
}  // namespace

TEST_CASE("a DMA-bound load costs setup + latency + bytes / bandwidth", "[timing][dma]") {
  // One aligned 64 KiB load, ready at cycle 1.
  //  (as 2 runs of 32 KiB: both are issued together and queue on the DDR channels, so this
  //  is the same as one 64 KiB run)
  //  DDR: 65536 B split evenly over 2 channels (256 B interleave) at 25.6 GB/s total:
  //       latency 100 ns + 65536 / 25.6 = 2560 ns -> 2660 ns = 2660 cycles at 1 GHz
  //  SRAM port: 65536 / 64 = 1024 cycles (hidden under DDR)
  //  transfer = setup 32 + max(2660, 1024) = 2692; done at 1 + 2692.
  auto c = config();
  auto r = run(program({contiguous_load(65536, 2), halt()}), c);
  CHECK(r.cycles == 1 + 32 + 2660);
  CHECK(r.load.busy_cycles == 32 + 2660);
  CHECK(r.ddr_bytes_read == 65536);
  CHECK(r.ddr_bus_bytes == 65536);
  REQUIRE(r.dma_channels.size() == 2);
  CHECK(r.dma_channels[0].transfers == 1);
  CHECK(r.dma_channels[0].busy_cycles == 2692);

  // Half the bandwidth taken by other agents: 65536 / 12.8 = 5120 ns + 100.
  c.ddr.other_agents_share = 0.5;
  CHECK(run(program({contiguous_load(65536, 2), halt()}), c).cycles == 1 + 32 + 5220);

  // Rounding: DDR time is rounded up to whole cycles once per transfer:
  //   cycles = setup + ceil((latency_ns + B / bw_eff) * f_GHz)  (when above the SRAM time).
  // 333 MHz, B = 66048 (258 interleave blocks, 129 per channel): 100 + 66048/25.6 = 2680 ns
  // -> 2680 * 0.333 = 892.44 -> 893 cycles; SRAM 66048/256 = 258 cycles is hidden.
  auto slow = config();
  slow.clock.frequency_mhz = 333.0;
  slow.sram.port_bytes_per_cycle = 256;
  CHECK(run(program({contiguous_load(66048, 2), halt()}), slow).cycles == 1 + 32 + 893);

  // SRAM-bound: a 16 B/cycle port makes 65536 B take 4096 cycles > 2660.
  auto narrow = config();
  narrow.sram.port_bytes_per_cycle = 16;
  CHECK(run(program({contiguous_load(65536, 2), halt()}), narrow).cycles == 1 + 32 + 4096);

  // Ideal DDR: only setup and the SRAM port remain.
  auto ideal = config();
  ideal.ddr.model = npu::DdrModel::Ideal;
  CHECK(run(program({contiguous_load(65536, 2), halt()}), ideal).cycles == 1 + 32 + 1024);
}

TEST_CASE("misaligned DMA pays the extra burst, below min alignment the bounce copy", "[timing][dma]") {
  // Aligned 4096 B: 64 bursts, 32 per channel, 100 + 4096/25.6 = 260 ns -> 1 + 32 + 260.
  auto c = config();
  auto aligned = run(program({load(0, 0, 4096), halt()}), c);
  CHECK(aligned.cycles == 293);
  CHECK(aligned.ddr_bus_bytes == 4096);

  // ddr_addr 32: bursts = ceil((32 + 4096) / 64) = 65. Interleave blocks 0..16, the last
  // holding one burst, so channel 0 serves 8*4 + 1 = 33 bursts of 64 / 12.8 = 5 ns:
  // 165 + 100 = 265 ns -> exactly one burst (5 cycles) more than aligned.
  auto mid_burst = run(program({load(32, 0, 4096), halt()}), c);
  CHECK(mid_burst.cycles == 293 + 5);
  CHECK(mid_burst.ddr_bus_bytes == 65 * 64);
  CHECK(mid_burst.dma_channels[0].bounce_copies == 0);

  // ddr_addr 2 is below dma.min_alignment_bytes = 4: same 65 bursts (+5) plus the bounce
  // copy 16 + 4096 / 16 = 272 cycles.
  auto bounced = run(program({load(2, 0, 4096), halt()}), c);
  CHECK(bounced.cycles == 293 + 5 + 272);
  CHECK(bounced.dma_channels[0].bounce_copies == 1);

  // A misaligned stride counts too: 2 runs of 2048 B, the second at 2048 + 2 = 2050.
  auto strided = load(0, 0, 2048);
  strided.set(Field::count1, 2);
  strided.set(Field::ddr_stride1, 2050);
  strided.set(Field::sram_stride1, 2048);
  auto s = run(program({strided, halt()}), c);
  CHECK(s.dma_channels[0].bounce_copies == 1);
}

TEST_CASE("strided runs at any DDR offset: whole bursts per run, and no more bytes than the destination holds",
          "[timing][dma]") {
  // 2 x 4 runs of 40 B, ddr_addr 8, ddr_stride1 100, ddr_stride2 1000 (64 B bursts). Runs start
  // at 8, 108, 208, 308 (mod 64: 8, 44, 16, 52 -> 1, 2, 1, 2 bursts) and 1008, 1108, 1208, 1308
  // (mod 64: 48, 20, 56, 28 -> 2, 1, 2, 2): 13 bursts. The DDR model counts them piece by
  // piece; the channel's attribution (costmodel/program_plan.cpp) counts runs per offset: both 832.
  auto strided = load(8, 0, 40);
  strided.set(Field::count1, 4);
  strided.set(Field::ddr_stride1, 100);
  strided.set(Field::sram_stride1, 40);
  strided.set(Field::count2, 2);
  strided.set(Field::ddr_stride2, 1000);
  strided.set(Field::sram_stride2, 160);
  const auto r = run(program({strided, halt()}), config());
  CHECK(r.ddr_bus_bytes == 13 * 64);
  CHECK(r.dma_channels[0].bus_bytes == 13 * 64);

  // 1023 x 1023 runs of 64 B onto the same scratchpad bytes: 67 MB moved into a smaller
  // scratchpad can only overwrite itself, and would take minutes to simulate.
  auto repeated = load(0, 0, 64);
  repeated.set(Field::count1, 1023);
  repeated.set(Field::ddr_stride1, 64);
  repeated.set(Field::count2, 1023);
  CHECK_THROWS_WITH(run(program({repeated, halt()}), config()),
                    Catch::Contains("moves 66977856 bytes (len0 64 x count1 1023 x count2 1023 x count3 1), "
                                    "more than the scratchpad it writes holds"));
}

TEST_CASE("double buffering overlaps loads with compute", "[timing][tokens]") {
  // 8 tiles, two SRAM buffers. Load i (8192 B, DMA channel 0) pushes a token to compute;
  // gemm i pops it and pushes a token back to load ("buffer free"); load i >= 2 pops that.
  //   load   = 32 + (100 + 8192/25.6 = 420) = 452 cycles
  //   gemm   = m=454, n=16, k=16 WS: 1 fold * (2*16 + 16 + 454 - 2) = 500 cycles
  // Program order L0 G0 L1 G1 ... L7 G7 halt (ready cycles 1, 2, 3, ...).
  //   L0 [1, 453]; G0 [453, 953]; L1 waits for channel 0: [453, 905]; G1 [953, 1453];
  //   L2 waits for G0's token: [953, 1405]; G2 [1453, 1953]; ... G_i = [453+500i, 953+500i]
  //   (L_i ends at 1405 + 500(i-2) < 1453 + 500(i-2), so compute never waits after G0).
  //   Total = 953 + 500*7 = 4453 = 1 + 452 + 8*500, versus 8*(452+500) = 7616 serial.
  std::vector<Instruction> code;
  for (int i = 0; i < 8; ++i) {
    const std::uint64_t buf = (i % 2) * 8192;
    code.push_back(load(0x10000 + i * 8192, buf, 8192, 0, i >= 2 ? kCompute : 0, kCompute));
    code.push_back(gemm(buf, 16384, 32768 + (i % 2) * 32768, 454, 16, 16, false, false, kLoad, kLoad));
  }
  code.push_back(halt());
  auto r = run(program(code), config());
  CHECK(r.cycles == 4453);
  CHECK(static_cast<double>(r.cycles) < 0.6 * 7616);
  CHECK(r.compute.busy_cycles == 8 * 500);
  CHECK(r.load.busy_cycles == 452 + 452 + 6 * 452);
  // Stalls: G0 waits 453 - 2 = 451; loads 2..7 each wait 500 for their buffer.
  CHECK(r.compute.stall_cycles == 451);
  CHECK(r.load.stall_cycles == 6 * 500);
  CHECK(r.instructions[15].start_cycle == 453 + 500 * 7);  // G7
  CHECK(r.instructions[14].start_cycle == 953 + 500 * 5);  // L7 waits for G5
  CHECK(r.instructions[4].start_cycle == 953);               // L2
}

TEST_CASE("barrier waits for every unit and queue depth throttles dispatch", "[timing]") {
  // load 4096 B ready at 1 ends at 293; barrier (instruction 1, dispatched at 2) waits for
  // it; the gemm after it is dispatched at 293 + 1 and runs 660 cycles.
  auto c = config();
  auto r = run(program({load(0, 0, 4096), make(Opcode::Barrier), gemm(0, 8192, 16384, 64, 32, 48), halt()}), c);
  CHECK(r.instructions[1].end_cycle == 293);
  CHECK(r.instructions[2].start_cycle == 294);
  CHECK(r.cycles == 294 + 660);

  // dispatch_cycles = 100 and 3 tiny vector ops (4 + ceil(16/16) = 5 cycles each): each is
  // ready at 100, 200, 300; halt at 400.
  c.controller.dispatch_cycles = 100;
  auto v = make(Opcode::Add);
  v.set(Field::count, 16);
  v.set(Field::a_addr, 0);
  v.set(Field::b_addr, 64);
  v.set(Field::dst_addr, 128);
  auto rv = run(program({v, v, v, halt()}), c);
  CHECK(rv.instructions[2].start_cycle == 300);
  CHECK(rv.cycles == 400);

  // queue_depth 1, dispatch 1: gemm 0 taken at 1; gemm 1 queued at 2; gemm 2 cannot be
  // queued until gemm 1 leaves the queue at 661; dispatch then continues at 661.
  c = config();
  c.controller.queue_depth = 1;
  auto g = gemm(0, 8192, 16384, 64, 32, 48);
  auto rq = run(program({g, g, g, load(0, 0, 64), halt()}), c);
  // load (instr 3) can only be dispatched after gemm 2 is queued at 661: ready at 662.
  CHECK(rq.instructions[3].start_cycle == 662);
  CHECK(rq.cycles == 1 + 3 * 660);
}

TEST_CASE("concurrent DMA channels share DDR bandwidth", "[timing][dma][ddr]") {
  // Two 4096 B loads on DMA channels 0 and 1, ready at cycles 1 and 2.
  //  first: requests at 1 + 32 = 33 ns; each DDR channel serves 32 bursts * 5 ns = [33, 193];
  //         done 193 + 100 = 293.
  //  second: requests at 2 + 32 = 34 ns but both DDR channels are busy until 193:
  //         [193, 353] + 100 = 453 ns -> DDR time 453 - 34 = 419; done at 2 + 32 + 419 = 453.
  auto r = run(program({load(0, 0, 4096, 0), load(8192, 4096, 4096, 1), halt()}), config());
  CHECK(r.instructions[0].end_cycle == 293);
  CHECK(r.instructions[1].start_cycle == 2);
  CHECK(r.instructions[1].end_cycle == 453);
  CHECK(r.cycles == 453);
  // Busy = union over the two channels: [1, 453).
  CHECK(r.load.busy_cycles == 452);
  CHECK(r.dma_channels[0].busy_cycles == 292);
  CHECK(r.dma_channels[1].busy_cycles == 451);
}

TEST_CASE("loads on two channels retire in issue order: a token from the later one waits for both", "[timing][dma]") {
  // 16384 B on channel 0 ready at 1: requests at 33, four 4096 B chunks of 64 bursts over 2 DDR
  // channels (160 ns each). 64 B on channel 1 ready at 2, pushing a token to compute: its one
  // burst gets the bus after the first chunk, [193, 198] + 100 -> ends at 298, and costs the
  // big load those 5 ns: 33 + 4 * 160 + 5 + 100 = 778. The small load retires only after the
  // one issued ahead of it, so the gemm that pops its token starts at 778, not at 298.
  auto r = run(program({load(0, 0, 16384, 0), load(32768, 32768, 64, 1, 0, kCompute),
                        gemm(0, 8192, 16384, 16, 16, 16, false, false, kLoad), halt()}),
               config());
  CHECK(r.instructions[0].end_cycle == 778);
  CHECK(r.instructions[1].end_cycle == 298);
  CHECK(r.instructions[2].start_cycle == 778);
  // Alone, the small load's token would have let the gemm start at its end.
  auto alone = run(program({load(32768, 32768, 64, 1, 0, kCompute), gemm(0, 8192, 16384, 16, 16, 16, false, false, kLoad),
                            halt()}),
                   config());
  CHECK(alone.instructions[1].start_cycle == alone.instructions[0].end_cycle);
}

TEST_CASE("banked DDR pays row misses once per row and bank", "[timing][ddr]") {
  // 4096 B from address 0, row_bytes 2048, 8 banks, 2 channels, 256 B interleave. Rows are per
  // channel: channel c holds the 256 B blocks c, c+2, ... packed as its local address
  // L = (addr / 512) * 256 + addr % 256, bank = (L / 2048) % 8, row = L / 16384. Each channel
  // sees its 2 KiB as row 0 of bank 0: one miss of 30 ns, opened from the request (33) on, so
  // its bursts run [63, 223]; + 100 latency -> ends 1 + 32 + 30 + 160 + 100 = 323.
  // The same load again (channel 0, starts at 323) finds both rows open: 160 + 100 = 260,
  // ends at 323 + 32 + 260 = 615.
  // (Before rows were per channel, row = addr / 2048 counted rows 0 and 1 on each channel:
  // 4 misses, ends 353 and 645.)
  auto c = config();
  c.ddr.model = npu::DdrModel::Banked;
  auto r = run(program({load(0, 0, 4096), load(0, 0, 4096), halt()}), c);
  CHECK(r.instructions[0].end_cycle == 323);
  CHECK(r.instructions[1].end_cycle == 615);
  CHECK(r.ddr_row_misses == 2);
  CHECK(r.ddr.row_hits == 2 * 64 - 2);
  // Row 1 of bank 0 starts at L = 16384, global address 16384 / 256 * 512 = 32768: 256 B there
  // after 256 B at 0 (on each channel) conflicts with the open row 0.
  auto r2 = run(program({load(0, 0, 256 * 2), load(32768, 0, 256 * 2), halt()}), c);
  CHECK(r2.ddr_row_misses == 4);
}

TEST_CASE("conv timing is the per-group gemm times groups", "[timing]") {
  auto conv = [](int h, int w, int c, int o, int groups) {
    auto i = conv3x3_same(0, 0x10000, 0x20000, h, w, c, o);
    i.set(Field::groups, groups);
    return i;
  };
  // 8x8x32 -> 64, 3x3, pad 1: m = 64, k = 3*3*32 = 288, n = 64.
  //  WS: ceil(288/16) * ceil(64/16) = 72 folds * (32 + 16 + 64 - 2 = 110) = 7920.
  auto r = run(program({conv(8, 8, 32, 64, 1), halt()}), config());
  CHECK(r.compute.busy_cycles == 7920);
  CHECK(r.cycles == 1 + 7920);
  CHECK(r.macs == 64ull * 64 * 288);
  // Depthwise 12x10x16: per group m = 120, k = 9, n = 1: 1 fold * (32 + 16 + 120 - 2 = 166),
  // times 16 groups = 2656.
  CHECK(run(program({conv(12, 10, 16, 16, 16), halt()}), config()).compute.busy_cycles == 2656);
  // OS, same standard conv: ceil(64/16) * ceil(64/16) = 16 folds * (288 + 16 + 16 - 2 = 318) = 5088.
  auto os = config();
  os.mac_array.dataflow = npu::Dataflow::OutputStationary;
  CHECK(run(program({conv(8, 8, 32, 64, 1), halt()}), os).compute.busy_cycles == 5088);

  // mac_array.instruction_overhead_cycles is paid once per instruction, not per group: the
  // standard conv 7920 + 500, the 16-group depthwise 2656 + 500 (not + 16 x 500).
  auto slow = config();
  slow.mac_array.instruction_overhead_cycles = 500;
  auto rs = run(program({conv(8, 8, 32, 64, 1), halt()}), slow);
  CHECK(rs.compute.busy_cycles == 7920 + 500);
  CHECK(rs.cycles == 1 + 7920 + 500);
  CHECK(run(program({conv(12, 10, 16, 16, 16), halt()}), slow).compute.busy_cycles == 2656 + 500);
}

TEST_CASE("gemm instructions pay mac_array.instruction_overhead_cycles each", "[timing]") {
  // The ten WS gemms of the stream above (660 cycles each) with 40 cycles of overhead:
  // back to back, halt at 1 + 10 * (40 + 660); the default 0 leaves 1 + 10 * 660.
  auto c = config();
  c.mac_array.instruction_overhead_cycles = 40;
  std::vector<Instruction> code;
  for (int i = 0; i < 10; ++i) code.push_back(gemm(0, 8192, 16384, 64, 32, 48, false));
  code.push_back(halt());
  auto r = run(program(code), c);
  CHECK(r.cycles == 1 + 10 * 700);
  CHECK(r.compute.busy_cycles == 10 * 700);
  CHECK(npu::MacArrayConfig{}.instruction_overhead_cycles == 0);
}

TEST_CASE("swap exchanges m and n in the formula; depthwise puts channels on the columns", "[timing]") {
  // Batch-1 gemm m=1, n=512, k=256 on 16x16 WS:
  //  as is:   ceil(256/16) * ceil(512/16) = 512 folds * (32 + 16 + 1 - 2 = 47)  = 24064
  //  swapped: ceil(256/16) * ceil(1/16)   =  16 folds * (32 + 16 + 512 - 2 = 558) = 8928
  auto g = gemm(0, 0x1000, 0x40000, 1, 512, 256);
  CHECK(run(program({g, halt()}), config()).compute.busy_cycles == 24064);
  g.set(Field::swap, 1);
  CHECK(run(program({g, halt()}), config()).compute.busy_cycles == 8928);
  // Depthwise 12x10x16, 3x3, pad 1: m = 120. Per group (above): 16 * 166 = 2656. Depthwise
  // mode: one gemm m = 120, k = 9, n = 16: 1 fold * (32 + 16 + 120 - 2) = 166.
  auto dw = make(Opcode::Conv);
  dw.set(Field::in_addr, 0);
  dw.set(Field::w_addr, 0x10000);
  dw.set(Field::out_addr, 0x20000);
  dw.set(Field::in_h, 12);
  dw.set(Field::in_w, 10);
  dw.set(Field::in_c, 16);
  dw.set(Field::out_c, 16);
  dw.set(Field::kernel_h, 3);
  dw.set(Field::kernel_w, 3);
  dw.set(Field::pad_top, 1);
  dw.set(Field::pad_left, 1);
  dw.set(Field::pad_bottom, 1);
  dw.set(Field::pad_right, 1);
  dw.set(Field::groups, 16);
  dw.set(Field::depthwise, 1);
  CHECK(run(program({dw, halt()}), config()).compute.busy_cycles == 166);
  // Swapped too: ceil(9/16) * ceil(120/16) = 8 folds * (32 + 16 + 16 - 2 = 62) = 496.
  dw.set(Field::swap, 1);
  CHECK(run(program({dw, halt()}), config()).compute.busy_cycles == 496);
  // mac_array.depthwise_columns 4: the 16 channels take 4 passes of 4 columns, timed as 64
  // channels. As is: ceil(9/16) * ceil(64/16) = 4 folds * 166 = 664; swapped: 8 folds *
  // (32 + 16 + 64 - 2 = 110) = 880. 16 or more (or 0) is every column: 166 again.
  auto narrow = config();
  narrow.mac_array.depthwise_columns = 4;
  CHECK(run(program({dw, halt()}), narrow).compute.busy_cycles == 880);
  dw.set(Field::swap, 0);
  CHECK(run(program({dw, halt()}), narrow).compute.busy_cycles == 664);
  narrow.mac_array.depthwise_columns = 16;
  CHECK(run(program({dw, halt()}), narrow).compute.busy_cycles == 166);
  CHECK(npu::MacArrayConfig{}.depthwise_columns == 0);
}
