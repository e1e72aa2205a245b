#include "compiler/layer_interleave.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "compiler/dependency_tokens.h"
#include "costmodel/footprint.h"
#include "costmodel/program_estimate.h"

namespace npu::compiler {
namespace {

using isa::Opcode;
using isa::Unit;

constexpr std::uint32_t kNoLayer = std::numeric_limits<std::uint32_t>::max();
// Lags tried per pair, in A's tiles after the conflict.
constexpr int kLags[] = {0, 1, 2, 4};
// A move must beat the layers one after another by this much: estimates are not exact.
constexpr double kMinGain = 0.001;
// Pairs whose conflict scan would compare more instruction pairs than this stay as they are
// (compile time on very long layers).
constexpr std::uint64_t kMaxPairsScanned = 4'000'000;

struct Item {
  isa::Instruction inst;
  std::uint32_t owner = kNoLayer;
  cost::Footprint fp;
};

bool overlap(const std::vector<cost::ByteRange>& a, const std::vector<cost::ByteRange>& b) {
  for (const auto& x : a)
    for (const auto& y : b)
      if (x.begin < y.end && y.begin < x.end) return true;
  return false;
}

bool conflict(const Item& x, const Item& y) {
  if (!x.fp.known || !y.fp.known || x.inst.unit() == Unit::Control || y.inst.unit() == Unit::Control) return true;
  const cost::Footprint &a = x.fp, &b = y.fp;
  return overlap(a.sram_write, b.sram_read) || overlap(a.sram_write, b.sram_write) || overlap(a.sram_read, b.sram_write) ||
         overlap(a.ddr_write, b.ddr_read) || overlap(a.ddr_write, b.ddr_write) || overlap(a.ddr_read, b.ddr_write);
}

bool is_tile_step(const Item& it) { return it.inst.unit() == Unit::Compute || it.inst.unit() == Unit::Vector; }

// Estimated cycles of stream[first, end) alone, with its own tokens.
double window_cycles(const std::vector<Item>& stream, std::size_t first, std::size_t end, const HardwareConfig& config) {
  std::vector<isa::Instruction> code;
  code.reserve(end - first);
  for (std::size_t i = first; i < end; ++i) code.push_back(stream[i].inst);
  derive_dependency_tokens(code, 0, code.size());
  return cost::estimate_program(code, config).cycles;
}

// stream[lo, bs) holds layer A's code (and whatever moved into it before); stream[bs, be) is
// layer B's. Returns the stream with B's instructions moved in with the given lag.
std::vector<Item> merge(const std::vector<Item>& stream, std::size_t lo, std::size_t bs, std::size_t be, std::uint32_t a, int lag,
                        bool loads_only) {
  std::vector<std::size_t> markers;  // A's tiles
  for (std::size_t p = lo; p < bs; ++p)
    if (stream[p].owner == a && is_tile_step(stream[p])) markers.push_back(p);
  // The next compute instruction at or after p, or bs.
  auto next_compute = [&](std::size_t p) {
    while (p < bs && stream[p].inst.unit() != Unit::Compute) ++p;
    return p;
  };
  std::vector<std::size_t> pos(be - bs);
  std::size_t last_compute = bs;  // index (in B) of B's latest compute instruction
  for (std::size_t j = 0; j < pos.size(); ++j) {
    const Item& b = stream[bs + j];
    std::size_t req = loads_only && b.inst.unit() != Unit::Load ? bs : lo;
    for (std::size_t p = bs; p-- > req;)
      if (conflict(stream[p], b)) {
        req = p + 1;
        break;
      }
    if (lag > 0) {
      auto it = std::lower_bound(markers.begin(), markers.end(), req);
      const auto left = static_cast<std::size_t>(markers.end() - it);
      req = left >= static_cast<std::size_t>(lag) ? *(it + (lag - 1)) + 1 : bs;
    }
    std::size_t at = std::max(req, j > 0 ? pos[j - 1] : lo);
    if (b.inst.unit() == Unit::Compute) {
      // Not between a conv/gemm and the drain of its accumulators.
      const std::size_t q = next_compute(at);
      if (q < bs && stream[q].inst.opcode == Opcode::Drain) at = q + 1;
      if (b.inst.opcode == Opcode::Drain && last_compute < pos.size() && pos[last_compute] < at)
        for (std::size_t k = last_compute; k < j; ++k) pos[k] = at;  // right behind its own conv/gemm
      last_compute = j;
    }
    pos[j] = at;
  }
  std::vector<Item> out;
  out.reserve(stream.size());
  out.insert(out.end(), stream.begin(), stream.begin() + static_cast<std::ptrdiff_t>(lo));
  std::size_t j = 0;
  for (std::size_t p = lo; p <= bs; ++p) {
    while (j < pos.size() && pos[j] == p) out.push_back(stream[bs + j++]);
    if (p < bs) out.push_back(stream[p]);
  }
  out.insert(out.end(), stream.begin() + static_cast<std::ptrdiff_t>(be), stream.end());
  return out;
}

std::size_t first_of(const std::vector<Item>& stream, std::uint32_t layer) {
  for (std::size_t i = 0; i < stream.size(); ++i)
    if (stream[i].owner == layer) return i;
  return stream.size();
}

}  // namespace

InterleavedCode interleave_layers(const std::vector<std::vector<isa::Instruction>>& layers, const HardwareConfig& config,
                                  bool enabled) {
  std::vector<Item> stream;
  std::uint32_t a = kNoLayer, before_a = kNoLayer;
  for (std::uint32_t layer = 0; layer < layers.size(); ++layer) {
    if (layers[layer].empty()) continue;
    const std::size_t bs = stream.size();
    for (const auto& inst : layers[layer]) stream.push_back({inst, layer, cost::footprint(inst)});
    const std::size_t be = stream.size();
    if (enabled && a != kNoLayer) {
      const std::size_t lo = first_of(stream, a);
      const std::size_t from = before_a != kNoLayer ? std::min(lo, first_of(stream, before_a)) : lo;
      if (static_cast<std::uint64_t>(bs - lo) * (be - bs) <= kMaxPairsScanned) {
        const double alone = window_cycles(stream, from, be, config);
        double best = alone * (1.0 - kMinGain);
        std::vector<Item> chosen;
        // Each lag, with all of B's instructions or only its loads (its compute and stores then
        // stay behind A: a prefetch of its first tiles).
        for (const bool loads_only : {false, true}) {
          for (const int lag : kLags) {
            std::vector<Item> trial = merge(stream, lo, bs, be, a, lag, loads_only);
            const double cycles = window_cycles(trial, from, be, config);
            if (cycles < best) {
              best = cycles;
              chosen = std::move(trial);
            }
          }
        }
        if (std::getenv("NPUSIM_DEBUG_SCHEDULE"))
          std::fprintf(stderr, "interleave layer %u into %u: %.0f -> %.0f cycles%s\n", layer, a, alone,
                       chosen.empty() ? alone : best, chosen.empty() ? " (kept apart)" : "");
        if (!chosen.empty()) stream = std::move(chosen);
      }
    }
    before_a = a;
    a = layer;
  }
  InterleavedCode out;
  out.code.reserve(stream.size());
  out.owner.reserve(stream.size());
  for (auto& it : stream) {
    out.code.push_back(std::move(it.inst));
    out.owner.push_back(it.owner);
  }
  return out;
}

}  // namespace npu::compiler
