// The strided-copy engine behind every data-movement op (see codegen_move.h).
#include "compiler/backend/codegen_move.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "compiler/backend/instruction_stream.h"

namespace npu::compiler {
namespace {

// One strided level of a DMA transfer, outermost first; strides in bytes.
struct Level {
  std::int64_t count = 1, ddr_stride = 0, sram_stride = 0;
};

[[noreturn]] void internal(const Node& n, const std::string& what) {
  throw CompileError("layer '" + n.name + "' (" + n.op_type + "): " + what);
}

// Loads or stores `levels` x `run` bytes, as few instructions as the fields allow: contiguous
// levels fold into the run, a level beyond the instruction's three is a loop here; the box of
// the last three is split as every DMA box is (emit_dma, cost::split_dma_box).
void emit_levels(std::vector<Instruction>& out, Opcode op, std::uint64_t ddr, std::uint64_t sram, std::int64_t run,
                 std::vector<Level> levels, std::uint64_t alignment, const Node& n) {
  levels.erase(std::remove_if(levels.begin(), levels.end(), [](const Level& l) { return l.count == 1; }), levels.end());
  while (!levels.empty() && levels.back().ddr_stride == run && levels.back().sram_stride == run &&
         static_cast<std::uint64_t>(run * levels.back().count) <= kDmaLen0Max) {
    run *= levels.back().count;
    levels.pop_back();
  }
  for (std::size_t i = levels.size(); i-- > 1;) {  // merge a level into the one inside it
    Level& outer = levels[i - 1];
    const Level& inner = levels[i];
    if (outer.ddr_stride == inner.ddr_stride * inner.count && outer.sram_stride == inner.sram_stride * inner.count &&
        static_cast<std::uint64_t>(outer.count * inner.count) <= kDmaCountMax) {
      Level merged{outer.count * inner.count, inner.ddr_stride, inner.sram_stride};
      levels.erase(levels.begin() + static_cast<std::ptrdiff_t>(i) - 1, levels.begin() + static_cast<std::ptrdiff_t>(i) + 1);
      levels.insert(levels.begin() + static_cast<std::ptrdiff_t>(i) - 1, merged);
    }
  }
  if (levels.size() > 3) {
    const Level l = levels.front();
    std::vector<Level> rest(levels.begin() + 1, levels.end());
    for (std::int64_t i = 0; i < l.count; ++i)
      emit_levels(out, op, ddr + static_cast<std::uint64_t>(i * l.ddr_stride), sram + static_cast<std::uint64_t>(i * l.sram_stride),
                  run, rest, alignment, n);
    return;
  }
  while (levels.size() < 3) levels.insert(levels.begin(), Level{});
  auto u = [](std::int64_t v) { return static_cast<std::uint64_t>(v); };
  DmaBox box;
  box.ddr_addr = ddr;
  box.sram_addr = sram;
  box.run_bytes = u(run);
  box.runs = u(levels[2].count), box.ddr_stride = u(levels[2].ddr_stride), box.sram_stride = u(levels[2].sram_stride);
  box.reps = u(levels[1].count), box.ddr_rep_stride = u(levels[1].ddr_stride), box.sram_rep_stride = u(levels[1].sram_stride);
  box.planes = u(levels[0].count), box.ddr_plane_stride = u(levels[0].ddr_stride), box.sram_plane_stride = u(levels[0].sram_stride);
  try {
    emit_dma(out, op, box, alignment);
  } catch (const CompileError& e) {
    internal(n, e.what());
  }
}

// Drops size-1 dims, orders dims by destination stride (outermost first) and merges dims that
// are contiguous in both source and destination.
std::vector<MoveDim> simplify(const std::vector<MoveDim>& dims) {
  std::vector<MoveDim> d;
  for (const auto& x : dims)
    if (x.size != 1) d.push_back(x);
  std::stable_sort(d.begin(), d.end(), [](const MoveDim& a, const MoveDim& b) { return a.dst_stride > b.dst_stride; });
  std::vector<MoveDim> m;
  for (const auto& x : d) {
    if (!m.empty() && m.back().src_stride == x.src_stride * x.size && m.back().dst_stride == x.dst_stride * x.size) {
      m.back().size *= x.size;
      m.back().src_stride = x.src_stride;
      m.back().dst_stride = x.dst_stride;
    } else {
      m.push_back(x);
    }
  }
  return m;
}

// Largest divisor of n that is at most cap (1 when none is larger).
std::int64_t divisor_at_most(std::int64_t n, std::int64_t cap) {
  for (std::int64_t q = std::min(n, cap); q > 1; --q)
    if (n % q == 0) return q;
  return 1;
}

// The dim contiguous in the source when a box goes through the vector unit's transpose (its
// innermost destination dim is contiguous there but not in the source), else d.size().
std::size_t transposed_dim(const MoveBox& box, const std::vector<MoveDim>& d) {
  const MoveDim& inner = d.back();
  if (box.fill || inner.dst_stride != 1 || inner.src_stride == 1) return d.size();
  for (std::size_t k = 0; k + 1 < d.size(); ++k)
    if (d[k].src_stride == 1) return k;
  return d.size();
}

struct Planner {
  CodegenContext& ctx;
  const Node& node;
  std::int64_t es;
  std::uint64_t slot_bytes;
  std::vector<std::uint64_t> slots;  // plain copies rotate through these
  LayerCode& code;
  LayerStream stream{{Unit::Load, Unit::Store}, false};
  std::uint64_t fill_ddr = 0, fill_elems = 0;
  int tiles = 0;
  // Boxes whose source is contiguous along another dim than the destination: load runs along
  // the source's contiguous dim, transpose on the vector unit, store runs along the
  // destination's. Their own slots (in and transposed, double-buffered) and stream.
  LayerStream transpose_stream{{Unit::Load, Unit::Vector, Unit::Store}, false};
  std::uint64_t transpose_in[2] = {0, 0}, transpose_out[2] = {0, 0};
  int transpose_tiles = 0;

