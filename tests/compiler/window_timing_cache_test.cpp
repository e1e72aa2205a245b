// The layer interleave's window timing cache (compiler/backend/window_timing_cache.h): windows
// that differ only by where their DDR bytes lie, by whole multiples of the burst, or by the
// quantisation parameters the timing never reads, share one timing; anything the timing could
// see (an address off the burst grid, other overlaps, an invalid scale) is timed anew.
#include <catch2/catch.hpp>

#include <cstdio>
#include <stdexcept>

#include "compiler/backend/dependency_tokens.h"
#include "compiler/backend/instruction_stream.h"
#include "compiler/backend/layer_interleave.h"
#include "compiler/backend/window_timing_cache.h"
#include "costmodel/program_estimate.h"
#include "tests/compiler/test_helpers.h"

using namespace npu;
using namespace npu::compiler;
using isa::Field;
using isa::Opcode;

namespace {

constexpr std::uint64_t kTile = 16 << 10;

struct Placement {
  std::uint64_t weights = 1 << 20, input = 2 << 20, output = 3 << 20;
  float scale = 0.5f;
  std::int64_t zero_point = 3;
};

// A layer: its weights and input loaded, an int8 gemm on them drained, the result dequantised
// and quantised again with `scale`, and stored.
std::vector<isa::Instruction> layer(const Placement& p) {
  std::vector<isa::Instruction> code;
  emit_linear_load(code, p.weights, 0, 64 * 64, 64);
  emit_linear_load(code, p.input, 8192, kTile, 64);
  code.push_back(make(Opcode::Gemm, {{Field::a_addr, 8192}, {Field::b_addr, 0}, {Field::c_addr, 65536}, {Field::m, 256},
                                     {Field::n, 64}, {Field::k, 64}, {Field::a_zero_point, p.zero_point}}));
  code.push_back(make(Opcode::Drain, {{Field::dst_addr, 131072}, {Field::src_addr, 65536}, {Field::param_addr, 4096},
                                      {Field::requant_addr, 4352}, {Field::count, 256 * 64}, {Field::channels, 64},
                                      {Field::zero_point, p.zero_point}, {Field::clamp_min, -128}, {Field::clamp_max, 127}}));
  isa::Instruction dq = make(Opcode::Dequantize, {{Field::dtype, static_cast<std::int64_t>(isa::DType::Fp16)},
                                                  {Field::dst_addr, 196608}, {Field::src_addr, 131072}, {Field::count, kTile},
                                                  {Field::zero_point, p.zero_point}});
  dq.set_float(Field::scale, p.scale);
  code.push_back(dq);
  isa::Instruction q = make(Opcode::Quantize, {{Field::dtype, static_cast<std::int64_t>(isa::DType::Fp16)},
                                               {Field::dst_addr, 131072}, {Field::src_addr, 196608}, {Field::count, kTile},
                                               {Field::zero_point, p.zero_point}});
  q.set_float(Field::scale, p.scale);
  code.push_back(q);
  emit_linear_dma(code, Opcode::Store, p.output, 131072, kTile, 64);
  return code;
}

// The key of `code` as one window in its own order.
std::string key_of(const WindowTimingCache& cache, const std::vector<isa::Instruction>& code) {
  std::vector<cost::Footprint> fps;
  for (const auto& in : code) fps.push_back(cost::footprint(in));
  std::vector<const isa::Instruction*> insts;
  std::vector<const cost::Footprint*> footprints;
  std::vector<std::uint32_t> order;
  for (std::size_t i = 0; i < code.size(); ++i) {
    insts.push_back(&code[i]);
    footprints.push_back(&fps[i]);
    order.push_back(static_cast<std::uint32_t>(i));
  }
  return cache.key(insts, footprints, {order});
}

double cycles(std::vector<isa::Instruction> code, const HardwareConfig& config) {
  derive_dependency_tokens(code, 0, code.size());
  return cost::estimate_program(code, config).cycles;
}

}  // namespace

TEST_CASE("window timing cache: DDR spans shifted by whole bursts share a key and time the same", "[compiler][interleave]") {
  const HardwareConfig config = default_config();
  const WindowTimingCache cache(config);
  const Placement a;
  Placement b = a;
  b.weights += 7 * 4096;  // each cluster by its own multiple of the 64-byte burst
  b.input += 5 * 64;
  b.output += 3 << 20;
  const auto code_a = layer(a), code_b = layer(b);
  CHECK(key_of(cache, code_a) == key_of(cache, code_b));
  CHECK(cycles(code_a, config) == cycles(code_b, config));
}

