// Cross-layer interleaving (compiler/backend/layer_interleave.h) on hand-built layers: what moves, what
// may not, and that the cost model decides.
#include <catch2/catch.hpp>

#include "compiler/backend/dependency_tokens.h"
#include "compiler/backend/instruction_stream.h"
#include "compiler/backend/layer_interleave.h"
#include "costmodel/program_estimate.h"
#include "tests/compiler/test_helpers.h"

using namespace npu;
using namespace npu::compiler;
using isa::Field;
using isa::Opcode;

namespace {

// An int8 1x1 conv of `pixels` x 64 -> 64 channels at `in`, weights at `w`, int32 accumulators
// at `acc`, drained to `out`: 4 folds of (94 + pixels) cycles on 32x32 WS.
void conv_tile(std::vector<isa::Instruction>& code, std::uint64_t in, std::uint64_t w, std::uint64_t acc,
               std::uint64_t out, std::int64_t pixels) {
  code.push_back(make(Opcode::Conv, {{Field::in_addr, static_cast<std::int64_t>(in)}, {Field::w_addr, static_cast<std::int64_t>(w)},
                                     {Field::out_addr, static_cast<std::int64_t>(acc)}, {Field::in_h, pixels}, {Field::in_w, 1},
                                     {Field::in_c, 64}, {Field::out_c, 64}, {Field::kernel_h, 1}, {Field::kernel_w, 1},
                                     {Field::stride_h, 1}, {Field::stride_w, 1}, {Field::dilation_h, 1}, {Field::dilation_w, 1},
                                     {Field::groups, 1}}));
  code.push_back(make(Opcode::Drain, {{Field::dst_addr, static_cast<std::int64_t>(out)}, {Field::src_addr, static_cast<std::int64_t>(acc)},
                                      {Field::param_addr, 0}, {Field::requant_addr, 256}, {Field::count, pixels * 64},
                                      {Field::channels, 64}, {Field::clamp_min, -128}, {Field::clamp_max, 127}}));
}

constexpr std::int64_t kPixels = 256;
constexpr std::uint64_t kTile = kPixels * 64;           // int8 bytes of one tile's input or output
constexpr std::uint64_t kSlot = 6 * kTile;              // input, int32 accumulators, output
constexpr std::uint64_t kRegionB = 512 << 10;

// A tile of a layer: load its input, conv (twice when compute-bound), store its output.
void tile(std::vector<isa::Instruction>& code, std::uint64_t slot, std::uint64_t w, std::uint64_t from, std::uint64_t to,
          int convs) {
  emit_linear_load(code, from, slot, kTile, 64);
  for (int c = 0; c < convs; ++c) conv_tile(code, slot, w, slot + kTile, slot + 5 * kTile, kPixels);
  emit_linear_dma(code, Opcode::Store, to, slot + 5 * kTile, kTile, 64);
}

// Layer A: its weights, then eight compute-bound tiles in the scratchpad's first half, storing
// its output to DDR at 1 MiB. Layer B, in the second half, a vector layer (a LUT activation, as
// a pooling layer would be): its table (depending on nothing in A), then per tile A's output
// tile t read back from DDR, looked up and stored.
constexpr int kTiles = 8;
std::vector<std::vector<isa::Instruction>> two_layers() {
  std::vector<isa::Instruction> a, b;
  emit_linear_load(a, 8 << 20, 1024, 4096, 64);
  for (std::uint64_t t = 0; t < kTiles; ++t)
    tile(a, 8192 + (t % 2) * kSlot, 1024, (2 << 20) + t * kTile, (1 << 20) + t * kTile, 2);
  emit_linear_load(b, (8 << 20) + 4096, kRegionB, 256, 64);
  for (std::uint64_t t = 0; t < kTiles; ++t) {
    const std::uint64_t slot = kRegionB + 4096 + (t % 2) * kTile;
    emit_linear_load(b, (1 << 20) + t * kTile, slot, kTile, 64);
    b.push_back(make(Opcode::Lut, {{Field::dst_addr, static_cast<std::int64_t>(slot)}, {Field::src_addr, static_cast<std::int64_t>(slot)},
                                   {Field::table_addr, static_cast<std::int64_t>(kRegionB)}, {Field::count, static_cast<std::int64_t>(kTile)}}));
    // and a small conv of its first pixels, so B has array work with a drain too
    conv_tile(b, slot, kRegionB + (64 << 10), kRegionB + (128 << 10) + (t % 2) * 4096, kRegionB + (160 << 10) + (t % 2) * 1024, 16);
    emit_linear_dma(b, Opcode::Store, (4 << 20) + t * kTile, slot, kTile, 64);
  }
  return {a, b};
}

double cycles(std::vector<isa::Instruction> code, const HardwareConfig& config) {
  derive_dependency_tokens(code, 0, code.size());
  return cost::estimate_program(code, config).cycles;
}

std::size_t position(const InterleavedCode& m, std::uint32_t layer, std::size_t nth) {
  for (std::size_t i = 0; i < m.code.size(); ++i)
    if (m.owner[i] == layer && nth-- == 0) return i;
  return m.code.size();
}

}  // namespace

