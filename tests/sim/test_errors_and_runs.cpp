// Errors are one-line SimErrors naming the instruction; many runs in one process agree;
// timing-only and functional runs give identical timing.
#include <catch2/catch.hpp>
#include <cstring>

#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/trace_writer.h"
#include "sim/vector_unit.h"
#include "tests/sim/mixed_program.h"
#include "tests/sim/sim_test_util.h"

using namespace simtest;
using Catch::Matchers::Contains;
using npu::sim::SimError;

namespace {

Instruction conv_at(std::uint64_t in_addr) {
  auto i = make(Opcode::Conv);
  i.set(Field::in_addr, static_cast<std::int64_t>(in_addr));
  i.set(Field::w_addr, 0);
  i.set(Field::out_addr, 0x1000);
  i.set(Field::in_h, 48);
  i.set(Field::in_w, 48);
  i.set(Field::in_c, 16);
  i.set(Field::out_c, 16);
  i.set(Field::kernel_h, 3);
  i.set(Field::kernel_w, 3);
  i.set(Field::pad_top, 1);
  i.set(Field::pad_left, 1);
  i.set(Field::pad_bottom, 1);
  i.set(Field::pad_right, 1);
  return i;
}

}  // namespace

TEST_CASE("SRAM overflow names the instruction, operand, range and capacity", "[errors]") {
  // in = 48*48*16 = 36864 bytes from 0x100000 - 0x40 = 1048512; 1048512 + 36864 > 1048576.
  const std::string e = error_of(program({load(0, 0, 64), conv_at(0x100000 - 0x40)}));
  CHECK(e == "instruction #1 (conv): in_addr 0xfffc0 + 36864 bytes exceeds scratchpad capacity 1048576");
  CHECK(error_of(program({load(0, 0xff000, 4096)})) == "no error");  // ends exactly at the capacity
  CHECK(error_of(program({load(0, 0xff040, 4096)})) ==
        "instruction #0 (load): sram_addr 0xff040 + 4096 bytes exceeds scratchpad capacity 1048576");
  // A strided transfer is checked over its whole span: 3 runs of 64 B, 0x80000 apart.
  auto strided = load(0, 0x40000, 64);
  strided.set(Field::count1, 3);
  strided.set(Field::sram_stride1, 0x80000);
  CHECK(error_of(program({strided})) ==
        "instruction #0 (load): sram_addr 0x40000 + 1048640 bytes exceeds scratchpad capacity 1048576");
  CHECK(error_of(program({load(0xfffff000, 0, 8192)})) ==
        "instruction #0 (load): ddr_addr 0xfffff000 + 8192 bytes exceeds DDR capacity 4294967296");
}

TEST_CASE("swap and depthwise need a flexible array; depthwise needs one channel per group", "[errors]") {
  auto g = gemm(0, 0x1000, 0x2000, 4, 4, 4);
  g.set(Field::swap, 1);
  auto fixed = config();
  fixed.mac_array.mapping = npu::MacArrayMapping::Fixed;
  CHECK_THROWS_WITH(run(program({g, halt()}), fixed),
                    Catch::Contains("instruction #0 (gemm): swap = 1 needs mac_array.mapping: flexible"));
  auto c = make(Opcode::Conv);
  for (auto [f, v] : {std::pair{Field::in_h, 4}, {Field::in_w, 4}, {Field::in_c, 8}, {Field::out_c, 8}, {Field::groups, 4},
                      {Field::w_addr, 0x1000}, {Field::out_addr, 0x2000}, {Field::depthwise, 1}})
    c.set(f, v);
  CHECK_THROWS_WITH(run(program({c, halt()}), config()),
                    Catch::Contains("instruction #0 (conv): depthwise = 1 needs groups = in_c = out_c (got groups 4, in_c 8, out_c 8)"));
}

TEST_CASE("misaligned SRAM address is an error", "[errors]") {
  CHECK(error_of(program({gemm(0x21, 0, 4096, 4, 4, 4)})) ==
        "instruction #0 (gemm): a_addr 0x21 is not a multiple of sram.alignment_bytes (64)");
  CHECK(error_of(program({load(0, 32, 64)})) ==
        "instruction #0 (load): sram_addr 0x20 is not a multiple of sram.alignment_bytes (64)");
  CHECK_THAT(error_of(program({make(Opcode::Load)})), Contains("len0 = 0 must be >= 1"));
}