  // dims (destination order, simplified): z innermost with destination stride 1, a the dim
  // with source stride 1, b one more dim chunked into the tile's batch; the rest one index at
  // a time.
  void transpose_box(const MoveBox& box, const std::vector<MoveDim>& d, std::size_t ai) {
    const std::size_t zi = d.size() - 1;
    std::size_t bi = d.size();
    for (std::size_t k = d.size(); k-- > 0;)
      if (k != zi && k != ai) {
        bi = k;
        break;
      }
    const MoveDim& A = d[ai];
    const MoveDim& Z = d[zi];
    const std::int64_t count_max = static_cast<std::int64_t>(kDmaCountMax);
    const std::int64_t run_max = static_cast<std::int64_t>(kDmaLen0Max) / es;
    std::int64_t ac = std::min({A.size, count_max, run_max}), zc = std::min({Z.size, count_max, run_max});
    auto bytes = [&](std::int64_t b, std::int64_t a, std::int64_t z) { return static_cast<std::uint64_t>(b * a * z * es); };
    while (bytes(1, ac, zc) > slot_bytes && (ac > 1 || zc > 1)) {
      if (ac >= zc) ac = (ac + 1) / 2;
      else zc = (zc + 1) / 2;
    }
    std::int64_t bc = 1;
    if (bi < d.size()) bc = std::max<std::int64_t>(1, std::min<std::int64_t>({d[bi].size, count_max, static_cast<std::int64_t>(slot_bytes / bytes(1, ac, zc))}));
    // Every other dim: one index at a time.
    std::vector<std::size_t> rest;
    for (std::size_t k = 0; k < d.size(); ++k)
      if (k != ai && k != zi && k != bi) rest.push_back(k);
    std::vector<std::int64_t> idx(rest.size(), 0);
    const std::int64_t bsize = bi < d.size() ? d[bi].size : 1;
    for (;;) {
      std::int64_t so = 0, dof = 0;
      for (std::size_t r = 0; r < rest.size(); ++r) {
        so += idx[r] * d[rest[r]].src_stride;
        dof += idx[r] * d[rest[r]].dst_stride;
      }
      for (std::int64_t b0 = 0; b0 < bsize; b0 += bc)
        for (std::int64_t a0 = 0; a0 < A.size; a0 += ac)
          for (std::int64_t z0 = 0; z0 < Z.size; z0 += zc) {
            const std::int64_t nb = std::min(bc, bsize - b0), na = std::min(ac, A.size - a0), nz = std::min(zc, Z.size - z0);
            const std::int64_t bs_src = bi < d.size() ? d[bi].src_stride : 0, bs_dst = bi < d.size() ? d[bi].dst_stride : 0;
            const std::int64_t src_off = so + b0 * bs_src + a0 * A.src_stride + z0 * Z.src_stride;
            const std::int64_t dst_off = dof + b0 * bs_dst + a0 * A.dst_stride + z0 * Z.dst_stride;
            const int s = transpose_tiles++ % 2;
            TileStages& st = transpose_stream.new_tile();
            // [b][z][a] in SRAM: runs of na along a.
            emit_levels(st.load, Opcode::Load, box.src_addr + static_cast<std::uint64_t>(src_off * es), transpose_in[s], na * es,
                        {{nb, bs_src * es, nz * na * es}, {nz, Z.src_stride * es, na * es}}, ctx.alignment, node);
            st.vector.push_back(make(Opcode::Transpose, {{Field::dtype, static_cast<std::int64_t>(es == 1 ? isa::DType::Int8 : isa::DType::Fp16)},
                                                         {Field::dst_addr, static_cast<std::int64_t>(transpose_out[s])},
                                                         {Field::src_addr, static_cast<std::int64_t>(transpose_in[s])},
                                                         {Field::batch, nb}, {Field::rows, nz}, {Field::cols, na}}));
            // [b][a][z]: runs of nz along z.
            emit_levels(st.store, Opcode::Store, box.dst_addr + static_cast<std::uint64_t>(dst_off * es), transpose_out[s], nz * es,
                        {{nb, bs_dst * es, na * nz * es}, {na, A.dst_stride * es, nz * es}}, ctx.alignment, node);
            code.planned_ddr_bytes += 2 * bytes(nb, na, nz);
          }
      std::size_t k = rest.size();
      while (k > 0 && ++idx[k - 1] == d[rest[k - 1]].size) idx[--k] = 0;
      if (k == 0) break;
    }
  }