TEST_CASE("a layer's loads move into its compute-bound predecessor and the step gets faster", "[compiler][interleave]") {
  const HardwareConfig config = default_config();
  const auto layers = two_layers();
  const InterleavedCode apart = interleave_layers(layers, config, {/*enabled=*/false});
  const InterleavedCode merged = interleave_layers(layers, config);
  REQUIRE(merged.code.size() == layers[0].size() + layers[1].size());
  // Off: one layer after the other.
  for (std::size_t i = 0; i < apart.code.size(); ++i) CHECK(apart.owner[i] == (i < layers[0].size() ? 0u : 1u));
  // On: B's first look-up runs before A's last conv.
  CHECK(position(merged, 1, 2) < position(merged, 0, layers[0].size() - 3));
  CHECK(cycles(merged.code, config) < cycles(apart.code, config));
  // Each layer's instructions keep their order.
  for (std::uint32_t l = 0; l < 2; ++l)
    for (std::size_t k = 0, at = 0; k < layers[l].size(); ++k) {
      const std::size_t p = position(merged, l, k);
      CHECK(p >= at);
      CHECK(merged.code[p].opcode == layers[l][k].opcode);
      at = p;
    }
}

TEST_CASE("an instruction never moves ahead of one it conflicts with, nor between a conv and its drain",
          "[compiler][interleave]") {
  const HardwareConfig config = default_config();
  const auto layers = two_layers();
  const InterleavedCode merged = interleave_layers(layers, config);
  // B's load of A's tile t comes after A's store of it (read after write in DDR).
  for (std::size_t t = 0; t < kTiles; ++t) {
    const std::size_t b_load = position(merged, 1, 1 + 5 * t);
    const std::size_t a_store = position(merged, 0, 1 + 6 * t + 5);
    REQUIRE(merged.code[b_load].opcode == Opcode::Load);
    REQUIRE(merged.code[a_store].opcode == Opcode::Store);
    CHECK(a_store < b_load);
  }
  // Every drain's previous compute instruction is its own layer's conv, and some of B's convs
  // did move in among A's.
  CHECK(position(merged, 1, 3) < position(merged, 0, layers[0].size() - 3));
  std::size_t last_compute = merged.code.size();
  for (std::size_t i = 0; i < merged.code.size(); ++i) {
    if (merged.code[i].unit() != isa::Unit::Compute) continue;
    if (merged.code[i].opcode == Opcode::Drain) {
      REQUIRE(last_compute < merged.code.size());
      CHECK(merged.code[last_compute].opcode == Opcode::Conv);
      CHECK(merged.owner[last_compute] == merged.owner[i]);
    }
    last_compute = i;
  }
}

// The interleaver keeps a move only when the timing core finds the window faster by more than
// 0.1 % (kMinGain): a layer that gains nothing stays behind its predecessor, and one that moves
// makes the step faster by at least that much.
TEST_CASE("a move is made only where the cost model finds the step faster", "[compiler][interleave]") {
  const HardwareConfig config = default_config();
  // A is bound by its transfers (tiny convs); B streams independent weights into one conv.
  std::vector<isa::Instruction> a, b;
  for (std::uint64_t t = 0; t < 8; ++t) {
    const std::uint64_t slot = 8192 + (t % 2) * kSlot;
    emit_linear_load(a, (2 << 20) + t * kTile, slot, kTile, 64);
    conv_tile(a, slot, 1024, slot + kTile, slot + 5 * kTile, 4);
    emit_linear_dma(a, Opcode::Store, (1 << 20) + t * kTile, slot + 5 * kTile, kTile, 64);
  }
  emit_linear_load(b, 8 << 20, kRegionB, 128 << 10, 64);
  conv_tile(b, kRegionB + (128 << 10), kRegionB, kRegionB + (192 << 10), kRegionB + (320 << 10), 4);
  for (const auto& layers : {std::vector<std::vector<isa::Instruction>>{a, b}, two_layers()}) {
    const InterleavedCode apart = interleave_layers(layers, config, {/*enabled=*/false});
    const InterleavedCode merged = interleave_layers(layers, config);
    const bool moved = merged.owner != apart.owner;
    if (moved) CHECK(cycles(merged.code, config) < cycles(apart.code, config) * (1 - 0.001));
    else CHECK(merged.code.size() == apart.code.size());
  }
  // The same B behind a layer that already keeps the bus and the array busy gains nothing: an
  // A of one long load and a long conv on it leaves no gap B's weights could fill earlier.
  std::vector<isa::Instruction> busy;
  emit_linear_load(busy, 2 << 20, 8192, 256 << 10, 64);
  conv_tile(busy, 8192, 1024, 8192 + (256 << 10), 8192 + (320 << 10), 64);
  const InterleavedCode kept = interleave_layers({busy, b}, config);
  const InterleavedCode apart = interleave_layers({busy, b}, config, {/*enabled=*/false});
  if (kept.owner != apart.owner) CHECK(cycles(kept.code, config) < cycles(apart.code, config) * (1 - 0.001));
}
