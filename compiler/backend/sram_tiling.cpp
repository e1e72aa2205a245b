#include "compiler/backend/sram_tiling.h"

#include <algorithm>
#include <numeric>
#include <array>
#include <cmath>
#include <map>
#include <stdexcept>

#include "compiler/backend/instruction_stream.h"
#include "compiler/core/compile_options.h"
#include "costmodel/dma_cost.h"
#include "costmodel/mac_cost.h"
#include "costmodel/tile_pipeline.h"
#include "costmodel/vector_cost.h"
#include "isa/field_limits.h"
#include "isa/instruction_set.h"

namespace npu::compiler {
namespace {


std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

cost::ArrayMapping fastest(const cost::MacArrayCost& mac, bool flexible, std::int64_t groups, std::int64_t m, std::int64_t n,
                           std::int64_t k, bool fp16, bool depthwise_possible, double* cycles,
                           isa::WeightFormat b_format = isa::WeightFormat::Same) {
  cost::ArrayMapping best;
  auto cyc = [&](cost::ArrayMapping mp) {
    return mac.conv_cycles(static_cast<std::uint64_t>(groups), static_cast<std::uint64_t>(m), static_cast<std::uint64_t>(n),
                           static_cast<std::uint64_t>(k), fp16, mp, b_format);
  };
  std::uint64_t best_cycles = cyc(best);
  if (flexible) {
    for (cost::ArrayMapping mp : {cost::ArrayMapping{true, false}, cost::ArrayMapping{false, true}, cost::ArrayMapping{true, true}}) {
      if (mp.depthwise && !depthwise_possible) continue;
      const std::uint64_t c = cyc(mp);
      if (c < best_cycles) {
        best_cycles = c;
        best = mp;
      }
    }
  }
  if (cycles) *cycles = static_cast<double>(best_cycles);
  return best;
}
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

using isa::field_max;

// Plans within this factor of the fastest estimate count as equally fast; among them the one
// moving the fewest DDR bytes wins (estimates are not exact to a few percent, bytes are).
constexpr double kNearFastest = 1.02;

// How the reduction splits into slices that accumulate: `channels` input channels each, or
// (kernel_rows) one kernel row of all input channels each.
struct Reduction {
  std::int64_t channels = 0;
  bool kernel_rows = false;
  bool parts = false;  // one slice per part of the input (ConvShape::parts)
};

// One scored way to tile the layer.
struct Candidate {
  std::int64_t units = 0, rows = 0, cols = 0;
  Reduction red;
  bool rows_outer = false;
  double cycles = 0, bus = 0;
  std::uint64_t ddr = 0, sram = 0;
};

class ConvTiler {
 public:
  ConvTiler(const ConvShape& s, std::uint64_t sram_bytes, std::uint64_t alignment, const HardwareConfig* hw)
      : s_(s), sram_(sram_bytes), a_(alignment), hw_(hw) {
    icg_ = s.c / s.groups;
    ocg_ = s.oc / s.groups;
    total_units_ = s.groups == 1 ? s.oc : s.groups;
    proto_.int8 = s.elem == 1;
    proto_.alignment = a_;
    in_max_ = s.gemm ? field_max(isa::Opcode::Gemm, isa::Field::m) : field_max(isa::Opcode::Conv, isa::Field::in_h);
    col_max_ = field_max(isa::Opcode::Conv, isa::Field::in_w);
    chan_max_ = s.gemm ? field_max(isa::Opcode::Gemm, isa::Field::k) : field_max(isa::Opcode::Conv, isa::Field::in_c);
    out_max_ = s.gemm ? field_max(isa::Opcode::Gemm, isa::Field::n) : field_max(isa::Opcode::Conv, isa::Field::out_c);
    count_max_ = field_max(isa::Opcode::Requantize, isa::Field::count);
    if (hw_) {
      dma_.emplace(*hw_);
      mac_.emplace(*hw_);
      flexible_ = cost::flexible_mapping(hw_->mac_array);
    }
  }

  std::optional<TilePlan> plan();
  std::uint64_t smallest_need() const { return need(1, 1, 1, {s_.groups == 1 ? 1 : icg_, false}); }