TEST_CASE("deadlock: popping a token nobody pushes", "[errors]") {
  // gemm #1 pops a load token, but load #0 pushes to vector instead. The last event is
  // the load finishing at 1 + 32 + (100 + 64 / 12.8) = 138.
  const std::string e = error_of(program({load(0, 0, 64, 0, 0, kVector), gemm(0, 64, 128, 4, 4, 4, false, false, kLoad), halt()}));
  CHECK(e == "deadlock at cycle 138: compute unit waits for a token from load at instruction #1 (gemm); "
             "controller waits at instruction #2 (halt) for 1 unfinished instructions");
  CHECK(e.find('\n') == std::string::npos);

  // The controller blocked on a full queue is reported too (queue depth 1).
  auto c = config();
  c.controller.queue_depth = 1;
  auto g = gemm(0, 64, 128, 4, 4, 4, false, false, kStore);
  const std::string e2 = error_of(program({g, g, g, halt()}), c);
  CHECK_THAT(e2, Contains("compute unit waits for a token from store at instruction #0 (gemm)"));
  CHECK_THAT(e2, Contains("controller cannot dispatch instruction #2 (gemm): the compute queue is full"));
}

TEST_CASE("an error inside a functional kernel names the instruction", "[errors]") {
  npu::sim::DdrImage ddr;
  std::vector<std::int32_t> params = {1, 70};  // shift 70 is outside 0..62
  ddr.write(0x1000, params.data(), 8);
  auto rq = make(Opcode::Requantize, kLoad);
  rq.set(Field::src_addr, 0);
  rq.set(Field::param_addr, 64);
  rq.set(Field::dst_addr, 128);
  rq.set(Field::count, 4);
  rq.set(Field::channels, 1);
  rq.set(Field::clamp_min, -128);
  rq.set(Field::clamp_max, 127);
  auto p = program({load(0x1000, 64, 8, 0, 0, kVector), rq, halt()});
  try {
    npu::sim::simulate(p, config(), ddr, {});
    FAIL("expected SimError");
  } catch (const SimError& e) {
    CHECK(std::string(e.what()) == "instruction #1 (requant): requant parameter of channel 0 has shift 70 (must be 0..62)");
  }
  // The kernel and the process tree survive the failure: the next run works.
  CHECK(run(program({load(0, 0, 64), halt()}), config()).cycles == 1 + 32 + 105);
}

// Found by the sim fuzz target: an output that overlapped the {multiplier, shift} pairs
// rewrote the shifts while the loop still read them (a shift of -67372038: undefined
// behaviour). The plan refuses such a program (the ISA table's operand rules), and the kernel
// reads the parameters once, before any output byte is written, whatever reaches it.
TEST_CASE("a requant whose output overlaps its parameters is refused, and the kernel reads them first", "[errors]") {
  auto rq = make(Opcode::Requantize, kLoad, kStore);
  rq.set(Field::src_addr, 0);
  rq.set(Field::param_addr, 64);
  rq.set(Field::dst_addr, 64);  // the outputs land on the parameters
  rq.set(Field::count, 8);
  rq.set(Field::channels, 1);
  rq.set(Field::clamp_min, -128);
  rq.set(Field::clamp_max, 127);
  auto p = program({load(0x1000, 0, 72, 0, 0, kVector), rq, store(0x2000, 64, 8, 0, kVector), halt()});
  CHECK(error_of(p) == "instruction #1 (requant): dst_addr [0x40, 0x48) overlaps param_addr [0x40, 0x48)");

  std::vector<std::uint8_t> sram(128, 0);
  const std::int32_t x[8] = {1000, -1000, 260, 7, 1, 2, 3, 4};
  const std::int32_t params[2] = {1 << 10, 12};  // y = x / 4, rounded half up
  std::memcpy(sram.data(), x, sizeof x);
  std::memcpy(sram.data() + 64, params, sizeof params);
  npu::sim::execute_vector(rq, sram.data());
  // (x * 2^10 + 2^11) >> 12, clamped. Reading the parameters as the loop went, y[1] = -128
  // rewrote the multiplier to 32895 (y[2] came out 127) and y[5] = 1 the shift to 268.
  const std::int8_t expected[8] = {127, -128, 65, 2, 0, 1, 1, 1};
  for (int i = 0; i < 8; ++i) CHECK(static_cast<int>(static_cast<std::int8_t>(sram[64 + i])) == expected[i]);
}

