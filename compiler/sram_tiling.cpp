#include "sram_tiling.h"

#include <algorithm>

#include "compiled_model.h"

namespace npu::compiler {
namespace {

constexpr std::int64_t kTileDimMax = 4095;     // conv in_h: 12 bits
constexpr std::int64_t kCountMax = (1 << 24) - 1;  // vector count: 24 bits
constexpr std::int64_t kGemmDimMax = 65535;    // gemm m/n/k: 16 bits

std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

struct Candidate {
  std::int64_t units = 0, rows = 0;
  bool rows_outer = false;
  double cost = 0;
  std::uint64_t ddr_bytes = 0;
};

}  // namespace

std::uint64_t SramLayout::params_per_chunk(std::int64_t oc) const {
  std::uint64_t b = align_up(static_cast<std::uint64_t>(4 * oc), alignment);
  if (int8) b += align_up(static_cast<std::uint64_t>(8 * oc), alignment);
  return b;
}

TilePlan plan_conv_tiles(const ConvShape& s, std::uint64_t sram_bytes, std::uint64_t a) {
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
  if (!legal(1, 1)) {
    throw CompileError("layer '" + s.name + "': the smallest tile (1 output row, " +
                       (s.groups == 1 ? std::string("1 output channel") : "1 group") + ") needs " +
                       std::to_string(need(1, 1)) + " bytes of SRAM with double buffers; the scratchpad has " +
                       std::to_string(sram_bytes));
  }
  const std::uint64_t weights_total = static_cast<std::uint64_t>(s.kh * s.kw * icg * s.oc * s.elem);
  std::vector<std::int64_t> unit_options;
  for (std::int64_t u = total_units; u >= 1; u = (u + 1) / 2) {
    unit_options.push_back(u);
    if (u == 1) break;
  }
  Candidate best;
  best.cost = -1;
  for (std::int64_t u : unit_options) {
    if (!legal(u, 1)) continue;
    std::int64_t lo = 1, hi = s.oh;  // largest rows that fit
    while (lo < hi) {
      std::int64_t mid = (lo + hi + 1) / 2;
      if (legal(u, mid)) lo = mid;
      else hi = mid - 1;
    }
    std::int64_t rows = lo;
    std::int64_t n_chunks = (total_units + u - 1) / u, n_rows = (s.oh + rows - 1) / rows;
    std::uint64_t input_pass = static_cast<std::uint64_t>(n_rows * in_rows(rows) * s.w * s.c * s.elem);
    for (bool rows_outer : {false, true}) {
      std::uint64_t bytes;
      if (!rows_outer) bytes = weights_total + (s.groups == 1 ? n_chunks : 1) * input_pass;
      else bytes = input_pass + (n_chunks > 1 ? n_rows : 1) * weights_total;
      // Each tile costs a few DMA descriptors and pipeline fill: count it as 2 KiB of traffic.
      double cost = static_cast<double>(bytes) + 2048.0 * n_chunks * n_rows;
      if (best.cost < 0 || cost < best.cost) best = {u, rows, rows_outer, cost, bytes};
    }
  }
  TilePlan plan;
  plan.rows_outer = best.rows_outer;
  plan.ddr_bytes = best.ddr_bytes;
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
