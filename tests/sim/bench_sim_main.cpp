// bench_sim: simulation speed on a synthetic stream of tiles (not a test).
//   bench_sim [tiles=50000] [timing|functional|both|traced]  (traced: timing-only with record_trace and energy)  -> 4 instructions per tile (load, gemm, requant, store) with
//   double-buffering tokens; prints simulated instructions/s and cycles/s, timing-only and
//   functional.
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <systemc>

#include "hwconfig/hardware_config.h"
#include "isa/instruction.h"
#include "isa/program.h"
#include "sim/simulator.h"

using npu::isa::Field;
using npu::isa::Instruction;
using npu::isa::Opcode;

namespace {

Instruction make(Opcode op, std::uint8_t pop, std::uint8_t push) {
  Instruction i = npu::isa::make_instruction(op);
  i.pop = pop;
  i.push = push;
  return i;
}

npu::isa::Program stream(int tiles) {
  constexpr std::uint8_t L = 1, C = 2, V = 4, S = 8;
  npu::isa::Program p;
  p.code.reserve(static_cast<std::size_t>(tiles) * 4 + 1);
  for (int i = 0; i < tiles; ++i) {
    const std::int64_t buf = (i % 2) * 4096;
    auto l = make(Opcode::Load, i >= 2 ? C : 0, C);
    l.set(Field::channel, i % 2);
    l.set(Field::ddr_addr, 0x100000 + (i % 64) * 4096);
    l.set(Field::sram_addr, buf);
    l.set(Field::len0, 2048);
    l.set(Field::count1, 2);
    l.set(Field::ddr_stride1, 2048);
    l.set(Field::sram_stride1, 2048);
    p.code.push_back(l);
    auto g = make(Opcode::Gemm, L, L | V);
    g.set(Field::a_addr, buf);
    g.set(Field::b_addr, 16384);
    g.set(Field::c_addr, 32768 + (i % 2) * 8192);
    g.set(Field::m, 32);
    g.set(Field::n, 32);
    g.set(Field::k, 64);
    p.code.push_back(g);
    auto r = make(Opcode::Requantize, static_cast<std::uint8_t>(C | (i >= 2 ? S : 0)), S);
    r.set(Field::src_addr, 32768 + (i % 2) * 8192);
    r.set(Field::param_addr, 24576);
    r.set(Field::dst_addr, 65536 + (i % 2) * 1024);
    r.set(Field::count, 1024);
    r.set(Field::channels, 32);
    r.set(Field::clamp_min, -128);
    r.set(Field::clamp_max, 127);
    p.code.push_back(r);
    auto s = make(Opcode::Store, V, V);
    s.set(Field::channel, 2 + i % 2);
    s.set(Field::ddr_addr, 0x800000 + (i % 64) * 1024);
    s.set(Field::sram_addr, 65536 + (i % 2) * 1024);
    s.set(Field::len0, 1024);
    p.code.push_back(s);
  }
  p.code.push_back(make(Opcode::Halt, 0, 0));
  return p;
}

void measure(const npu::isa::Program& p, const npu::HardwareConfig& c, bool timing_only, bool traced = false) {
  npu::sim::DdrImage ddr;
  npu::sim::SimOptions o;
  o.timing_only = timing_only;
  o.record_trace = traced;
  // Requant parameters: multiplier 1 << 30, shift 38 (a plausible scale).
  std::vector<std::int32_t> params;
  for (int ch = 0; ch < 32; ++ch) params.insert(params.end(), {1 << 30, 38});
  ddr.write(0x80000, params.data(), params.size() * 4);
  // CPU time as well as wall time: on a shared machine wall time mostly measures the others.
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t c0 = std::clock();
  const auto r = npu::sim::simulate(p, c, ddr, o);
  const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%-12s %7zu instr %10llu cycles | wall %.3f s %9.0f instr/s %11.0f cycles/s | cpu %.3f s %9.0f instr/s\n",
              traced ? "traced" : timing_only ? "timing-only" : "functional", p.code.size(), static_cast<unsigned long long>(r.cycles), s,
              static_cast<double>(p.code.size()) / s, static_cast<double>(r.cycles) / s, cpu,
              static_cast<double>(p.code.size()) / cpu);
}

}  // namespace

int sc_main(int argc, char** argv) {
  const int tiles = argc > 1 ? std::atoi(argv[1]) : 50000;
  npu::HardwareConfig c;
  c.name = "bench";
  c.dma.channels = 4;
  const std::string mode = argc > 2 ? argv[2] : "both";
  const auto p = stream(tiles);
  if (mode == "traced") {
    c.energy = npu::EnergyConfig{};
    measure(p, c, true, true);
    measure(p, c, true, true);
    return 0;
  }
  if (mode != "functional") {
    measure(p, c, true);  // the first run also warms up allocators and page tables
    measure(p, c, true);
  }
  if (mode != "timing") measure(p, c, false);
  return 0;
}