 private:
  std::int64_t in_rows(std::int64_t rows) const { return std::min(s_.h, (rows - 1) * s_.sh + (s_.kh - 1) * s_.dh + 1); }
  std::int64_t in_cols(std::int64_t cols) const {
    return cols == s_.ow ? s_.w : std::min(s_.w, (cols - 1) * s_.sw + (s_.kw - 1) * s_.dw + 1);
  }
  std::int64_t chunk_oc(std::int64_t u) const { return s_.groups == 1 ? u : u * ocg_; }
  std::int64_t widest_part() const {
    std::int64_t c = 0;
    for (const auto& p : s_.parts) c = std::max(c, p.c);
    return c;
  }
  std::int64_t chunk_in(std::int64_t u, Reduction r) const {
    return s_.groups != 1 ? u * icg_ : r.parts ? widest_part() : r.kernel_rows ? s_.c : r.channels;
  }
  std::int64_t slices(Reduction r) const {
    if (r.parts) return static_cast<std::int64_t>(s_.parts.size());
    return s_.groups != 1 ? 1 : r.kernel_rows ? s_.kh : ceil_div(s_.c, r.channels);
  }
  // Input rows one slice of a tile of `rows` output rows reads.
  std::int64_t slice_rows(std::int64_t rows, Reduction r) const {
    return r.kernel_rows ? std::min(s_.h, (rows - 1) * s_.sh + 1) : in_rows(rows);
  }
  // The reduction length of one slice's gemm (per group).
  std::int64_t slice_k(Reduction r, std::int64_t channels) const {
    return s_.groups != 1 ? s_.kh * s_.kw * icg_ : r.kernel_rows ? s_.kw * s_.c : s_.kh * s_.kw * channels;
  }
  std::uint64_t weight_bytes(std::int64_t u, Reduction r) const {
    if (s_.groups != 1) return static_cast<std::uint64_t>(s_.kh * s_.kw * u * icg_ * ocg_ * s_.elem);
    return weight_block_bytes(s_.weights, slice_k(r, r.parts ? widest_part() : r.channels), u, s_.elem, a_);
  }
  // Weight-only int4: a reduction slice must start on a group of rows (its own scale rows).
  std::int64_t group_aligned(std::int64_t channels) const {
    const auto g = static_cast<std::int64_t>(s_.weights.group);
    if (s_.weights.format != isa::WeightFormat::Int4 || g == 0) return channels;
    return ceil_div(channels, g) * g;
  }
  // A weight slot: the block as loaded, padded (kWeightBlockAlign) and at the region's alignment.
  std::uint64_t weight_slot(std::int64_t u, Reduction r) const {
    return align_up(weight_bytes(u, r), std::max<std::uint64_t>(a_, kWeightBlockAlign));
  }
  std::uint64_t params_bytes(std::int64_t u) const { return proto_.params_per_chunk(chunk_oc(u)); }
  struct Counts {
    std::int64_t chunks, spatial, tiles, slices;
  };
  Counts counts(std::int64_t u, std::int64_t rows, std::int64_t cols, Reduction cs) const {
    Counts c;
    c.chunks = ceil_div(total_units_, u);
    c.spatial = ceil_div(s_.oh, rows) * ceil_div(s_.ow, cols);
    c.tiles = c.chunks * c.spatial;
    c.slices = slices(cs);
    return c;
  }
  // Region bytes a plan needs: every slot that is refilled while in use is doubled.
  std::uint64_t need(std::int64_t u, std::int64_t rows, std::int64_t cols, Reduction cs) const {
    const Counts n = counts(u, rows, cols, cs);
    auto times = [](bool refilled) -> std::uint64_t { return refilled ? 2 : 1; };
    const std::uint64_t out_tile = align_up(static_cast<std::uint64_t>(rows * cols * chunk_oc(u) * s_.elem), a_);
    std::uint64_t b = times(n.chunks > 1) * params_bytes(u) + (s_.lut ? align_up(256, a_) : 0);
    b += times(n.chunks > 1 || n.slices > 1) * weight_slot(u, cs);
    if (!s_.input_resident)
      b += times(n.spatial > 1 || n.slices > 1 || (s_.groups > 1 && n.chunks > 1)) *
           align_up(static_cast<std::uint64_t>(slice_rows(rows, cs) * in_cols(cols) * chunk_in(u, cs) * s_.elem), a_);
    b += times(n.tiles > 1) * align_up(static_cast<std::uint64_t>(rows * cols * chunk_oc(u) * 4), a_);
    if (!s_.output_resident) b += times(n.tiles > 1) * out_tile;
    if (s_.residual && !s_.residual_resident) b += times(n.tiles > 1) * out_tile;
    return b;
  }
  // The fewest output rows whose multiples start every band of a resident tensor on an aligned
  // address (1 when their rows are aligned): a band of r rows moves the output r rows on and
  // the input r x stride rows.
  std::int64_t row_granule() const {
    const auto rows_for = [&](std::int64_t row_bytes) {
      return static_cast<std::int64_t>(a_ / std::gcd(static_cast<std::uint64_t>(row_bytes), a_));
    };
    std::int64_t g = 1;
    if (s_.output_resident || s_.residual_resident) g = std::lcm(g, rows_for(s_.ow * s_.oc * s_.elem));
    if (s_.input_resident) g = std::lcm(g, rows_for(s_.sh * s_.w * s_.c * s_.elem));
    for (const auto& p : s_.parts)
      if (p.resident) g = std::lcm(g, rows_for(s_.sh * s_.w * p.c * s_.elem));
    return g;
  }
  bool reads_resident() const {
    return s_.input_resident || std::any_of(s_.parts.begin(), s_.parts.end(), [](const auto& p) { return p.resident; });
  }
  bool legal(std::int64_t u, std::int64_t rows, std::int64_t cols, Reduction cs) const {
    if (in_rows(rows) > in_max_ || in_cols(cols) > col_max_) return false;
    if (chunk_in(u, cs) > chan_max_ || chunk_oc(u) > out_max_) return false;
    if (rows * cols * chunk_oc(u) > count_max_) return false;
    const Counts n = counts(u, rows, cols, cs);
    // A resident input is read in place: whole rows, and a channel slice (reduction slices,
    // group chunks) only from an aligned channel offset (the conv's in_stride skips the rest).
    // (A gemm reads its A rows contiguously: no slice of a resident input.)
    const auto aligned_channels = [&](std::int64_t c) {
      return !s_.gemm && static_cast<std::uint64_t>(c * s_.elem) % a_ == 0;
    };
    if (s_.input_resident &&
        (cols != s_.ow || (n.slices > 1 && !cs.kernel_rows && !aligned_channels(cs.channels)) ||
         (s_.groups > 1 && n.chunks > 1 && !aligned_channels(u * icg_))))
      return false;
    if ((s_.output_resident || s_.residual_resident) && (n.chunks > 1 || cols != s_.ow)) return false;
    // Every operand address is a multiple of the alignment: each band of a resident tensor
    // (and each kernel-row slice of one) must start on one. Rows need not be aligned
    // themselves: a 35-pixel row of 192 channels (6720 B) starts every second band row on 128 B,
    // so bands of an even number of rows of a 1x1 or unpadded conv do.
    const auto bands_aligned = [&](std::uint64_t row_bytes) {
      if (row_bytes % a_ == 0) return true;
      for (std::int64_t r0 = 0; r0 < s_.oh; r0 += rows)
        for (std::int64_t k = 0; k < (cs.kernel_rows ? s_.kh : 1); ++k) {
          const std::int64_t first = std::max<std::int64_t>(0, r0 * s_.sh - s_.pad_top + (cs.kernel_rows ? k * s_.dh : 0));
          if (static_cast<std::uint64_t>(first) * row_bytes % a_ != 0) return false;
        }
      return true;
    };
    if (s_.input_resident && (n.spatial > 1 || n.slices > 1) && !bands_aligned(static_cast<std::uint64_t>(s_.w * s_.c * s_.elem)))
      return false;
    for (const auto& p : s_.parts)
      if (p.resident && (cols != s_.ow || (n.spatial > 1 && !bands_aligned(static_cast<std::uint64_t>(s_.w * p.c * s_.elem)))))
        return false;
    // A kernel-row slice needs at least one real input row in every band (an all-padding
    // slice still adds pad_value x weights, but no instruction can read no rows).
    if (cs.kernel_rows)
      for (std::int64_t r0 = 0; r0 < s_.oh; r0 += rows) {
        const std::int64_t last = std::min(s_.oh, r0 + rows) - 1;
        for (std::int64_t k = 0; k < s_.kh; ++k) {
          const std::int64_t first_in = r0 * s_.sh - s_.pad_top + k * s_.dh, last_in = last * s_.sh - s_.pad_top + k * s_.dh;
          if (last_in < 0 || first_in >= s_.h) return false;
        }
      }
    if ((s_.output_resident || s_.residual_resident) && n.spatial > 1 &&
        static_cast<std::uint64_t>(rows * s_.ow * s_.oc * s_.elem) % a_ != 0)
      return false;
    return need(u, rows, cols, cs) <= sram_;
  }
  // Memoised: the candidates of one plan() ask for the same few tile shapes again and again
  // (most of a sweep point's compile was spent here).
  cost::ArrayMapping mapping_for(std::int64_t cu, std::int64_t m, std::int64_t k, double* cycles) const {
    const std::array<std::int64_t, 3> key{cu, m, k};
    // Consecutive tiles mostly share a shape. Compared field by field: std::array's == calls
    // memcmp, which took a tenth of a ResNet-50 compile.
    if (last_mapping_ != mappings_.end() && last_mapping_->first[0] == cu && last_mapping_->first[1] == m &&
        last_mapping_->first[2] == k) {
      if (cycles) *cycles = last_mapping_->second.second;
      return last_mapping_->second.first;
    }
    auto [it, fresh] = mappings_.try_emplace(key);
    last_mapping_ = it;
    if (fresh) {
      const bool fp16 = s_.elem == 2;
      it->second.first = s_.groups == 1
                             ? fastest(*mac_, flexible_, 1, m, cu, k, fp16, false, &it->second.second, s_.weights.format)
                             : fastest(*mac_, flexible_, cu, m, ocg_, s_.kh * s_.kw * icg_, fp16, s_.depthwise(),
                                       &it->second.second);
    }
    if (cycles) *cycles = it->second.second;
    return it->second.first;
  }
  bool estimate(const Candidate& shape, double bound, Candidate& out);
  std::optional<TilePlan> plan_in_order(const WeightLoadOrder& order);
  void score(const Candidate& c, std::vector<Candidate>& all, double& fastest);
  static const Candidate& pick(const std::vector<Candidate>& all, double fastest);
  void enumerate(Reduction cs, bool all_units, std::vector<Candidate>& all, double& fastest);
  TilePlan build(const Candidate& best) const;