  // One tile: load `levels` (source strides) into the slot, store them (destination strides).
  void tile(std::uint64_t src, std::uint64_t dst, std::int64_t run_elems, const std::vector<MoveDim>& dims,
            const std::vector<std::int64_t>& sram_strides, bool fill) {
    TileStages& st = stream.new_tile();
    const std::uint64_t slot = slots[static_cast<std::size_t>(tiles++) % slots.size()];
    std::vector<Level> load, store;
    std::int64_t elems = run_elems;
    for (std::size_t i = 0; i < dims.size(); ++i) {
      load.push_back({dims[i].size, dims[i].src_stride * es, sram_strides[i]});
      store.push_back({dims[i].size, dims[i].dst_stride * es, fill ? 0 : sram_strides[i]});
      elems *= dims[i].size;
    }
    if (fill) {
      emit_levels(st.load, Opcode::Load, fill_ddr, slot, run_elems * es, {}, ctx.alignment, node);
      code.planned_ddr_bytes += static_cast<std::uint64_t>(run_elems * es);
    } else {
      emit_levels(st.load, Opcode::Load, src, slot, run_elems * es, load, ctx.alignment, node);
      code.planned_ddr_bytes += static_cast<std::uint64_t>(elems * es);
    }
    emit_levels(st.store, Opcode::Store, dst, slot, run_elems * es, store, ctx.alignment, node);
    code.planned_ddr_bytes += static_cast<std::uint64_t>(elems * es);
  }

  // Scratchpad strides (bytes) of dims packed inside a run of `run_elems`: the two innermost
  // count levels packed, the outer ones padded to the alignment (they may become separate
  // instructions, whose addresses must be aligned).
  std::vector<std::int64_t> packed_strides(const std::vector<MoveDim>& dims, std::int64_t run_elems,
                                           std::int64_t& total_bytes) const {
    std::vector<std::int64_t> s(dims.size());
    std::int64_t bytes = run_elems * es;
    for (std::size_t k = dims.size(); k-- > 0;) {
      const std::size_t level_from_inside = dims.size() - 1 - k;
      if (level_from_inside >= 2) bytes = static_cast<std::int64_t>(ctx.align(static_cast<std::uint64_t>(bytes)));
      s[k] = bytes;
      bytes *= dims[k].size;
    }
    total_bytes = bytes;
    return s;
  }

