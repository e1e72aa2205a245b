#include "compiler/sram_tiling.h"

#include <algorithm>
#include <array>
#include <map>
#include <cmath>
#include <numeric>

#include "compiler/compile.h"
#include "isa/field_limits.h"
#include "costmodel/dma_cost.h"
#include "costmodel/mac_cost.h"

namespace npu::compiler {
namespace {

constexpr std::int64_t kTileDimMax = isa::field_max(isa::Opcode::Conv, isa::Field::in_h);
constexpr std::int64_t kCountMax = isa::field_max(isa::Opcode::Requantize, isa::Field::count);
constexpr std::int64_t kGemmDimMax = isa::field_max(isa::Opcode::Gemm, isa::Field::m);

std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

struct Candidate {
  std::int64_t units = 0, rows = 0;
  bool rows_outer = false;
  double cost = 0;
  std::uint64_t ddr_bytes = 0;
  double cycles = 0, bus_bytes = 0;
};

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

std::uint64_t SramLayout::params_per_chunk(std::int64_t oc) const {
  std::uint64_t b = align_up(static_cast<std::uint64_t>(4 * oc), alignment);
  if (int8) b += align_up(static_cast<std::uint64_t>(8 * oc), alignment);
  return b;
}

namespace {

// Fallback when even one output row of one output channel with every input channel does not
// fit: split the reduction over input-channel slices. Each (chunk, rows) tile then loads, per
// slice, the slice's weights and input channels (double-buffered per slice), so nothing is
// reused across tiles; the plan moving the fewest DDR bytes (plus a per-transfer overhead) wins.
TilePlan plan_conv_tiles_k_split(const ConvShape& s, std::uint64_t sram_bytes, std::uint64_t a) {
  const std::int64_t total_units = s.oc;
  const bool int8 = s.elem == 1;
  auto in_rows = [&](std::int64_t rows) { return std::min(s.h, (rows - 1) * s.sh + (s.kh - 1) * s.dh + 1); };
  SramLayout proto;
  proto.int8 = int8;
  proto.alignment = a;
  auto params_bytes = [&](std::int64_t u) {
    std::int64_t n = (total_units + u - 1) / u;
    return static_cast<std::uint64_t>(n) * proto.params_per_chunk(u) + (s.lut ? align_up(256, a) : 0);
  };
  auto need = [&](std::int64_t u, std::int64_t rows, std::int64_t cs) -> std::uint64_t {
    std::uint64_t w = align_up(static_cast<std::uint64_t>(s.kh * s.kw * cs * u * s.elem), a);
    std::uint64_t in = align_up(static_cast<std::uint64_t>(in_rows(rows) * s.w * cs * s.elem), a);
    std::uint64_t acc = align_up(static_cast<std::uint64_t>(rows * s.ow * u * 4), a);
    std::uint64_t out = align_up(static_cast<std::uint64_t>(rows * s.ow * u * s.elem), a);
    std::uint64_t res = s.residual ? out : 0;
    return params_bytes(u) + 2 * (w + in + acc + out + res);
  };
  auto legal = [&](std::int64_t u, std::int64_t rows, std::int64_t cs) {
    if (in_rows(rows) > kTileDimMax) return false;
    if (rows * s.ow * u > kCountMax) return false;
    if (s.gemm && (rows > kGemmDimMax || u > kGemmDimMax || cs > kGemmDimMax)) return false;
    return need(u, rows, cs) <= sram_bytes;
  };
  // Slice widths: even splits of the channels, rounded up to whole 64-byte runs when that still
  // splits them (so every slice starts DMA-aligned within a pixel).
  const std::int64_t step = std::max<std::int64_t>(1, 64 / s.elem);
  std::vector<std::int64_t> widths;
  for (std::int64_t ns = 2; ns <= s.c; ++ns) {
    std::int64_t cs = ceil_div(s.c, ns);
    std::int64_t r = ceil_div(cs, step) * step;
    if (r < s.c && ceil_div(s.c, r) == ns) cs = r;
    if (!widths.empty() && widths.back() == cs) continue;
    widths.push_back(cs);
    if (legal(1, 1, cs)) break;
  }
  if (widths.empty() || !legal(1, 1, widths.back())) {
    throw CompileError("layer '" + s.name + "': the smallest tile (1 output row, 1 output channel, 1 input channel) needs " +
                       std::to_string(need(1, 1, 1)) + " bytes of SRAM with double buffers; the scratchpad has " +
                       std::to_string(sram_bytes));
  }
  std::vector<std::int64_t> cs_options = {widths.back()};
  for (std::int64_t cs = widths.back() / 2; cs >= 1 && cs_options.size() < 3; cs /= 2)
    cs_options.push_back(cs >= step ? cs / step * step : cs);
  double best_cost = -1;
  std::int64_t best_u = 1, best_rows = 1, best_cs = widths.back();
  for (std::int64_t cs : cs_options) {
    const std::int64_t ns = ceil_div(s.c, cs);
    for (std::int64_t u = total_units; u >= 1; u = (u + 1) / 2) {
      if (legal(u, 1, cs)) {
        std::int64_t lo = 1, hi = s.oh;
        while (lo < hi) {
          std::int64_t mid = (lo + hi + 1) / 2;
          if (legal(u, mid, cs)) lo = mid;
          else hi = mid - 1;
        }
        std::int64_t n_tiles = ceil_div(total_units, u) * ceil_div(s.oh, lo);
        double per_tile = static_cast<double>(s.kh * s.kw * s.c * u * s.elem + in_rows(lo) * s.w * s.c * s.elem);
        double cost = static_cast<double>(n_tiles) * (per_tile + 2048.0 * static_cast<double>(ns));
        if (best_cost < 0 || cost < best_cost) {
          best_cost = cost;
          best_u = u;
          best_rows = lo;
          best_cs = cs;
        }
      }
      if (u == 1) break;
    }
  }
  TilePlan plan;
  plan.k_slice = best_cs;
  plan.k_slices = ceil_div(s.c, best_cs);
  for (std::int64_t u0 = 0; u0 < total_units; u0 += best_u) {
    TileChunk c;
    c.first_unit = u0;
    c.units = std::min(best_u, total_units - u0);
    c.first_oc = u0;
    c.oc = c.units;
    plan.chunks.push_back(c);
  }
  std::uint64_t ddr = 0;
  for (std::size_t c = 0; c < plan.chunks.size(); ++c)
    for (std::int64_t r0 = 0; r0 < s.oh; r0 += best_rows) {
      std::int64_t n = std::min(best_rows, s.oh - r0);
      plan.tiles.push_back({static_cast<std::int64_t>(c), r0, n});
      ddr += static_cast<std::uint64_t>(s.kh * s.kw * s.c * plan.chunks[c].oc * s.elem + in_rows(n) * s.w * s.c * s.elem +
                                        n * s.ow * plan.chunks[c].oc * s.elem * (s.residual ? 2 : 1));
    }
  plan.ddr_bytes = ddr;
  SramLayout& m = plan.sram;
  m = proto;
  std::uint64_t at = 0;
  auto take = [&](std::uint64_t bytes) {
    std::uint64_t p = at;
    at += align_up(std::max<std::uint64_t>(bytes, 1), a);
    return p;
  };
  std::int64_t u = best_u, r = best_rows, cs = best_cs;
  m.params = take(params_bytes(u) - (s.lut ? align_up(256, a) : 0));
  if (s.lut) m.lut = take(256);
  for (int i = 0; i < 2; ++i) {
    m.weights[i] = take(static_cast<std::uint64_t>(s.kh * s.kw * cs * u * s.elem));
    m.input[i] = take(static_cast<std::uint64_t>(in_rows(r) * s.w * cs * s.elem));
    m.acc[i] = take(static_cast<std::uint64_t>(r * s.ow * u * 4));
    m.output[i] = take(static_cast<std::uint64_t>(r * s.ow * u * s.elem));
    if (s.residual) m.residual[i] = take(static_cast<std::uint64_t>(r * s.ow * u * s.elem));
  }
  m.total = at;
  if (at > sram_bytes) throw CompileError("internal: layer '" + s.name + "' tile plan exceeds the scratchpad");
  return plan;
}

}  // namespace

TilePlan plan_conv_tiles(const ConvShape& s, std::uint64_t sram_bytes, std::uint64_t a, const HardwareConfig* hw) {
  const std::int64_t icg = s.c / s.groups, ocg = s.oc / s.groups;
  const std::int64_t total_units = s.groups == 1 ? s.oc : s.groups;
  const bool int8 = s.elem == 1;
  auto in_rows = [&](std::int64_t rows) { return std::min(s.h, (rows - 1) * s.sh + (s.kh - 1) * s.dh + 1); };
  auto chunk_oc = [&](std::int64_t u) { return s.groups == 1 ? u : u * ocg; };
  auto chunk_in = [&](std::int64_t u) { return s.groups == 1 ? s.c : u * icg; };
  SramLayout proto;
  proto.int8 = int8;
  proto.alignment = a;
  auto params_bytes = [&](std::int64_t u) {
    std::int64_t n = (total_units + u - 1) / u;
    // every chunk but the last has u units; the last may be smaller but its block is no larger
    return static_cast<std::uint64_t>(n) * proto.params_per_chunk(chunk_oc(u)) + (s.lut ? align_up(256, a) : 0);
  };
  auto need = [&](std::int64_t u, std::int64_t rows) -> std::uint64_t {
    std::uint64_t w = align_up(static_cast<std::uint64_t>(s.kh * s.kw * (s.groups == 1 ? s.c * u : u * icg * ocg) * s.elem), a);
    std::uint64_t in = align_up(static_cast<std::uint64_t>(in_rows(rows) * s.w * chunk_in(u) * s.elem), a);
    std::uint64_t acc = align_up(static_cast<std::uint64_t>(rows * s.ow * chunk_oc(u) * 4), a);
    std::uint64_t out = align_up(static_cast<std::uint64_t>(rows * s.ow * chunk_oc(u) * s.elem), a);
    std::uint64_t res = s.residual ? out : 0;
    return params_bytes(u) + 2 * (w + in + acc + out + res);
  };
  auto legal = [&](std::int64_t u, std::int64_t rows) {
    if (in_rows(rows) > kTileDimMax) return false;
    if (rows * s.ow * chunk_oc(u) > kCountMax) return false;
    if (s.gemm && (rows > kGemmDimMax || chunk_oc(u) > kGemmDimMax || s.c > kGemmDimMax)) return false;
    return need(u, rows) <= sram_bytes;
  };
  if (!legal(1, 1) && s.groups == 1) return plan_conv_tiles_k_split(s, sram_bytes, a);
  if (!legal(1, 1)) {
    throw CompileError("layer '" + s.name + "': the smallest tile (1 output row, " +
                       (s.groups == 1 ? std::string("1 output channel") : "1 group") + ") needs " +
                       std::to_string(need(1, 1)) + " bytes of SRAM with double buffers; the scratchpad has " +
                       std::to_string(sram_bytes));
  }
  auto largest_rows = [&](std::int64_t u) {
    std::int64_t lo = 1, hi = s.oh;  // largest rows that fit
    while (lo < hi) {
      std::int64_t mid = (lo + hi + 1) / 2;
      if (legal(u, mid)) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  Candidate best;
  best.cost = -1;
  {
    const HardwareConfig& h = *hw;
    const cost::DmaEstimate dma(h);
    const cost::MacArrayCost mac(h.mac_array);
    const bool shared_channel = h.dma.channels < 2;
    const double fp16 = s.elem == 2 ? std::max(1, h.mac_array.fp16_cycles_per_op) : 1.0;
    const std::int64_t lanes = std::max(1, h.vector.lanes);
    const int vector_ops = int8 ? 2 + (s.lut ? 1 : 0) + (s.residual ? 1 : 0) : 3 + (s.residual ? 2 : 0);
    std::vector<double> L, C, V, S;
    // Simulates the layer's tile pipeline as LayerStream wires it (see the header comment).
    auto estimate = [&](std::int64_t u, std::int64_t rows, bool rows_outer, double bound, Candidate& out) -> bool {
      const std::int64_t n_chunks = ceil_div(total_units, u), n_rows = ceil_div(s.oh, rows), n = n_chunks * n_rows;
      L.assign(n, 0);
      C.assign(n, 0);
      V.assign(n, 0);
      S.assign(n, 0);
      std::vector<double> lt(n), ct(n), vt(n), stt(n);
      // The array alone bounds the layer from below: skip plans that cannot beat the best so far.
      double compute = 0;
      for (std::int64_t i = 0; i < n; ++i) {
        std::int64_t chunk = rows_outer ? i % n_chunks : i / n_rows, ri = rows_outer ? i / n_chunks : i % n_rows;
        std::int64_t r = std::min(rows, s.oh - ri * rows), cu = std::min(u, total_units - chunk * u);
        std::int64_t m = r * s.ow, k = s.kh * s.kw * icg;
        ct[i] = fp16 * static_cast<double>(s.groups == 1 ? mac.gemm_cycles(m, chunk_oc(cu), k, false)
                                                        : mac.conv_cycles(cu, m, ocg, k, false));
        compute += ct[i];
      }
      if (bound > 0 && compute > bound) {
        out.cycles = compute;
        out.bus_bytes = 0;
        return false;
      }
      double bus = 0, requested = 0;
      std::int64_t last_chunk = -1, last_row0 = -1;
      for (std::int64_t i = 0; i < n; ++i) {
        std::int64_t chunk = rows_outer ? i % n_chunks : i / n_rows, ri = rows_outer ? i / n_chunks : i % n_rows;
        std::int64_t row0 = ri * rows, r = std::min(rows, s.oh - row0);
        std::int64_t fu = chunk * u, cu = std::min(u, total_units - fu), coc = chunk_oc(cu);
        std::int64_t first_oc = s.groups == 1 ? fu : fu * ocg;
        double lc = 0, sc = 0;
        if (i == 0) {
          std::uint64_t pb = params_bytes(u) - (s.lut ? align_up(256, a) : 0);
          dma.linear(pb, lc, bus);
          if (s.lut) dma.linear(256, lc, bus);
          requested += static_cast<double>(pb);
        }
        if (chunk != last_chunk) {
          std::uint64_t wb = static_cast<std::uint64_t>(s.kh * s.kw * (s.groups == 1 ? s.c * cu : cu * icg * ocg) * s.elem);
          dma.linear(align_up(wb, 64), lc, bus);
          requested += static_cast<double>(wb);
          last_chunk = chunk;
          last_row0 = -1;
        }
        std::int64_t start = row0 * s.sh - s.pad_top, end = (row0 + r - 1) * s.sh - s.pad_top + s.dh * (s.kh - 1);
        std::int64_t ih0 = std::max<std::int64_t>(0, start), ih1 = std::max(ih0 + 1, std::min(s.h - 1, end) + 1);
        std::int64_t cin0 = s.groups == 1 ? 0 : fu * icg, cin = chunk_in(cu);
        if (row0 != last_row0 || s.groups != 1) {
          dma.rows(ih1 - ih0, s.w, s.c, cin0, cin, s.elem, lc, bus);
          requested += static_cast<double>((ih1 - ih0) * s.w * cin * s.elem);
          last_row0 = row0;
        }
        if (s.residual) {
          dma.rows(r, s.ow, s.oc, first_oc, coc, s.elem, lc, bus);
          requested += static_cast<double>(r * s.ow * coc * s.elem);
        }
        std::int64_t m = r * s.ow;
        std::int64_t count = m * coc;
        vt[i] = vector_ops * static_cast<double>(h.vector.latency_cycles + ceil_div(count, lanes));
        dma.rows(r, s.ow, s.oc, first_oc, coc, s.elem, sc, bus);
        requested += static_cast<double>(count * s.elem);
        lt[i] = lc;
        stt[i] = sc;
      }
      auto at = [](const std::vector<double>& v, std::int64_t i) { return i >= 0 ? v[static_cast<std::size_t>(i)] : 0.0; };
      double channel = 0;  // one DMA channel: loads and stores queue on it
      auto load = [&](std::int64_t i) {
        double t = std::max({at(L, i - 1), at(C, i - 2), s.residual ? at(V, i - 2) : 0.0});
        if (shared_channel) t = std::max(t, channel);
        L[i] = t + lt[i];
        if (shared_channel) channel = L[i];
      };
      load(0);
      for (std::int64_t i = 0; i < n; ++i) {
        C[i] = std::max({at(C, i - 1), L[i], at(V, i - 2)}) + ct[i];
        V[i] = std::max({at(V, i - 1), C[i], at(S, i - 2), s.residual ? L[i] : 0.0}) + vt[i];
        if (i + 1 < n) load(i + 1);
        double t = std::max(at(S, i - 1), V[i]);
        if (shared_channel) t = std::max(t, channel);
        S[i] = t + stt[i];
        if (shared_channel) channel = S[i];
      }
      // Loads and stores share the DDR: the bus bytes bound the layer from below.
      double ddr_bound = dma.ideal() ? 0.0 : bus / dma.bytes_per_cycle() + dma.latency_cycles();
      out.cycles = std::max(S[n - 1], ddr_bound);
      out.bus_bytes = bus;
      out.ddr_bytes = static_cast<std::uint64_t>(requested);
      return true;
    };
    // Chunk sizes: halvings of the layer, whole multiples of the array's output-channel side,
    // and even splits of the layer (and those rounded up to that side).
    const std::int64_t side = std::max(1, h.mac_array.dataflow == Dataflow::InputStationary ? 1 : h.mac_array.cols);
    std::vector<std::int64_t> units;
    for (std::int64_t u = total_units; u >= 1; u = (u + 1) / 2) {
      units.push_back(u);
      if (u == 1) break;
    }
    if (s.groups == 1)
      for (std::int64_t u = side; u < total_units && u <= 16 * side; u += side) units.push_back(u);
    for (std::int64_t j = 1; j <= 16 && j <= total_units; ++j) {
      std::int64_t u = ceil_div(total_units, j);
      units.push_back(u);
      if (s.groups == 1) units.push_back(std::min(total_units, ceil_div(u, side) * side));
    }
    std::sort(units.begin(), units.end(), std::greater<>());  // few large tiles first
    units.erase(std::unique(units.begin(), units.end()), units.end());
    std::vector<Candidate> all;
    double fastest = -1;
    for (std::int64_t u : units) {
      if (!legal(u, 1)) continue;
      std::int64_t rmax = largest_rows(u), nr = ceil_div(s.oh, rmax);
      std::vector<std::int64_t> splits = {nr, nr + 1, 2 * nr, 4 * nr};
      std::vector<std::int64_t> row_options;
      for (std::int64_t j : splits)
        if (j <= s.oh) row_options.push_back(ceil_div(s.oh, j));
      std::sort(row_options.begin(), row_options.end());
      row_options.erase(std::unique(row_options.begin(), row_options.end()), row_options.end());
      for (std::int64_t rows : row_options) {
        if (!legal(u, rows)) continue;
        std::int64_t tiles = ceil_div(total_units, u) * ceil_div(s.oh, rows);
        if (tiles > 1024 && !all.empty()) continue;  // bounds compile time; such plans are slow anyway
        for (bool rows_outer : {false, true}) {
          if (rows_outer && (ceil_div(total_units, u) == 1 || ceil_div(s.oh, rows) == 1)) continue;  // same order
          Candidate c;
          c.units = u;
          c.rows = rows;
          c.rows_outer = rows_outer;
          if (!estimate(u, rows, rows_outer, fastest * 1.005, c)) continue;
          if (fastest < 0 || c.cycles < fastest) fastest = c.cycles;
          all.push_back(c);
        }
      }
    }
    for (const auto& c : all) {
      if (c.cycles > fastest * 1.005) continue;
      if (best.cost < 0 || c.bus_bytes < best.bus_bytes || (c.bus_bytes == best.bus_bytes && c.cycles < best.cycles)) {
        best = c;
        best.cost = c.cycles;
      }
    }
  }
  TilePlan plan;
  plan.rows_outer = best.rows_outer;
  plan.ddr_bytes = best.ddr_bytes;
  plan.est_cycles = best.cycles;
  for (std::int64_t u0 = 0; u0 < total_units; u0 += best.units) {
    TileChunk c;
    c.first_unit = u0;
    c.units = std::min(best.units, total_units - u0);
    c.first_oc = s.groups == 1 ? u0 : u0 * ocg;
    c.oc = chunk_oc(c.units);
    plan.chunks.push_back(c);
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> rows;
  for (std::int64_t r = 0; r < s.oh; r += best.rows) rows.push_back({r, std::min(best.rows, s.oh - r)});
  if (best.rows_outer) {
    for (const auto& [r0, n] : rows)
      for (std::size_t c = 0; c < plan.chunks.size(); ++c) plan.tiles.push_back({static_cast<std::int64_t>(c), r0, n});
  } else {
    for (std::size_t c = 0; c < plan.chunks.size(); ++c)
      for (const auto& [r0, n] : rows) plan.tiles.push_back({static_cast<std::int64_t>(c), r0, n});
  }
  // Slots, in the order need() counted them.
  SramLayout& m = plan.sram;
  m = proto;
  std::uint64_t at = 0;
  auto take = [&](std::uint64_t bytes) {
    std::uint64_t p = at;
    at += align_up(std::max<std::uint64_t>(bytes, 1), a);
    return p;
  };
  std::int64_t u = best.units, r = best.rows;
  m.params = take(params_bytes(u) - (s.lut ? align_up(256, a) : 0));
  if (s.lut) m.lut = take(256);
  for (int i = 0; i < 2; ++i) {
    m.weights[i] = take(static_cast<std::uint64_t>(s.kh * s.kw * (s.groups == 1 ? s.c * u : u * icg * ocg) * s.elem));
    m.input[i] = take(static_cast<std::uint64_t>(in_rows(r) * s.w * chunk_in(u) * s.elem));
    m.acc[i] = take(static_cast<std::uint64_t>(r * s.ow * chunk_oc(u) * 4));
    m.output[i] = take(static_cast<std::uint64_t>(r * s.ow * chunk_oc(u) * s.elem));
    if (s.residual) m.residual[i] = take(static_cast<std::uint64_t>(r * s.ow * chunk_oc(u) * s.elem));
  }
  m.total = at;
  if (at > sram_bytes) throw CompileError("internal: layer '" + s.name + "' tile plan exceeds the scratchpad");
  return plan;
}

}  // namespace npu::compiler