TEST_CASE("a DDR model outside the enum and bad config are SimErrors", "[errors]") {
  // Names are checked by the loader; a value cast from an integer is caught by validate().
  auto c = config();
  c.ddr.model = static_cast<npu::DdrModel>(9);
  CHECK_THAT(error_of(program({halt()}), c),
             Contains("ddr.model: must be one of simple, banked, dram, ideal (got 9)"));
}

TEST_CASE("timing-only and functional runs give identical timing", "[runs]") {
  for (auto model : {npu::DdrModel::Simple, npu::DdrModel::Banked, npu::DdrModel::Dram, npu::DdrModel::Ideal})
    for (auto df : {npu::Dataflow::WeightStationary, npu::Dataflow::OutputStationary, npu::Dataflow::InputStationary}) {
      auto c = config();
      c.ddr.model = model;
      if (c.ddr.model == npu::DdrModel::Dram) {  // three LPDDR4X-4266 channels: 3 x 8.532 GB/s, 32 B bursts
        c.ddr.channels = 3;
        c.ddr.bandwidth_gbps = 25.596;
        c.ddr.burst_bytes = 32;
      }
      // Interleaved scratchpad banks: every access meets every other one (bank conflicts).
      if (df == npu::Dataflow::OutputStationary) c.sram.bank_mapping = npu::SramBankMapping::Interleaved;
      c.mac_array.dataflow = df;
      c.dma.channels = 3;
      const Program p = mixed_program(12);
      npu::sim::DdrImage d1, d2;
      npu::sim::SimOptions timing, functional;
      timing.timing_only = true;
      auto a = npu::sim::simulate(p, c, d1, timing);
      auto b = npu::sim::simulate(p, c, d2, functional);
      CHECK(same_timing(a, b));
      CHECK(same_counters(a, b));
      CHECK(a.cycles > 0);
    }
}

TEST_CASE("200 simulate() calls in one process give identical results", "[runs]") {
  auto c = config();
  c.ddr.model = npu::DdrModel::Banked;
  const Program p = mixed_program(6);
  npu::sim::DdrImage first_ddr;
  const auto first = npu::sim::simulate(p, c, first_ddr, {});
  for (int i = 0; i < 200; ++i) {
    npu::sim::DdrImage ddr;
    npu::sim::SimOptions o;
    o.timing_only = i % 2 == 0;
    o.record_trace = i % 3 == 0;
    const auto r = npu::sim::simulate(p, c, ddr, o);
    REQUIRE(same_timing(first, r));
    REQUIRE(r.ddr_row_misses == first.ddr_row_misses);
  }
}

TEST_CASE("trace JSON parses and a unit's event durations sum to its busy cycles", "[trace]") {
  auto c = config();
  c.clock.frequency_mhz = 1200.0;  // fractional microseconds
  auto r = run(mixed_program(8), c, true, true);
  std::ostringstream out;
  npu::sim::write_chrome_trace(r, c, out);
  const auto j = nlohmann::json::parse(out.str());
  REQUIRE(j.contains("traceEvents"));
  std::map<int, std::string> names;
  std::map<std::string, double> dur_us;
  std::map<std::string, std::uint64_t> dur_cycles;
  int dma_events = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") names[e["tid"].get<int>()] = e["args"]["name"];
  }
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] != "X") continue;
    const std::string track = names.at(e["tid"].get<int>());
    dur_us[track] += e["dur"].get<double>();
    dur_cycles[track] += e["args"]["cycles"].get<std::uint64_t>();
    if (track.rfind("dma", 0) == 0) {
      ++dma_events;
      CHECK(e["args"].contains("bytes"));
      CHECK(e["args"].contains("ddr_addr"));
      CHECK(e["args"].contains("sram_addr"));
    }
    if (track == "compute") CHECK(e["args"].contains("m"));
  }
  CHECK(dma_events == 16);
  // Compute and vector instructions never overlap on their unit.
  CHECK(dur_cycles["compute"] == r.compute.busy_cycles);
  CHECK(dur_cycles["vector"] == r.vector.busy_cycles);
  CHECK(dur_us["compute"] == Approx(r.compute.busy_cycles / 1200.0));
  // Sum over the trace events equals the sum over per-instruction timings, too.
  std::uint64_t from_timings = 0;
  for (std::size_t i = 1; i < r.instructions.size(); i += 4)
    from_timings += r.instructions[i].end_cycle - r.instructions[i].start_cycle;
  CHECK(from_timings == r.compute.busy_cycles);
}
