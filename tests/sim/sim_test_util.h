// Builders for sim tests: programs are made in C++ (no assembler) and configs as structs
// (no YAML), so these tests depend only on isa/ headers and sim/.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "hwconfig/hardware_config.h"
#include "isa/instruction.h"
#include "isa/program.h"
#include "sim/simulator.h"

namespace simtest {

using npu::isa::Field;
using npu::isa::Instruction;
using npu::isa::Opcode;
using npu::isa::Program;

// The struct defaults, spelled out because the expected numbers in the tests use them:
// 1000 MHz (1 cycle = 1 ns); DDR simple 25.6 GB/s, 100 ns, 2 channels, 64 B bursts, 256 B
// interleave; SRAM 1 MiB, 64 B/cycle port, 64 B alignment; DMA 2 channels, setup 32,
// min alignment 4, bounce 16 + bytes/16; MAC 16x16 WS, fp16 x2; vector 16 lanes, latency 4;
// controller queue depth 8, dispatch 1 cycle.
inline npu::HardwareConfig config() {
  npu::HardwareConfig c;
  c.name = "test";
  c.clock.frequency_mhz = 1000.0;
  c.ddr.model = npu::DdrModel::Simple;
  c.ddr.bandwidth_gbps = 25.6;
  c.ddr.latency_ns = 100.0;
  c.ddr.channels = 2;
  c.ddr.burst_bytes = 64;
  c.ddr.interleave_bytes = 256;
  c.ddr.other_agents_share = 0.0;
  c.sram.capacity_bytes = 1 << 20;
  c.sram.port_bytes_per_cycle = 64;
  c.sram.alignment_bytes = 64;
  c.dma.channels = 2;
  c.dma.setup_cycles = 32;
  c.dma.min_alignment_bytes = 4;
  c.dma.bounce_setup_cycles = 16;
  c.dma.bounce_bytes_per_cycle = 16;
  c.mac_array.rows = 16;
  c.mac_array.cols = 16;
  c.mac_array.dataflow = npu::Dataflow::WeightStationary;
  c.mac_array.fp16_cycles_per_op = 2;
  c.vector.lanes = 16;
  c.vector.latency_cycles = 4;
  c.controller.queue_depth = 8;
  c.controller.dispatch_cycles = 1;
  return c;
}

inline Instruction make(Opcode op, std::uint8_t pop = 0, std::uint8_t push = 0) {
  Instruction i = npu::isa::make_instruction(op);
  i.pop = pop;
  i.push = push;
  return i;
}

constexpr std::uint8_t kLoad = 1, kCompute = 2, kVector = 4, kStore = 8;  // token bits

inline Instruction dma(Opcode op, std::uint64_t ddr, std::uint64_t sram, std::uint64_t len0, int channel = 0,
                       std::uint8_t pop = 0, std::uint8_t push = 0) {
  Instruction i = make(op, pop, push);
  i.set(Field::ddr_addr, static_cast<std::int64_t>(ddr));
  i.set(Field::sram_addr, static_cast<std::int64_t>(sram));
  i.set(Field::len0, static_cast<std::int64_t>(len0));
  i.set(Field::channel, channel);
  return i;
}
inline Instruction load(std::uint64_t ddr, std::uint64_t sram, std::uint64_t len0, int channel = 0,
                        std::uint8_t pop = 0, std::uint8_t push = 0) {
  return dma(Opcode::Load, ddr, sram, len0, channel, pop, push);
}
inline Instruction store(std::uint64_t ddr, std::uint64_t sram, std::uint64_t len0, int channel = 0,
                         std::uint8_t pop = 0, std::uint8_t push = 0) {
  return dma(Opcode::Store, ddr, sram, len0, channel, pop, push);
}

inline Instruction gemm(std::uint64_t a, std::uint64_t b, std::uint64_t c, int m, int n, int k, bool fp16 = false,
                        bool accumulate = false, std::uint8_t pop = 0, std::uint8_t push = 0) {
  Instruction i = make(Opcode::Gemm, pop, push);
  i.set(Field::a_addr, static_cast<std::int64_t>(a));
  i.set(Field::b_addr, static_cast<std::int64_t>(b));
  i.set(Field::c_addr, static_cast<std::int64_t>(c));
  i.set(Field::m, m);
  i.set(Field::n, n);
  i.set(Field::k, k);
  i.set(Field::mac_dtype, fp16 ? 1 : 0);
  i.set(Field::accumulate, accumulate ? 1 : 0);
  return i;
}

// A 3x3 conv padded by 1 on every side (same-size output) of an h x w x c NHWC tile into o
// int32 accumulators.
inline Instruction conv3x3_same(std::uint64_t in, std::uint64_t w, std::uint64_t out, int h, int wd, int c, int o) {
  Instruction i = make(Opcode::Conv);
  i.set(Field::in_addr, static_cast<std::int64_t>(in));
  i.set(Field::w_addr, static_cast<std::int64_t>(w));
  i.set(Field::out_addr, static_cast<std::int64_t>(out));
  i.set(Field::in_h, h);
  i.set(Field::in_w, wd);
  i.set(Field::in_c, c);
  i.set(Field::out_c, o);
  for (Field f : {Field::kernel_h, Field::kernel_w}) i.set(f, 3);
  for (Field f : {Field::pad_top, Field::pad_left, Field::pad_bottom, Field::pad_right}) i.set(f, 1);
  return i;
}

inline Instruction halt() { return make(Opcode::Halt); }

inline Program program(std::vector<Instruction> code) {
  Program p;
  p.code = std::move(code);
  return p;
}

inline npu::sim::SimResult run(const Program& p, const npu::HardwareConfig& c, bool timing_only = true,
                               bool trace = false) {
  npu::sim::DdrImage ddr;
  npu::sim::SimOptions o;
  o.timing_only = timing_only;
  o.record_trace = trace;
  return npu::sim::simulate(p, c, ddr, o);
}

// The same on `ddr` (functional runs read and write it), every instruction recorded.
inline npu::sim::SimResult run(const Program& p, const npu::HardwareConfig& c, npu::sim::DdrImage& ddr, bool timing_only) {
  npu::sim::SimOptions o;
  o.timing_only = timing_only;
  return npu::sim::simulate(p, c, ddr, o);
}

// A program of several engines: engine e's stream starts at starts[e] of code.
inline Program streams(std::vector<Instruction> code, std::vector<std::uint32_t> starts) {
  Program p = program(std::move(code));
  p.engine_starts = std::move(starts);
  return p;
}

// The simulator's error for `p` on `c`, or "no error".
inline std::string error_of(const Program& p, const npu::HardwareConfig& c = config()) {
  try {
    run(p, c);
  } catch (const npu::sim::SimError& e) {
    return e.what();
  }
  return "no error";
}

// Deterministic pseudo-random bytes (xorshift), so functional tests need no fixtures.
struct Rng {
  std::uint64_t s = 0x9e3779b97f4a7c15ull;
  std::uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  std::int8_t i8() { return static_cast<std::int8_t>(next() & 0xff); }
  std::int32_t i32(std::int32_t lo, std::int32_t hi) {
    const std::int64_t span = static_cast<std::int64_t>(hi) - lo + 1;  // up to 2^32: no int overflow
    return static_cast<std::int32_t>(lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(span)));
  }
  float f(float lo, float hi) { return lo + (hi - lo) * static_cast<float>(next() % 1000000) / 1e6f; }
};

}  // namespace simtest