  void run_box(const MoveBox& box) {
    std::vector<MoveDim> d = simplify(box.dims);
    if (d.empty()) d.push_back({1, 1, 1});
    for (const auto& x : d)
      if (x.size <= 0) return;
    // The run: the innermost dim when it is contiguous on both sides; a transpose when another
    // dim is contiguous in the source; else single elements.
    MoveDim inner = d.back();
    const bool contiguous = inner.dst_stride == 1 && (inner.src_stride == 1 || box.fill);
    if (const std::size_t k = transposed_dim(box, d); k < d.size()) return transpose_box(box, d, k);
    if (!contiguous) d.push_back({1, 1, 1});
    // Runs longer than a DMA run or a slot: split them into (n, q) when a divisor allows.
    const std::int64_t max_run = static_cast<std::int64_t>(std::min<std::uint64_t>(slot_bytes, 32768)) / es;
    if (d.back().size > max_run) {
      MoveDim r = d.back();
      std::int64_t q = divisor_at_most(r.size, max_run);
      if (q >= std::max<std::int64_t>(64, max_run / 8)) {
        d.back() = {r.size / q, q * (box.fill ? 0 : r.src_stride), q * r.dst_stride};
        d.push_back({q, box.fill ? 1 : r.src_stride, r.dst_stride});
      }
    }
    if (box.fill)
      for (auto& x : d) x.src_stride = 0;
    const std::int64_t full_run = d.back().size;
    std::vector<MoveDim> outer(d.begin(), d.end() - 1);
    if (full_run > max_run) {  // the run alone is too long: one tile per chunk of it
      std::vector<std::int64_t> idx(outer.size(), 0);
      for (;;) {
        std::int64_t so = 0, dof = 0;
        for (std::size_t k = 0; k < outer.size(); ++k) {
          so += idx[k] * outer[k].src_stride;
          dof += idx[k] * outer[k].dst_stride;
        }
        for (std::int64_t c0 = 0; c0 < full_run; c0 += max_run) {
          std::int64_t n = std::min(max_run, full_run - c0);
          std::int64_t src_step = box.fill ? 0 : d.back().src_stride;
          tile(box.src_addr + static_cast<std::uint64_t>((so + c0 * src_step) * es),
               box.dst_addr + static_cast<std::uint64_t>((dof + c0 * d.back().dst_stride) * es), n, {}, {}, box.fill);
        }
        std::size_t k = outer.size();
        while (k > 0 && ++idx[k - 1] == outer[k - 1].size) idx[--k] = 0;
        if (k == 0) break;
      }
      return;
    }
    // Tile = a chunk of dim t, every dim inside t whole, single indices outside.
    std::size_t t = outer.size();  // t == outer.size(): the tile is one run
    std::int64_t chunk = 1;
    for (std::size_t k = outer.size(); k-- > 0;) {
      std::vector<MoveDim> inside(outer.begin() + static_cast<std::ptrdiff_t>(k), outer.end());
      std::int64_t total = 0;
      packed_strides(inside, full_run, total);
      if (box.fill) total = full_run * es;
      if (static_cast<std::uint64_t>(total) <= slot_bytes) {
        t = k;
        chunk = outer[k].size;
        continue;
      }
      // dim k does not fit whole: the largest chunk of it that does
      std::vector<MoveDim> part = inside;
      std::int64_t lo = 1, hi = outer[k].size - 1;
      while (lo < hi) {
        std::int64_t mid = (lo + hi + 1) / 2;
        part[0].size = mid;
        packed_strides(part, full_run, total);
        if (static_cast<std::uint64_t>(total) <= slot_bytes) lo = mid;
        else hi = mid - 1;
      }
      part[0].size = lo;
      packed_strides(part, full_run, total);
      if (static_cast<std::uint64_t>(total) <= slot_bytes) {
        t = k;
        chunk = lo;
      }
      break;
    }
    std::vector<std::int64_t> idx(t, 0);
    for (;;) {
      std::int64_t so = 0, dof = 0;
      for (std::size_t k = 0; k < t; ++k) {
        so += idx[k] * outer[k].src_stride;
        dof += idx[k] * outer[k].dst_stride;
      }
      const std::int64_t tsize = t < outer.size() ? outer[t].size : 1;
      for (std::int64_t c0 = 0; c0 < tsize; c0 += chunk) {
        std::vector<MoveDim> inside;
        if (t < outer.size()) {
          inside.assign(outer.begin() + static_cast<std::ptrdiff_t>(t), outer.end());
          inside[0].size = std::min(chunk, tsize - c0);
        }
        std::int64_t total = 0;
        auto strides = packed_strides(inside, full_run, total);
        std::int64_t cs = t < outer.size() ? c0 * outer[t].src_stride : 0, cd = t < outer.size() ? c0 * outer[t].dst_stride : 0;
        tile(box.src_addr + static_cast<std::uint64_t>((so + cs) * es), box.dst_addr + static_cast<std::uint64_t>((dof + cd) * es),
             full_run, inside, strides, box.fill);
      }
      std::size_t k = t;
      while (k > 0 && ++idx[k - 1] == outer[k - 1].size) idx[--k] = 0;
      if (k == 0) break;
    }
  }
};

}  // namespace

MoveBox whole_tensor_box(const DdrTensor& src, const DdrTensor& dst, std::int64_t src_offset_elems,
                         std::int64_t dst_offset_elems) {
  MoveBox b;
  b.src_addr = src.addr + static_cast<std::uint64_t>(src_offset_elems * src.elem);
  b.dst_addr = dst.addr + static_cast<std::uint64_t>(dst_offset_elems * dst.elem);
  for (std::size_t a = 0; a < src.shape.size(); ++a) b.dims.push_back({src.shape[a], src.strides[a], dst.strides[a]});
  return b;
}

LayerCode generate_moves(CodegenContext& ctx, const Node& n, const std::vector<MoveBox>& boxes,
                         const std::vector<std::uint8_t>& fill_bytes) {
  LayerCode code;
  // Element size of the values moved (an int8 program may move an fp16 value).
  Planner p{ctx, n, ctx.tensor(n.outputs[0]).elem, 0, {}, code};
  // Six slots: two for plain copies, two in and two out for transposed ones; without transposed
  // boxes all six rotate for plain copies, so the loads of the next tiles run ahead on both DMA
  // channels while earlier tiles are stored (the dependency pass orders slot reuse).
  bool any_transpose = false;
  for (const auto& b : boxes) {
    std::vector<MoveDim> d = simplify(b.dims);
    any_transpose |= !d.empty() && transposed_dim(b, d) < d.size();
  }
  p.slot_bytes = std::min<std::uint64_t>(ctx.sram_bytes / 6 / ctx.alignment * ctx.alignment, 64 * 1024);
  if (p.slot_bytes < ctx.alignment)
    throw CompileError(ctx.graph.source + ": layer '" + n.name + "': the scratchpad is too small for a copy");
  LayerMapping& map = code.mapping;
  map.unit = TileUnit::Dma;
  std::int64_t elements = 0;
  for (const auto& b : boxes) {
    std::int64_t e = 1;
    for (const auto& d : b.dims) e *= d.size;
    elements += e;
  }
  map.loops = {{LoopDim::Elements, elements, std::min(elements, static_cast<std::int64_t>(p.slot_bytes) / p.es)}};
  map.region_base = ctx.sram_base;
  std::uint64_t at = ctx.sram_base;
  for (int i = 0; i < (any_transpose ? 2 : 6); ++i) p.slots.push_back(map.place(BufferRole::Input, 0, p.slot_bytes, at));
  if (any_transpose) {
    for (int i = 0; i < 2; ++i) p.transpose_in[i] = map.place(BufferRole::Input, 1, p.slot_bytes, at);
    for (int i = 0; i < 2; ++i) p.transpose_out[i] = map.place(BufferRole::Output, 0, p.slot_bytes, at);
  } else {
    for (int i = 0; i < 2; ++i) {  // unused: the plain copies rotate through all six slots
      p.transpose_in[i] = ctx.sram_base + static_cast<std::uint64_t>(2 + i) * p.slot_bytes;
      p.transpose_out[i] = ctx.sram_base + static_cast<std::uint64_t>(4 + i) * p.slot_bytes;
    }
  }
  bool any_fill = false;
  for (const auto& b : boxes) any_fill |= b.fill;
  if (any_fill) {
    const std::int64_t es = p.es;
    p.fill_elems = std::min<std::uint64_t>(p.slot_bytes, 32768) / static_cast<std::uint64_t>(es);
    std::vector<std::uint8_t> blob;
    for (std::uint64_t i = 0; i < p.fill_elems; ++i) blob.insert(blob.end(), fill_bytes.begin(), fill_bytes.end());
    p.fill_ddr = ctx.add_data(std::move(blob));
  }
  for (const auto& b : boxes) p.run_box(b);
  // The two streams use disjoint slots and balance their own tokens, so they simply follow each other.
  if (p.tiles > 0) code.code = p.stream.finish();
  if (p.transpose_tiles > 0) {
    auto t = p.transpose_stream.finish();
    code.code.insert(code.code.end(), t.begin(), t.end());
  }
  return code;
}

}  // namespace npu::compiler
