// Functional-test harness: put operands into DDR, load them into the scratchpad, run
// instructions separated by barriers (so no token bookkeeping), store results back, and
// read them from DDR. DDR mirrors the scratchpad at kMirror + sram address. Every run is
// also repeated timing-only, and the cycle counts must agree.
#pragma once
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "tests/sim/sim_test_util.h"

namespace simtest {

class Harness {
 public:
  static constexpr std::uint64_t kMirror = 0x1000000;

  explicit Harness(npu::HardwareConfig c = config()) : config_(std::move(c)) {}

  template <typename T>
  void put(std::uint64_t sram, const std::vector<T>& v) {
    const std::uint64_t bytes = v.size() * sizeof(T);
    ddr_.write(kMirror + sram, v.data(), bytes);
    for (std::uint64_t off = 0; off < bytes; off += kChunk)
      loads_.push_back(load(kMirror + sram + off, sram + off, std::min(kChunk, bytes - off), static_cast<int>(loads_.size() % 2)));
  }
  void op(const Instruction& i) { ops_.push_back(i); }
  void get(std::uint64_t sram, std::uint64_t bytes) {
    for (std::uint64_t off = 0; off < bytes; off += kChunk)
      stores_.push_back(store(kMirror + sram + off, sram + off, std::min(kChunk, bytes - off)));
  }

  npu::sim::SimResult run() {
    std::vector<Instruction> code = loads_;
    for (const auto& i : ops_) {
      code.push_back(make(Opcode::Barrier));
      code.push_back(i);
    }
    code.push_back(make(Opcode::Barrier));
    code.insert(code.end(), stores_.begin(), stores_.end());
    code.push_back(halt());
    const Program p = program(code);
    npu::sim::SimOptions functional;
    auto r = npu::sim::simulate(p, config_, ddr_, functional);
    npu::sim::DdrImage scratch;
    npu::sim::SimOptions timing;
    timing.timing_only = true;
    CHECK(npu::sim::simulate(p, config_, scratch, timing).cycles == r.cycles);
    return r;
  }

  template <typename T>
  std::vector<T> read(std::uint64_t sram, std::size_t count) const {
    std::vector<T> v(count);
    ddr_.read(kMirror + sram, v.data(), count * sizeof(T));
    return v;
  }

 private:
  static constexpr std::uint64_t kChunk = 32768;
  npu::HardwareConfig config_;
  npu::sim::DdrImage ddr_;
  std::vector<Instruction> loads_, ops_, stores_;
};

template <typename T>
std::vector<T> random_vector(Rng& rng, std::size_t n, int lo, int hi) {
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(rng.i32(lo, hi));
  return v;
}

}  // namespace simtest