TEST_CASE("window timing cache: an address off the burst grid gets its own key", "[compiler][interleave]") {
  const HardwareConfig config = default_config();
  const WindowTimingCache cache(config);
  const Placement a;
  for (const std::uint64_t shift : {1ull, 4ull, 32ull, 64ull + 16}) {
    Placement b = a;
    b.input += shift;  // another residue modulo the burst (more bursts) or the DMA alignment (a bounce)
    CHECK(key_of(cache, layer(a)) != key_of(cache, layer(b)));
  }
}

TEST_CASE("window timing cache: spans that overlap differently get their own key", "[compiler][interleave]") {
  const HardwareConfig config = default_config();
  const WindowTimingCache cache(config);
  // The store writes the bytes the load reads (a read after write of DDR, a token) in one
  // window, other bytes in the other: the same offsets from each span's own burst, but not one
  // cluster in both.
  Placement apart;
  apart.output = apart.input + (1 << 20);
  Placement same = apart;
  same.output = same.input;
  CHECK(key_of(cache, layer(apart)) != key_of(cache, layer(same)));
  // Spans that only move closer together, still apart, keep their key.
  Placement closer = apart;
  closer.output = apart.input + kTile + 4096;
  CHECK(key_of(cache, layer(apart)) == key_of(cache, layer(closer)));
}

TEST_CASE("window timing cache: quantisation parameters the timing only checks", "[compiler][interleave]") {
  const HardwareConfig config = default_config();
  const WindowTimingCache cache(config);
  const Placement a;
  Placement b = a;
  b.scale = 0.125f;
  b.zero_point = -7;
  CHECK(key_of(cache, layer(a)) == key_of(cache, layer(b)));
  CHECK(cycles(layer(a), config) == cycles(layer(b), config));
  Placement invalid = a;
  invalid.scale = 0.0f;  // fails the plan's check: must not borrow a valid window's cycles
  CHECK(key_of(cache, layer(a)) != key_of(cache, layer(invalid)));
  // A gemm's zero points matter with mac_dtype fp16 (they must be 0 there).
  auto fp16 = layer(a), fp16_zero = layer(a);
  fp16[2].set(Field::mac_dtype, static_cast<std::int64_t>(isa::MacDType::Fp16));
  fp16_zero[2].set(Field::mac_dtype, static_cast<std::int64_t>(isa::MacDType::Fp16));
  fp16_zero[2].set(Field::a_zero_point, 0);
  CHECK(key_of(cache, fp16) != key_of(cache, fp16_zero));
  // Any other field is kept bit for bit.
  auto other = layer(a);
  other[2].set(Field::m, 128);
  CHECK(key_of(cache, layer(a)) != key_of(cache, other));
}

TEST_CASE("window timing cache: shared SRAM window addresses are kept as they are", "[compiler][interleave]") {
  const HardwareConfig config = default_config();
  const WindowTimingCache cache(config);
  Placement a;
  a.input = isa::kSharedSramBase;
  Placement b = a;
  b.input += 4096;
  CHECK(key_of(cache, layer(a)) != key_of(cache, layer(b)));
}

TEST_CASE("window timing cache: equal keys are timed once; check mode times again and compares", "[compiler][interleave]") {
  const HardwareConfig config = default_config();
  WindowTimingCache cache(config);
  const auto code = layer({});
  std::vector<cost::Footprint> fps;
  for (const auto& in : code) fps.push_back(cost::footprint(in));
  std::vector<const isa::Instruction*> insts;
  std::vector<const cost::Footprint*> footprints;
  for (std::size_t i = 0; i < code.size(); ++i) {
    insts.push_back(&code[i]);
    footprints.push_back(&fps[i]);
  }
  const std::vector<std::vector<std::uint32_t>> windows{{0, 1, 2, 3, 4, 5, 6}, {1, 0, 2, 3, 4, 5, 6}};
  int timed = 0;
  auto answer = [&](double c) {
    return [&timed, c] {
      ++timed;
      return std::vector<double>{c, c + 1};
    };
  };
  CHECK(cache.find_or_time(insts, footprints, windows, answer(10)) == std::vector<double>{10, 11});
  CHECK(cache.find_or_time(insts, footprints, windows, answer(20)) == std::vector<double>{10, 11});
  CHECK(timed == 1);
  // Other orders of the same code are other windows.
  CHECK(cache.find_or_time(insts, footprints, {windows[0]}, answer(30)) == std::vector<double>{30, 31});
  CHECK(timed == 2);
  CHECK(cache.hits() == 1);
  CHECK(cache.misses() == 2);
  CHECK_NOTHROW(cache.find_or_time(insts, footprints, windows, answer(10), /*check=*/true));
  CHECK_THROWS_AS(cache.find_or_time(insts, footprints, windows, answer(12), /*check=*/true), std::logic_error);
}