  const ConvShape& s_;
  std::uint64_t sram_, a_;
  const HardwareConfig* hw_;
  std::optional<cost::DmaEstimate> dma_;
  std::optional<cost::MacArrayCost> mac_;
  bool flexible_ = false;
  std::int64_t icg_ = 1, ocg_ = 1, total_units_ = 1;
  std::int64_t in_max_ = 0, col_max_ = 0, chan_max_ = 0, out_max_ = 0, count_max_ = 0;
  SramLayout proto_;
  std::vector<cost::TileStageCycles> stages_;
  using Mappings = std::map<std::array<std::int64_t, 3>, std::pair<cost::ArrayMapping, double>>;
  mutable Mappings mappings_;
  mutable Mappings::const_iterator last_mapping_ = mappings_.end();
};

// Walks the tiles in issue order, costing what codegen will emit for each. A tile whose
// reduction is split is one pipeline step per slice (each slice's loads go to the other
// buffer while the previous slice computes); its epilogue and store follow the last.
bool ConvTiler::estimate(const Candidate& c, double bound, Candidate& out) {
  const Counts n = counts(c.units, c.rows, c.cols, c.red);
  const std::int64_t col_tiles = ceil_div(s_.ow, c.cols);
  auto tile_at = [&](std::int64_t i, std::int64_t& chunk, std::int64_t& spatial) {
    chunk = c.rows_outer ? i % n.chunks : i / n.spatial;
    spatial = c.rows_outer ? i / n.chunks : i % n.spatial;
  };
  auto slice_channels = [&](std::int64_t k) {
    if (c.red.parts) return s_.parts[static_cast<std::size_t>(k)].c;
    return c.red.kernel_rows || s_.groups != 1 ? c.red.channels : std::min(c.red.channels, s_.c - k * c.red.channels);
  };
  out = c;
  // The array alone bounds the layer from below: skip plans that cannot beat the best so far.
  stages_.assign(static_cast<std::size_t>(n.tiles * n.slices), {});
  double compute = 0;
  if (hw_) {
    for (std::int64_t i = 0; i < n.tiles; ++i) {
      std::int64_t chunk, sp;
      tile_at(i, chunk, sp);
      const std::int64_t r = std::min(c.rows, s_.oh - sp / col_tiles * c.rows);
      const std::int64_t w = std::min(c.cols, s_.ow - sp % col_tiles * c.cols);
      const std::int64_t cu = std::min(c.units, total_units_ - chunk * c.units);
      for (std::int64_t k = 0; k < n.slices; ++k) {
        double one = 0;
        mapping_for(cu, r * w, slice_k(c.red, slice_channels(k)), &one);
        stages_[static_cast<std::size_t>(i * n.slices + k)].compute = one;
        compute += one;
      }
    }
    if (bound > 0 && compute > bound) return false;
  }
  double bus = 0, requested = 0;
  auto load_window = [&](double& cycles, std::int64_t r0, std::int64_t rows, std::int64_t c0, std::int64_t cols,
                         std::int64_t width, std::int64_t channels, std::int64_t ch0, std::int64_t count) {
    const DmaBox b = window_box(0, 0, r0, rows, c0, cols, width, channels, ch0, count, s_.elem);
    requested += static_cast<double>(rows * cols * count * s_.elem);
    if (dma_) dma_->box(b.run_bytes, b.runs, b.reps, b.ddr_stride, b.ddr_rep_stride, b.ddr_addr, cycles, bus);
  };
  auto load_linear = [&](double& cycles, std::uint64_t bytes) {
    requested += static_cast<double>(bytes);
    if (dma_) dma_->linear(bytes, cycles, bus);
  };
  std::int64_t last_chunk = -1, last_spatial = -1;
  for (std::int64_t i = 0; i < n.tiles; ++i) {
    std::int64_t chunk, sp;
    tile_at(i, chunk, sp);
    cost::TileStageCycles& first = stages_[static_cast<std::size_t>(i * n.slices)];
    cost::TileStageCycles& last = stages_[static_cast<std::size_t>(i * n.slices + n.slices - 1)];
    const std::int64_t row0 = sp / col_tiles * c.rows, col0 = sp % col_tiles * c.cols;
    const std::int64_t r = std::min(c.rows, s_.oh - row0), w = std::min(c.cols, s_.ow - col0);
    const std::int64_t fu = chunk * c.units, cu = std::min(c.units, total_units_ - fu), coc = chunk_oc(cu);
    const std::int64_t first_oc = s_.groups == 1 ? fu : fu * ocg_;
    if (i == 0 && s_.lut) load_linear(first.load, 256);
    if (chunk != last_chunk) {
      load_linear(first.load, params_bytes(cu));
      if (n.slices == 1) load_linear(first.load, align_up(weight_bytes(cu, c.red), kWeightBlockAlign));
    }
    // Whole-width tiles read whole input rows (as codegen does).
    const std::int64_t cstart = w == s_.ow ? 0 : col0 * s_.sw - s_.pad_left;
    const std::int64_t cend = w == s_.ow ? s_.w - 1 : (col0 + w - 1) * s_.sw - s_.pad_left + s_.dw * (s_.kw - 1);
    const std::int64_t iw0 = std::max<std::int64_t>(0, cstart), iw1 = std::max(iw0 + 1, std::min(s_.w - 1, cend) + 1);
    const std::int64_t cin0 = s_.groups == 1 ? 0 : fu * icg_;
    auto rows_of = [&](std::int64_t k, std::int64_t& ih0, std::int64_t& ih1) {
      const std::int64_t start = row0 * s_.sh - s_.pad_top + (c.red.kernel_rows ? k * s_.dh : 0);
      const std::int64_t end = c.red.kernel_rows ? start + (r - 1) * s_.sh : start + (r - 1) * s_.sh + s_.dh * (s_.kh - 1);
      ih0 = std::max<std::int64_t>(0, start);
      ih1 = std::max(ih0 + 1, std::min(s_.h - 1, end) + 1);
    };
    if (n.slices > 1) {
      for (std::int64_t k = 0; k < n.slices; ++k) {
        cost::TileStageCycles& st = stages_[static_cast<std::size_t>(i * n.slices + k)];
        load_linear(st.load, align_up(weight_block_bytes(s_.weights, slice_k(c.red, slice_channels(k)), cu, s_.elem, a_), 64));
        if (c.red.parts) {
          if (!s_.parts[static_cast<std::size_t>(k)].resident) {
            std::int64_t ih0, ih1;
            rows_of(k, ih0, ih1);
            load_window(st.load, ih0, ih1 - ih0, iw0, iw1 - iw0, s_.w, slice_channels(k), 0, slice_channels(k));
          }
        } else if (!s_.input_resident) {
          std::int64_t ih0, ih1;
          rows_of(k, ih0, ih1);
          load_window(st.load, ih0, ih1 - ih0, iw0, iw1 - iw0, s_.w, s_.c, c.red.kernel_rows ? 0 : k * c.red.channels,
                      c.red.kernel_rows ? s_.c : slice_channels(k));
        }
      }
    } else if (!s_.input_resident && (sp != last_spatial || s_.groups != 1)) {
      std::int64_t ih0, ih1;
      rows_of(0, ih0, ih1);
      load_window(first.load, ih0, ih1 - ih0, iw0, iw1 - iw0, s_.w, s_.c, cin0, chunk_in(cu, c.red));
    }
    last_chunk = chunk;
    last_spatial = sp;
    if (s_.residual && !s_.residual_resident) load_window(first.load, row0, r, col0, w, s_.ow, s_.oc, first_oc, coc);
    if (hw_) {
      const auto count = static_cast<std::uint64_t>(r * w * coc);
      for (isa::Opcode op : s_.epilogue) {
        if (isa::opcode_info(op).unit == isa::Unit::Compute) last.compute += static_cast<double>(mac_->drain_cycles());
        else last.vector += static_cast<double>(cost::vector_cycles(op, count, hw_->vector));
      }
    }
    if (s_.output_stored) load_window(last.store, row0, r, col0, w, s_.ow, s_.out_pixel_elems(), first_oc, coc);
  }
  out.ddr = static_cast<std::uint64_t>(requested);
  out.bus = bus;
  out.sram = need(c.units, c.rows, c.cols, c.red);
  if (!hw_) {
    // Each tile costs a few DMA descriptors and a pipeline fill: count it as 2 KiB of traffic.
    out.cycles = requested + 2048.0 * static_cast<double>(n.tiles * n.slices);
    return true;
  }
  const bool shared = hw_->dma.channels < 2;
  const double ddr_bound = dma_->ideal() ? 0.0 : bus / dma_->bytes_per_cycle() + dma_->latency_cycles();
  out.cycles = std::max(cost::tile_pipeline_cycles(stages_, s_.residual && !s_.residual_resident, shared), ddr_bound);
  return true;
}

void ConvTiler::enumerate(Reduction cs, bool all_units, std::vector<Candidate>& all, double& fastest) {
  // Chunk sizes: halvings of the layer, whole multiples of the array's output-channel side,
  // and even splits of the layer (and those rounded up to that side).
  const std::int64_t side =
      hw_ ? std::max(1, hw_->mac_array.dataflow == Dataflow::InputStationary ? 1 : hw_->mac_array.cols) : 1;
  std::vector<std::int64_t> units;
  const bool whole = all_units || s_.output_resident || s_.residual_resident || (s_.input_resident && s_.groups > 1);
  if (whole) {
    units.push_back(total_units_);
  } else {
    for (std::int64_t u = total_units_; u >= 1; u = (u + 1) / 2) {
      units.push_back(u);
      if (u == 1) break;
    }
    if (hw_)
      for (std::int64_t u = side; u < total_units_ && u <= 16 * side; u += side) units.push_back(u);
    for (std::int64_t j = 1; j <= 16 && j <= total_units_; ++j) {
      std::int64_t u = ceil_div(total_units_, j);
      units.push_back(u);
      if (hw_) units.push_back(std::min(total_units_, ceil_div(u, side) * side));
    }
  }
  std::sort(units.begin(), units.end(), std::greater<>());  // few large tiles first
  units.erase(std::unique(units.begin(), units.end()), units.end());
  for (std::int64_t u : units) {
    // Whole output rows when one fits, else the widest column band that does.
    // Bands of a multiple of `g` rows start aligned in resident tensors (row_granule()).
    const std::int64_t g = row_granule();
    const auto granular = [&](std::int64_t rows) { return std::min(s_.oh, ceil_div(rows, g) * g); };
    std::int64_t cols = s_.ow;
    // One band of every row may be the only legal tiling of a resident input: a padded conv's
    // bands of one whose rows are not aligned start a pad row above an aligned row
    // (Inception-v3's 5x5 over 35x35x48), so no band of `g` rows is legal at any width, but the
    // whole image is. (Only there, g > 1: elsewhere the estimate's one-band plans simulated
    // slower, ResNet-50 +2.4 % on snapdragon-8-elite-htp-fitted.)
    if (!legal(u, granular(1), cols, cs) && !(g > 1 && reads_resident() && legal(u, s_.oh, cols, cs))) {
      std::int64_t lo = 0, hi = s_.ow - 1;
      while (lo < hi) {
        const std::int64_t mid = (lo + hi + 1) / 2;
        if (legal(u, granular(1), mid, cs)) lo = mid;
        else hi = mid - 1;
      }
      if (lo == 0) continue;
      cols = ceil_div(s_.ow, ceil_div(s_.ow, lo));  // even bands
    }
    std::int64_t lo = 1, hi = ceil_div(s_.oh, g);  // largest rows that fit, in granules
    while (lo < hi) {
      const std::int64_t mid = (lo + hi + 1) / 2;
      if (legal(u, granular(mid * g), cols, cs)) lo = mid;
      else hi = mid - 1;
    }
    lo = granular(lo * g);
    // (need() is not monotone in rows: one band needs no second input buffer, so try it too.)
    if (lo < s_.oh && legal(u, s_.oh, cols, cs)) lo = s_.oh;
    const std::int64_t nr = ceil_div(s_.oh, lo);
    std::vector<std::int64_t> row_options;
    for (std::int64_t j : {nr, nr + 1, 2 * nr, 4 * nr})
      if (j <= s_.oh) row_options.push_back(granular(ceil_div(s_.oh, j)));
    std::sort(row_options.begin(), row_options.end());
    row_options.erase(std::unique(row_options.begin(), row_options.end()), row_options.end());
    for (std::int64_t rows : row_options) {
      if (!legal(u, rows, cols, cs)) continue;
      const Counts n = counts(u, rows, cols, cs);
      if (n.tiles * n.slices > 1024 && !all.empty()) continue;  // bounds compile time; such plans are slow anyway
      for (bool rows_outer : {false, true}) {
        if (rows_outer && (n.chunks == 1 || n.spatial == 1)) continue;  // same order
        score({u, rows, cols, cs, rows_outer}, all, fastest);
      }
    }
  }
}

// Adds the tiling to `all` unless the array alone makes it slower than the fastest so far.
void ConvTiler::score(const Candidate& c, std::vector<Candidate>& all, double& fastest) {
  Candidate scored;
  if (!estimate(c, fastest * kNearFastest, scored)) return;
  if (fastest < 0 || scored.cycles < fastest) fastest = scored.cycles;
  all.push_back(scored);
}

// The fastest plan that loads the weight blocks of `order` in its order: the same chunks and
// reduction slices, and as many tiles per chunk where each tile loads them again.
std::optional<TilePlan> ConvTiler::plan_in_order(const WeightLoadOrder& order) {
  if (order.units < 1 || order.units > total_units_ || (order.k_slice > 0 && s_.groups != 1)) return std::nullopt;
  Reduction red{s_.groups == 1 ? s_.c : icg_, false};
  if (order.kernel_rows) red = {s_.c, true};
  else if (order.k_slice > 0) red = {order.k_slice, false};
  std::vector<Candidate> all;
  double fastest = -1;
  std::int64_t previous_tiles = 0;
  for (std::int64_t rows = s_.oh; rows >= 1; --rows) {
    const std::int64_t row_tiles = ceil_div(s_.oh, rows);
    if (row_tiles == previous_tiles) continue;  // the same bands as a taller tile
    previous_tiles = row_tiles;
    for (std::int64_t j = 1; j <= 8 && j <= s_.ow; ++j) {
      const std::int64_t cols = ceil_div(s_.ow, j);
      if (j > 1 && ceil_div(s_.ow, cols) != j) continue;
      if (!legal(order.units, rows, cols, red)) continue;
      const Counts n = counts(order.units, rows, cols, red);
      const bool outer = order.rows_outer && n.chunks > 1 && n.spatial > 1;
      const bool reloads = n.slices > 1 || (outer && n.chunks > 1);
      if (order.tiles_per_chunk == 0 ? reloads : n.spatial != order.tiles_per_chunk) continue;
      score({order.units, rows, cols, red, outer}, all, fastest);
    }
  }
  if (all.empty()) return std::nullopt;
  return build(pick(all, fastest));
}

std::optional<TilePlan> ConvTiler::plan() {
  if (s_.weight_order && s_.parts.empty()) {
    if (auto ordered = plan_in_order(*s_.weight_order)) return ordered;
    if (s_.weight_order->strict) return std::nullopt;
  }
  std::vector<Candidate> all;
  double fastest = -1;
  if (!s_.parts.empty()) {  // the reduction follows the parts
    enumerate({0, false, true}, false, all, fastest);
    if (all.empty()) return std::nullopt;
    const Candidate* best = nullptr;
    for (const auto& c : all)
      if (c.cycles <= fastest * kNearFastest && (!best || c.bus < best->bus || (c.bus == best->bus && c.sram < best->sram))) best = &c;
    return build(*best);
  }
  const Reduction whole{s_.groups == 1 ? s_.c : icg_, false};
  enumerate(whole, false, all, fastest);
  const std::int64_t step = std::max<std::int64_t>(1, 64 / s_.elem);
  if (hw_ && s_.groups == 1) {
    // A split reduction keeps every output channel in one tile while the weights stream in
    // slices: better than output-channel chunks when those would each pay the array's fill
    // again (few output pixels, swapped mapping). Kernel rows also work on a resident input
    // (each slice reads whole rows of all channels); channel slices need it in DDR.
    if (s_.kh > 1) enumerate({s_.c, true}, true, all, fastest);
    // Slices of whole 16-byte runs (the DMA moves each slice's pixels as runs); read in place
    // from a resident input, of whole alignment units.
    const std::int64_t fine =
        std::max<std::int64_t>(1, (s_.input_resident ? static_cast<std::int64_t>(a_) : 16) / s_.elem);
    std::int64_t previous = s_.c;
    for (std::int64_t parts = 2; parts <= 32; parts *= 2) {
      const std::int64_t cs = group_aligned(ceil_div(ceil_div(s_.c, parts), fine) * fine);
      if (cs >= previous || cs < fine) continue;
      // All output channels in one tile; or, when that does not fit, chunks of them too (a
      // small scratchpad: both the weights and the accumulators must shrink).
      const std::size_t before = all.size();
      enumerate({cs, false}, true, all, fastest);
      if (all.size() == before) enumerate({cs, false}, false, all, fastest);
      previous = cs;
    }
  }
  if (all.empty() && s_.groups == 1) {
    // Nothing fits otherwise: even splits of the channels, rounded up to whole 64-byte runs
    // when that still splits them (so every slice starts DMA-aligned within a pixel); the
    // widest that fits, and two narrower ones.
    std::int64_t widest = 0;
    for (std::int64_t ns = 2; ns <= s_.c && widest == 0; ++ns) {
      std::int64_t cs = ceil_div(s_.c, ns);
      const std::int64_t r = ceil_div(cs, step) * step;
      if (r < s_.c && ceil_div(s_.c, r) == ns) cs = r;
      cs = group_aligned(cs);
      if (cs < s_.c && legal(1, 1, 1, {cs, false})) widest = cs;
    }
    if (widest > 0) {
      std::vector<std::int64_t> options = {widest};
      for (std::int64_t cs = widest / 2; cs >= 1 && options.size() < 3; cs /= 2) {
        const std::int64_t rounded = cs >= step ? cs / step * step : cs;
        if (group_aligned(rounded) == rounded) options.push_back(rounded);
      }
      for (std::int64_t cs : options) enumerate({cs, false}, false, all, fastest);
    }
  }
  if (all.empty()) return std::nullopt;
  return build(pick(all, fastest));
}

// Among the plans within kNearFastest of the fastest: the fewest DDR bus bytes, then the least
// scratchpad, then the fastest.
const Candidate& ConvTiler::pick(const std::vector<Candidate>& all, double fastest) {
  const Candidate* best = nullptr;
  for (const auto& c : all) {
    if (c.cycles > fastest * kNearFastest) continue;
    if (!best || c.bus < best->bus || (c.bus == best->bus && (c.sram < best->sram || (c.sram == best->sram && c.cycles < best->cycles))))
      best = &c;
  }
  return *best;
}

TilePlan ConvTiler::build(const Candidate& best) const {
  TilePlan plan;
  plan.rows_outer = best.rows_outer;
  plan.ddr_bytes = best.ddr;
  plan.bus_bytes = best.bus;
  plan.est_cycles = hw_ ? best.cycles : 0;
  plan.k_slices = slices(best.red);
  plan.k_slice = plan.k_slices > 1 && !best.red.kernel_rows ? best.red.channels : 0;
  plan.kernel_rows = plan.k_slices > 1 && best.red.kernel_rows;
  plan.input_parts = best.red.parts;
  if (best.red.parts) plan.k_slice = 0;
  for (std::int64_t u0 = 0; u0 < total_units_; u0 += best.units) {
    TileChunk c;
    c.first_unit = u0;
    c.units = std::min(best.units, total_units_ - u0);
    c.first_oc = s_.groups == 1 ? u0 : u0 * ocg_;
    c.oc = chunk_oc(c.units);
    plan.chunks.push_back(c);
  }
  std::vector<ConvTile> spatial;
  for (std::int64_t r = 0; r < s_.oh; r += best.rows)
    for (std::int64_t c = 0; c < s_.ow; c += best.cols)
      spatial.push_back({0, r, std::min(best.rows, s_.oh - r), c, std::min(best.cols, s_.ow - c), {}});
  auto add = [&](std::size_t chunk, ConvTile t) {
    t.chunk = static_cast<std::int64_t>(chunk);
    if (hw_) {
      t.mapping = mapping_for(plan.chunks[chunk].units, t.rows * t.cols,
                              slice_k(best.red, best.red.parts ? widest_part() : best.red.channels), nullptr);
    }
    plan.tiles.push_back(t);
  };
  if (best.rows_outer) {
    for (const auto& t : spatial)
      for (std::size_t c = 0; c < plan.chunks.size(); ++c) add(c, t);
  } else {
    for (std::size_t c = 0; c < plan.chunks.size(); ++c)
      for (const auto& t : spatial) add(c, t);
  }
  // Slots, in the order need() counted them, each only when the plan uses it.
  const Counts n = counts(best.units, best.rows, best.cols, best.red);
  SramLayout& m = plan.sram;
  m = proto_;
  std::uint64_t at = 0;
  using Slots = SramLayout::Slots SramLayout::*;
  struct Taken {
    Slots slots;
    int count;            // distinct slots
    std::uint64_t bytes;  // of each
  };
  std::vector<Taken> taken;
  auto take = [&](std::uint64_t bytes, Slots slots, int count, BufferRole role) {
    const std::uint64_t each = align_up(std::max<std::uint64_t>(bytes, 1), a_);
    m.used.push_back({role, each, count});
    SramLayout::Slots& slot = m.*slots;
    for (int i = 0; i < kMaxTileSlots; ++i) {
      slot[i] = i < count ? at : slot[i % count];
      if (i < count) at += each;
    }
    taken.push_back({slots, count, each});
  };
  auto slots = [](bool refilled) { return refilled ? 2 : 1; };
  const std::int64_t u = best.units, r = best.rows, w = best.cols, coc = chunk_oc(u);
  const auto out_tile = static_cast<std::uint64_t>(r * w * coc * s_.elem);
  take(params_bytes(u), &SramLayout::params, slots(n.chunks > 1), BufferRole::Params);
  if (s_.lut) {
    m.lut = at;
    at += align_up(256, a_);
  }
  const bool weights_refilled = n.chunks > 1 || n.slices > 1;
  take(weight_slot(u, best.red), &SramLayout::weights, slots(weights_refilled), BufferRole::Weights);
  const std::int64_t weight_loads = n.slices > 1 ? n.tiles * n.slices : best.rows_outer && n.chunks > 1 ? n.tiles : n.chunks;
  if (weights_refilled && weight_loads > 2) plan.weight_slot_bytes = taken.back().bytes;
  if (!s_.input_resident)
    take(static_cast<std::uint64_t>(slice_rows(r, best.red) * in_cols(w) * chunk_in(u, best.red) * s_.elem),
         &SramLayout::input, slots(n.spatial > 1 || n.slices > 1 || (s_.groups > 1 && n.chunks > 1)), BufferRole::Input);
  take(static_cast<std::uint64_t>(r * w * coc * 4), &SramLayout::acc, slots(n.tiles > 1), BufferRole::Accumulator);
  if (!s_.output_resident) take(out_tile, &SramLayout::output, slots(n.tiles > 1), BufferRole::Output);
  if (s_.residual && !s_.residual_resident) take(out_tile, &SramLayout::residual, slots(n.tiles > 1), BufferRole::Residual);
  m.total = at;
  // The same slots from the top of the region down (see TilePlan::sram_top_down).
  SramLayout& top = plan.sram_top_down;
  top = m;
  for (const Taken& t : taken)
    for (int i = 0; i < kMaxTileSlots; ++i) (top.*t.slots)[i] = at - (m.*t.slots)[i] - t.bytes;
  if (s_.lut) top.lut = at - m.lut - align_up(256, a_);
  if (at > sram_) throw CompileError("internal: layer '" + s_.name + "' tile plan exceeds its scratchpad region");
  return plan;
}

}  // namespace

WeightLoadOrder weight_load_order(const TilePlan& plan) {
  WeightLoadOrder o;
  if (plan.chunks.empty()) return o;
  o.units = plan.chunks.front().units;
  o.k_slice = plan.k_slice;
  o.kernel_rows = plan.kernel_rows;
  o.rows_outer = plan.rows_outer && plan.chunks.size() > 1;
  if (plan.k_slices > 1 || o.rows_outer) o.tiles_per_chunk = static_cast<std::int64_t>(plan.tiles.size() / plan.chunks.size());
  return o;
}

std::uint64_t weight_block_bytes(const cost::WeightStorage& w, std::int64_t k, std::int64_t n, std::int64_t elem,
                                 std::uint64_t alignment, std::uint64_t* scale_offset) {
  const auto uk = static_cast<std::uint64_t>(k), un = static_cast<std::uint64_t>(n);
  const std::uint64_t values = w.value_bytes(uk, un, static_cast<std::uint64_t>(elem));
  if (!w.has_scales()) return values;
  const std::uint64_t at = align_up(values, alignment);
  if (scale_offset) *scale_offset = at;
  return at + w.scale_bytes(uk, un);
}

std::uint64_t SramLayout::params_per_chunk(std::int64_t oc) const {
  std::uint64_t b = align_up(static_cast<std::uint64_t>(4 * oc), alignment);
  if (int8) b += align_up(static_cast<std::uint64_t>(8 * oc), alignment);
  return b;
}

const SramLayout::Slots& SramLayout::slots_of(BufferRole role) const {
  switch (role) {
    case BufferRole::Params: return params;
    case BufferRole::Weights: return weights;
    case BufferRole::Input: return input;
    case BufferRole::Accumulator: return acc;
    case BufferRole::Output: return output;
    case BufferRole::Residual: return residual;
    default: throw std::logic_error("a conv tile plan has no such buffer");
  }
}

LayerMapping conv_layer_mapping(const ConvShape& s, const TilePlan& plan, const SramLayout& layout,
                                std::uint64_t region_base, Dataflow dataflow) {
  LayerMapping map;
  map.unit = TileUnit::Array;
  map.dataflow = dataflow;
  for (const auto& t : plan.tiles) {
    map.swapped_tiles += t.mapping.swap ? 1 : 0;
    map.depthwise |= t.mapping.depthwise;
  }
  const MappingLoop oc{LoopDim::OutChannels, s.oc, plan.chunks.empty() ? s.oc : plan.chunks.front().oc};
  std::int64_t rows = 1, cols = 1;
  for (const auto& t : plan.tiles) rows = std::max(rows, t.rows), cols = std::max(cols, t.cols);
  const MappingLoop r{LoopDim::Rows, s.oh, rows}, c{LoopDim::Cols, s.ow, cols};
  map.loops = plan.rows_outer ? std::vector<MappingLoop>{r, c, oc} : std::vector<MappingLoop>{oc, r, c};
  if (plan.k_slices > 1) {
    std::int64_t widest_part = 0;
    for (const auto& p : s.parts) widest_part = std::max(widest_part, p.c);
    map.loops.push_back(plan.kernel_rows    ? MappingLoop{LoopDim::Reduction, s.kh, 1}
                        : plan.input_parts ? MappingLoop{LoopDim::Reduction, s.c, widest_part}
                                           : MappingLoop{LoopDim::Reduction, s.c, plan.k_slice});
  }
  if (s.lut) map.buffers.push_back({BufferRole::Table, 0, {region_base + layout.lut}, align_up(256, layout.alignment)});
  for (const auto& use : layout.used) {
    MappingBuffer b{use.role, 0, {}, use.bytes};
    for (int i = 0; i < use.slots; ++i) b.slots.push_back(region_base + layout.slots_of(use.role)[i]);
    map.buffers.push_back(std::move(b));
  }
  map.region_base = region_base;
  map.region_bytes = layout.total;
  map.est_cycles = plan.est_cycles;
  return map;
}

cost::ArrayMapping fastest_mapping(const HardwareConfig& hw, std::int64_t groups, std::int64_t m, std::int64_t n,
                                   std::int64_t k, bool fp16, bool depthwise_possible, double* cycles) {
  return fastest(cost::MacArrayCost(hw), cost::flexible_mapping(hw.mac_array), groups, m, n, k, fp16,
                 depthwise_possible, cycles);
}

std::optional<TilePlan> with_third_weight_slot(const TilePlan& plan) {
  if (plan.weight_slot_bytes == 0 || plan.sram.weight_slots != 2) return std::nullopt;
  TilePlan p = plan;
  const std::uint64_t extra = plan.weight_slot_bytes;
  // Bottom up: the new slot above everything. Top down: below everything, the rest moved up.
  SramLayout& top = p.sram_top_down;
  for (auto* field : {&top.params, &top.weights, &top.input, &top.acc, &top.output, &top.residual})
    for (std::uint64_t& at : *field) at += extra;
  top.lut += extra;
  p.sram.weights[2] = plan.sram.total;
  top.weights[2] = 0;
  p.sram.weight_slots = top.weight_slots = 3;
  for (SramLayout* layout : {&p.sram, &top})
    for (auto& use : layout->used)
      if (use.role == BufferRole::Weights) use.slots = 3;
  p.sram.total = top.total = plan.sram.total + extra;
  return p;
}

namespace {

// Everything of a layer the tiler reads (all of ConvShape but its name) with the region's size
// and alignment, as bytes: layers of one shape in one place (ResNet's repeated blocks) then
// share one search.
std::string plan_key(const ConvShape& s, std::uint64_t sram_bytes, std::uint64_t alignment) {
  std::string key;
  const auto put = [&key](auto v) { key.append(reinterpret_cast<const char*>(&v), sizeof v); };
  for (std::int64_t v : {s.h, s.w, s.c, s.oc, s.oh, s.ow, s.kh, s.kw, s.sh, s.sw, s.dh, s.dw, s.groups, s.pad_top,
                         s.pad_left, s.elem, s.out_pixel})
    put(v);
  put(s.weights.format);
  put(s.weights.group);
  put(s.weights.scaled);
  for (bool b : {s.gemm, s.residual, s.lut, s.input_resident, s.residual_resident, s.output_resident, s.output_stored})
    put(b);
  put(sram_bytes);
  put(alignment);
  put(s.epilogue.size());
  for (isa::Opcode op : s.epilogue) put(op);
  put(s.parts.size());
  for (const auto& p : s.parts) {
    put(p.c);
    put(p.resident);
  }
  if (s.weight_order) {
    const WeightLoadOrder& o = *s.weight_order;
    for (std::int64_t v : {o.units, o.k_slice, o.tiles_per_chunk}) put(v);
    put(o.kernel_rows);
    put(o.rows_outer);
    put(o.strict);
  }
  return key;
}

// Plans per hardware config, per thread (a compile runs on one; a sweep's workers each compile
// on their own). Configs are compared by value, not address: a sweep edits one config in place
// between compiles. A few configs at once: a multi-engine compile prices its parts with a
// tiling config of its own besides the config itself.
struct PlanCache {
  struct Entry {
    std::optional<HardwareConfig> hw;  // nullopt: plans without a config
    std::map<std::string, std::optional<TilePlan>> plans;
  };
  std::vector<Entry> entries;  // most recently used first
};
constexpr std::size_t kCachedConfigs = 4;
constexpr std::size_t kCachedPlans = 4096;  // per config: a few models' layers; beyond that start afresh

const std::optional<TilePlan>& cached_plan(const ConvShape& s, std::uint64_t sram_bytes, std::uint64_t alignment,
                                           const HardwareConfig* hw) {
  thread_local PlanCache cache;
  auto& entries = cache.entries;
  auto same = std::find_if(entries.begin(), entries.end(), [&](const PlanCache::Entry& e) {
    return hw ? e.hw && *e.hw == *hw : !e.hw;
  });
  if (same == entries.end()) {
    if (entries.size() >= kCachedConfigs) entries.pop_back();
    PlanCache::Entry fresh;
    if (hw) fresh.hw = *hw;
    entries.insert(entries.begin(), std::move(fresh));
  } else if (same != entries.begin()) {
    std::rotate(entries.begin(), same, same + 1);
  }
  auto& plans = entries.front().plans;
  if (plans.size() >= kCachedPlans) plans.clear();
  auto [it, fresh] = plans.try_emplace(plan_key(s, sram_bytes, alignment));
  if (fresh) {
    try {
      it->second = ConvTiler(s, sram_bytes, alignment, hw).plan();
    } catch (...) {
      plans.erase(it);
      throw;
    }
  }
  return it->second;
}

}  // namespace

std::optional<TilePlan> try_plan_conv_tiles(const ConvShape& s, std::uint64_t sram_bytes, std::uint64_t alignment,
                                            const HardwareConfig* hw) {
  return cached_plan(s, sram_bytes, alignment, hw);
}

TilePlan plan_conv_tiles(const ConvShape& s, std::uint64_t sram_bytes, std::uint64_t alignment, const HardwareConfig* hw) {
  if (const auto& p = cached_plan(s, sram_bytes, alignment, hw)) return *p;
  ConvTiler tiler(s, sram_bytes, alignment, hw);
  throw CompileError("layer '" + s.name + "': the smallest tile (1 output pixel, " +
                     (s.groups == 1 ? std::string("1 output channel, 1 input channel") : "1 group") + ") needs " +
                     std::to_string(tiler.smallest_need()) + " bytes of SRAM; the scratchpad region has " +
                     std::to_string(sram_bytes));
}

}  // namespace npu::compiler