TEST_CASE("interleave: layers repeated at other DDR addresses reuse their windows and interleave the same", "[compiler][interleave]") {
  const HardwareConfig config = default_config();
  // Five repeats of a pair of layers (the second reads the first's output), each repeat's
  // weights and activations elsewhere in DDR, its scales its own.
  std::vector<std::vector<isa::Instruction>> layers;
  for (std::uint64_t r = 0; r < 5; ++r) {
    Placement first;
    first.weights += r * (1 << 16);
    first.input += r * (1 << 18);
    first.output += r * (1 << 18);
    first.scale = 0.5f / static_cast<float>(r + 1);
    Placement second = first;
    second.weights += 4096;
    second.input = first.output;
    second.output = first.output + (1 << 17);
    layers.push_back(layer(first));
    layers.push_back(layer(second));
  }
  InterleaveOptions checked;
  checked.check_window_cache = true;  // every reused timing is timed again and compared
  std::FILE* log = std::tmpfile();
  REQUIRE(log);
  checked.log = log;
  const InterleavedCode merged = interleave_layers(layers, config, checked);
  const InterleavedCode plain = interleave_layers(layers, config);
  CHECK(merged.code == plain.code);
  CHECK(merged.owner == plain.owner);
  // The repeats' windows were timed once: the log's last line counts them.
  std::rewind(log);
  char line[256];
  std::size_t timed = 0, alike = 0;
  while (std::fgets(line, sizeof line, log)) std::sscanf(line, "interleave windows: %zu timed, %zu alike", &timed, &alike);
  std::fclose(log);
  CHECK(timed > 0);
  CHECK(alike > timed);
}

TEST_CASE("window timing cache: the conflict scan of code alike up to DDR placement runs once", "[compiler][interleave]") {
  const HardwareConfig config = default_config();
  WindowTimingCache cache(config);
  Placement a;
  Placement b = a;
  b.weights += 64 * 4096;
  b.input += 128;
  b.output += 1 << 20;
  const auto code_a = layer(a), code_b = layer(b);
  std::vector<cost::Footprint> fps_a, fps_b;
  for (const auto& in : code_a) fps_a.push_back(cost::footprint(in));
  for (const auto& in : code_b) fps_b.push_back(cost::footprint(in));
  std::vector<const isa::Instruction*> insts_a, insts_b;
  std::vector<const cost::Footprint*> footprints_a, footprints_b;
  for (std::size_t i = 0; i < code_a.size(); ++i) {
    insts_a.push_back(&code_a[i]);
    insts_b.push_back(&code_b[i]);
    footprints_a.push_back(&fps_a[i]);
    footprints_b.push_back(&fps_b[i]);
  }
  int scanned = 0;
  auto scan = [&](std::vector<std::uint32_t> answer) {
    return [&scanned, answer] {
      ++scanned;
      return answer;
    };
  };
  CHECK(cache.find_or_scan(insts_a, footprints_a, 4, scan({3, 0, 5})) == std::vector<std::uint32_t>{3, 0, 5});
  CHECK(cache.find_or_scan(insts_b, footprints_b, 4, scan({9, 9, 9})) == std::vector<std::uint32_t>{3, 0, 5});
  CHECK(scanned == 1);
  // Another split of the same code is another scan.
  CHECK(cache.find_or_scan(insts_a, footprints_a, 5, scan({1, 1})) == std::vector<std::uint32_t>{1, 1});
  CHECK(scanned == 2);
  CHECK_THROWS_AS(cache.find_or_scan(insts_b, footprints_b, 4, scan({3, 1, 5}), /*check=*/true), std::logic_error);
}
