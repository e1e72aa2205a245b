// Softmax / LogSoftmax (any axis: the instruction's inner stride), LayerNormalization and the
// reductions (any contiguous set of axes: outer x length x inner) on the vector unit. A tile is
// a chunk of outer rows with the whole mid block (or one row and a chunk of `inner`). INT8: max
// and min reduce the integers; everything else dequantizes to fp16, runs the fp16 instruction
// and quantizes (an island: softmax, layernorm and means need the float range).
#include <algorithm>
#include <cstring>
#include <optional>

#include "compiler/backend/codegen_context.h"
#include "compiler/backend/instruction_stream.h"
#include "compiler/backend/isa_limits.h"
#include "compiler/backend/op_registry.h"
#include "compiler/backend/rowwise_params.h"
#include "isa/field_limits.h"

namespace npu::compiler {
namespace {

using namespace isa_limits;

constexpr std::int64_t kSoftmaxDimMax = isa::field_max(isa::Opcode::Softmax, isa::Field::rows);
constexpr std::int64_t kReduceDimMax = isa::field_max(isa::Opcode::Reduce, isa::Field::outer);
constexpr std::int64_t kCountMax = isa::field_max(isa::Opcode::Quantize, isa::Field::count);

// Sum-like partials combine with: a sum of chunk sums, a mean of equal chunks' means, the max
// of maxima (min), and squares summed once.
isa::ReduceFunction combining(isa::ReduceFunction f) {
  return f == isa::ReduceFunction::SumSquare ? isa::ReduceFunction::Sum : f;
}

// A reduction whose one row (mid elements of one inner element) does not fit the region: each
// tile of one outer row and `ic` inner elements reduces the row in K equal chunks of `lc`
// (lc divides mid, so chunk means average to the mean), each into its own partial, then the K
// partials. The same instructions as the one-pass tile, one more reduce per tile.
std::optional<LayerCode> reduce_in_chunks(CodegenContext& ctx, const RowwiseOp& op, const DdrTensor& x,
                                          const DdrTensor& y) {
  const RowwiseShape& s = op.shape;
  const bool int8 = ctx.int8(), island = int8 && !op.int8_direct, dequantize = island && x.elem == 1;
  const std::int64_t es = x.elem, out_es = y.elem, pes = island ? 2 : es;  // partials: the reduce's type
  struct Pick {
    std::int64_t ic = 0, lc = 0, k = 0;
  };
  // Each partial starts on the scratchpad's alignment: `ipad` elements apart; the combining
  // reduce then runs over all ipad columns (the padding's results are not stored).
  auto padded = [&](std::int64_t ic) { return static_cast<std::int64_t>(ctx.align(static_cast<std::uint64_t>(ic * pes))) / pes; };
  auto need = [&](std::int64_t ic, std::int64_t lc, std::int64_t k) -> std::uint64_t {
    const std::int64_t ip = padded(ic);
    std::uint64_t in = ctx.align(static_cast<std::uint64_t>(lc * ic * es));
    std::uint64_t outb = ctx.align(static_cast<std::uint64_t>(ip * out_es));
    std::uint64_t tmp = island ? ctx.align(static_cast<std::uint64_t>(lc * ic * 2)) + ctx.align(static_cast<std::uint64_t>(ip * 2)) : 0;
    return 2 * (in + outb) + tmp + static_cast<std::uint64_t>(k * ip * pes);
  };
  auto fits = [&](std::int64_t ic, std::int64_t lc, std::int64_t k) {
    return k <= kReduceDimMax && lc * ic <= kCountMax && static_cast<std::uint64_t>(ic * es) <= kDmaLen0Max &&
           need(ic, lc, k) <= ctx.sram_bytes;
  };
  std::optional<Pick> pick;
  for (std::int64_t ic = std::min(s.inner, kReduceDimMax); ic >= 1 && !pick; ic = ic > 1 ? (ic + 1) / 2 : 0) {
    for (std::int64_t k = 2; k <= s.mid && k <= kReduceDimMax; ++k) {
      if (s.mid % k) continue;
      if (fits(ic, s.mid / k, k)) {
        pick = Pick{ic, s.mid / k, k};
        break;
      }
      if (need(ic, 1, k) > ctx.sram_bytes) break;  // partials alone no longer fit: more chunks will not help
    }
    if (ic == 1) break;
  }
  if (!pick) return std::nullopt;
  const std::int64_t ic = pick->ic, lc = pick->lc, K = pick->k, ip = padded(ic);
  LayerCode out;
  LayerMapping& map = out.mapping;
  map.unit = TileUnit::Vector;
  map.loops = {{LoopDim::Rows, s.outer, 1}, {LoopDim::Cols, s.inner, ic}, {LoopDim::Reduction, s.mid, lc}};
  map.region_base = ctx.sram_base;
  std::uint64_t at = ctx.sram_base;
  for (int i = 0; i < 2; ++i) {
    map.place(BufferRole::Input, 0, ctx.align(static_cast<std::uint64_t>(lc * ic * es)), at);
    map.place(BufferRole::Output, 0, ctx.align(static_cast<std::uint64_t>(ip * out_es)), at);
  }
  const std::uint64_t t0 = at, t1 = island ? t0 + ctx.align(static_cast<std::uint64_t>(lc * ic * 2)) : t0;
  if (island) {
    map.place(BufferRole::Temp, 0, t1 - t0, at);
    map.place(BufferRole::Temp, 1, ctx.align(static_cast<std::uint64_t>(ip * 2)), at);
  }
  const std::uint64_t partials = map.place(BufferRole::Partials, 0, static_cast<std::uint64_t>(K * ip * pes), at);
  const MappingBuffer &in_at = map.buffer(BufferRole::Input), &out_at = map.buffer(BufferRole::Output);
  const std::int64_t fdtype = static_cast<std::int64_t>(island || !int8 ? isa::DType::Fp16 : isa::DType::Int8);
  // Issue order, chunk by chunk (the dependency pass derives the tokens: the next chunk's load
  // runs ahead into the other input slot).
  std::vector<Instruction>& code = out.code;
  std::int64_t t = 0;
  for (std::int64_t r = 0; r < s.outer; ++r)
    for (std::int64_t i0 = 0; i0 < s.inner; i0 += ic) {
      const std::int64_t ni = std::min(ic, s.inner - i0);
      for (std::int64_t k = 0; k < K; ++k, ++t) {
        const int slot = static_cast<int>(t % 2);
        DmaBox load;
        load.ddr_addr = x.addr + static_cast<std::uint64_t>(((r * s.mid + k * lc) * s.inner + i0) * es);
        load.sram_addr = in_at.at(slot);
        load.run_bytes = static_cast<std::uint64_t>(ni * es);
        load.runs = static_cast<std::uint64_t>(lc);
        load.ddr_stride = static_cast<std::uint64_t>(s.inner * es);
        load.sram_stride = load.run_bytes;
        emit_dma(code, Opcode::Load, load, ctx.alignment);
        out.planned_ddr_bytes += load.run_bytes * load.runs;
        std::uint64_t src = in_at.at(slot);
        if (dequantize) {
          Instruction dq = make(Opcode::Dequantize, {{Field::dtype, fdtype}, {Field::dst_addr, addr(t0)}, {Field::src_addr, addr(src)},
                                                     {Field::count, lc * ni}, {Field::zero_point, x.quant.zero_point}});
          dq.set_float(Field::scale, x.quant.scale);
          code.push_back(dq);
          src = t0;
        }
        const std::uint64_t partial = partials + static_cast<std::uint64_t>(k * ip * pes);
        code.push_back(make(Opcode::Reduce, {{Field::dtype, fdtype}, {Field::function, static_cast<std::int64_t>(op.reduce)},
                                                  {Field::dst_addr, addr(partial)}, {Field::src_addr, addr(src)}, {Field::outer, 1},
                                                  {Field::length, lc}, {Field::inner, ni}}));
        if (k + 1 < K) continue;
        // The row's partials, [K][ip]: reduced along K.
        const std::uint64_t dst = island ? t1 : out_at.at(slot);
        code.push_back(make(Opcode::Reduce, {{Field::dtype, fdtype}, {Field::function, static_cast<std::int64_t>(combining(op.reduce))},
                                                  {Field::dst_addr, addr(dst)}, {Field::src_addr, addr(partials)}, {Field::outer, 1},
                                                  {Field::length, K}, {Field::inner, ip}}));
        if (op.sqrt_after)
          code.push_back(make(Opcode::Activation, {{Field::dtype, fdtype}, {Field::function, static_cast<std::int64_t>(isa::ActFunction::Sqrt)},
                                                        {Field::dst_addr, addr(dst)}, {Field::src_addr, addr(dst)}, {Field::count, ni}}));
        if (island) {
          Instruction q = make(Opcode::Quantize, {{Field::dtype, fdtype}, {Field::dst_addr, addr(out_at.at(slot))}, {Field::src_addr, addr(t1)},
                                                  {Field::count, ni}, {Field::zero_point, y.quant.zero_point}});
          q.set_float(Field::scale, y.quant.scale);
          code.push_back(q);
        }
        DmaBox store;
        store.ddr_addr = y.addr + static_cast<std::uint64_t>((r * s.inner + i0) * out_es);
        store.sram_addr = out_at.at(slot);
        store.run_bytes = static_cast<std::uint64_t>(ni * out_es);
        store.runs = 1;
        store.ddr_stride = store.run_bytes;
        store.sram_stride = store.run_bytes;
        emit_dma(code, Opcode::Store, store, ctx.alignment);
        out.planned_ddr_bytes += store.run_bytes;
      }
    }
  return out;
}

// Softmax, LayerNormalization and the reductions: one output per row, rows the instruction's
// fields hold.
std::string rowwise_rejection(const Graph& g, const Node& n, bool int8) {
  const std::string& op = n.op_type;
  const auto& xs = g.tensor(n.inputs[0]).shape;
  if (n.outputs.size() > 1)
    for (std::size_t k = 1; k < n.outputs.size(); ++k)
      if (!n.outputs[k].empty()) return "its extra outputs (mean, inverse std) have no instruction";
  std::int64_t mid = 1;
  try {
    for (auto a : rowwise_axes(g, n)) mid *= xs[static_cast<std::size_t>(a)];
    if (op == "LayerNormalization") rowwise_op(g, n, int8);  // scale and bias constant and broadcastable
  } catch (const CompileError& e) {
    return rejection_phrase(e.what());
  }
  const std::int64_t max = op == "Softmax" || op == "LogSoftmax" ? isa::field_max(isa::Opcode::Softmax, isa::Field::cols)
                                                                 : isa::field_max(isa::Opcode::Reduce, isa::Field::length);
  if (mid > max) return "its " + std::to_string(mid) + " elements per row exceed the instruction (max " + std::to_string(max) + ")";
  return "";
}

LayerCode generate_rowwise(CodegenContext& ctx, const Node& n) {
  const Graph& g = ctx.graph;
  const DdrTensor& x = ctx.tensor(n.inputs[0]);
  const DdrTensor& y = ctx.tensor(n.outputs[0]);
  const bool int8 = ctx.int8();
  const RowwiseOp op = rowwise_op(g, n, int8);
  const RowwiseShape& s = op.shape;
  const bool island = int8 && !op.int8_direct;
  // An int8 program's fp16 values (a masked score) skip the dequantize.
  const bool dequantize = island && x.elem == 1;
  const std::int64_t es = x.elem, out_es = y.elem;
  const std::int64_t dim_max = op.kind == RowwiseKind::Reduce || op.kind == RowwiseKind::LayerNorm ? kReduceDimMax : kSoftmaxDimMax;
  if (s.mid > dim_max || (op.kind == RowwiseKind::LayerNorm && s.inner != 1))
    throw CompileError(g.source + ": layer '" + n.name + "': " + std::to_string(s.mid) + " elements along its axes exceed the instruction");

  // Bytes one tile of `rows` outer rows and `ic` inner elements needs (double-buffered in and
  // out, single fp16 temporaries for an island).
  auto need = [&](std::int64_t rows, std::int64_t ic) -> std::uint64_t {
    std::uint64_t in = ctx.align(static_cast<std::uint64_t>(rows * s.mid * ic * es));
    std::uint64_t outb = ctx.align(static_cast<std::uint64_t>(rows * s.out_mid * ic * out_es));
    std::uint64_t tmp = island ? ctx.align(static_cast<std::uint64_t>(rows * s.mid * ic * 2)) +
                                     ctx.align(static_cast<std::uint64_t>(rows * s.out_mid * ic * 2))
                               : 0;
    std::uint64_t params = op.kind == RowwiseKind::LayerNorm ? ctx.align(static_cast<std::uint64_t>(8 * s.mid)) : 0;
    return 2 * (in + outb) + tmp + params;
  };
  std::int64_t ic = std::min(s.inner, dim_max), rows = std::min(s.outer, dim_max);
  auto fits = [&](std::int64_t r, std::int64_t c) {
    return need(r, c) <= ctx.sram_bytes && r * s.mid * c <= kCountMax &&
           static_cast<std::uint64_t>(c * es) <= kDmaLen0Max && static_cast<std::uint64_t>(s.mid * c * es) <= (1u << 20);
  };
  while (rows > 1 && !fits(rows, ic)) rows = (rows + 1) / 2;
  while (ic > 1 && !fits(rows, ic)) ic = (ic + 1) / 2;
  // Values kept on chip (step_schedule.h) are read and written in place, laid out as in DDR:
  // a tile of whole rows is one run there. One the tiles cannot take in place is read from DDR
  // when it is there too, else it is an error, which tells the scheduler to keep it in DDR.
  const std::string where = g.source + ": layer '" + n.name + "' (" + n.op_type + "): ";
  std::optional<std::uint64_t> x_home = ctx.resident(n.inputs[0]), y_home = ctx.resident(n.outputs[0]);
  // Tiles of whole rows, each starting on the scratchpad's alignment, as instruction addresses must.
  auto aligned = [&](const std::string& value, std::uint64_t home, std::int64_t row_elems, std::int64_t elem) {
    const std::uint64_t start = ctx.home_addr(value, home, ctx.tensor(value).addr);
    for (std::int64_t r0 = 0; r0 < s.outer; r0 += rows)
      if ((start + static_cast<std::uint64_t>(r0 * row_elems * elem)) % ctx.alignment) return false;
    return true;
  };
  const bool whole_rows = fits(rows, ic) && ic == s.inner &&
                          (!x_home || aligned(n.inputs[0], *x_home, s.mid * s.inner, es)) &&
                          (!y_home || aligned(n.outputs[0], *y_home, s.out_mid * s.inner, out_es));
  if (x_home && (!whole_rows || x.span_bytes() != x.bytes())) {
    if (!ctx.in_ddr(n.inputs[0])) throw CompileError(where + "an input kept on chip only needs tiles of whole rows");
    x_home.reset();
  }
  if (y_home && (!whole_rows || y.span_bytes() != y.bytes()))
    throw CompileError(where + "an output on chip needs tiles of whole rows");
  if (!fits(rows, ic) && op.kind == RowwiseKind::Reduce && s.out_mid == 1)
    if (auto code = reduce_in_chunks(ctx, op, x, y)) return std::move(*code);
  if (!fits(rows, ic))
    throw CompileError(g.source + ": layer '" + n.name + "' (" + n.op_type + "): one row of " + std::to_string(s.mid) +
                       " elements needs " + std::to_string(need(1, 1)) + " bytes of SRAM; the scratchpad has " +
                       std::to_string(ctx.sram_bytes));
  if (ic < s.inner) rows = 1;  // a chunk of inner covers one outer row

  LayerCode out;
  LayerMapping& map = out.mapping;
  map.unit = TileUnit::Vector;
  map.loops = {{LoopDim::Rows, s.outer, rows}, {LoopDim::Cols, s.inner, ic}};
  map.region_base = ctx.sram_base;
  std::uint64_t at = ctx.sram_base, params_at = 0;
  std::uint64_t params_ddr = 0;
  if (op.kind == RowwiseKind::LayerNorm) {
    std::vector<std::uint8_t> blob(static_cast<std::size_t>(8 * s.mid));
    std::memcpy(blob.data(), op.gamma.data(), static_cast<std::size_t>(4 * s.mid));
    std::memcpy(blob.data() + 4 * s.mid, op.beta.data(), static_cast<std::size_t>(4 * s.mid));
    params_ddr = ctx.add_data(std::move(blob));
    params_at = map.place(BufferRole::Params, 0, ctx.align(static_cast<std::uint64_t>(8 * s.mid)), at);
  }
  for (int i = 0; i < 2; ++i) {
    map.place(BufferRole::Input, 0, ctx.align(static_cast<std::uint64_t>(rows * s.mid * ic * es)), at);
    map.place(BufferRole::Output, 0, ctx.align(static_cast<std::uint64_t>(rows * s.out_mid * ic * out_es)), at);
  }
  // An island's fp16 input and output (t0, t1) follow.
  const std::uint64_t t0 = at, t1 = t0 + ctx.align(static_cast<std::uint64_t>(rows * s.mid * ic * 2));
  if (island) {
    map.place(BufferRole::Temp, 0, t1 - t0, at);
    map.place(BufferRole::Temp, 1, ctx.align(static_cast<std::uint64_t>(rows * s.out_mid * ic * 2)), at);
  }
  const MappingBuffer &in_at = map.buffer(BufferRole::Input), &out_at = map.buffer(BufferRole::Output);

  // The stages the tiles use: no load when the input is on chip, no store when the output stays
  // on chip alone.
  const bool stores = !y_home || ctx.in_ddr(n.outputs[0]);
  std::vector<Unit> chain;
  if (!x_home) chain.push_back(Unit::Load);
  chain.push_back(Unit::Vector);
  if (stores) chain.push_back(Unit::Store);
  LayerStream stream(chain, false);
  if (op.kind == RowwiseKind::LayerNorm) {
    std::vector<isa::Instruction> params_load;
    emit_linear_load(params_load, params_ddr, params_at, static_cast<std::uint64_t>(8 * s.mid), ctx.alignment);
    stream.load_first(std::move(params_load));
    out.planned_ddr_bytes += static_cast<std::uint64_t>(8 * s.mid);
  }
  std::int64_t t = 0;
  for (std::int64_t r0 = 0; r0 < s.outer; r0 += rows)
    for (std::int64_t i0 = 0; i0 < s.inner; i0 += ic, ++t) {
      const std::int64_t nr = std::min(rows, s.outer - r0), ni = std::min(ic, s.inner - i0);
      const int slot = static_cast<int>(t % 2);
      TileStages& st = stream.new_tile();
      // rows x mid runs of ni elements (whole rows when ni == inner)
      DmaBox load;
      load.ddr_addr = x.addr + static_cast<std::uint64_t>((r0 * s.mid * s.inner + i0) * es);
      load.sram_addr = in_at.at(slot);
      load.run_bytes = static_cast<std::uint64_t>(ni * es);
      load.runs = static_cast<std::uint64_t>(nr * s.mid);
      load.ddr_stride = static_cast<std::uint64_t>(s.inner * es);
      load.sram_stride = load.run_bytes;
      std::uint64_t src = in_at.at(slot);
      if (x_home) {
        src = ctx.home_addr(n.inputs[0], *x_home, load.ddr_addr);
      } else {
        emit_dma(st.load, Opcode::Load, load, ctx.alignment);
        out.planned_ddr_bytes += load.run_bytes * load.runs;
      }
      const std::uint64_t y_ddr = y.addr + static_cast<std::uint64_t>((r0 * s.out_mid * s.inner + i0) * out_es);
      const std::uint64_t y_dst = y_home ? ctx.home_addr(n.outputs[0], *y_home, y_ddr) : out_at.at(slot);

      const std::int64_t in_count = nr * s.mid * ni, out_count = nr * s.out_mid * ni;
      const std::int64_t fdtype = static_cast<std::int64_t>(island || !int8 ? isa::DType::Fp16 : isa::DType::Int8);
      const std::uint64_t dst = island ? t1 : y_dst;
      if (dequantize) {
        Instruction dq = make(Opcode::Dequantize, {{Field::dtype, fdtype}, {Field::dst_addr, addr(t0)}, {Field::src_addr, addr(src)},
                                                   {Field::count, in_count}, {Field::zero_point, x.quant.zero_point}});
        dq.set_float(Field::scale, x.quant.scale);
        st.vector.push_back(dq);
        src = t0;
      }
      switch (op.kind) {
        case RowwiseKind::Softmax:
        case RowwiseKind::LogSoftmax:
          st.vector.push_back(make(Opcode::Softmax, {{Field::dtype, fdtype}, {Field::dst_addr, addr(dst)}, {Field::src_addr, addr(src)},
                                                     {Field::rows, nr}, {Field::cols, s.mid}, {Field::inner, ni}}));
          if (op.kind == RowwiseKind::LogSoftmax)
            st.vector.push_back(make(Opcode::Activation, {{Field::dtype, fdtype}, {Field::function, static_cast<std::int64_t>(isa::ActFunction::Log)},
                                                          {Field::dst_addr, addr(dst)}, {Field::src_addr, addr(dst)}, {Field::count, out_count}}));
          break;
        case RowwiseKind::LayerNorm: {
          Instruction ln = make(Opcode::LayerNorm, {{Field::dtype, fdtype}, {Field::dst_addr, addr(dst)}, {Field::src_addr, addr(src)},
                                                    {Field::param_addr, addr(params_at)}, {Field::rows, nr}, {Field::cols, s.mid}});
          ln.set_float(Field::epsilon, op.epsilon);
          st.vector.push_back(ln);
          break;
        }
        case RowwiseKind::Reduce:
          st.vector.push_back(make(Opcode::Reduce, {{Field::dtype, fdtype}, {Field::function, static_cast<std::int64_t>(op.reduce)},
                                                    {Field::dst_addr, addr(dst)}, {Field::src_addr, addr(src)}, {Field::outer, nr},
                                                    {Field::length, s.mid}, {Field::inner, ni}}));
          if (op.sqrt_after)
            st.vector.push_back(make(Opcode::Activation, {{Field::dtype, fdtype}, {Field::function, static_cast<std::int64_t>(isa::ActFunction::Sqrt)},
                                                          {Field::dst_addr, addr(dst)}, {Field::src_addr, addr(dst)}, {Field::count, out_count}}));
          break;
      }
      if (island) {
        Instruction q = make(Opcode::Quantize, {{Field::dtype, fdtype}, {Field::dst_addr, addr(y_dst)}, {Field::src_addr, addr(t1)},
                                                {Field::count, out_count}, {Field::zero_point, y.quant.zero_point}});
        q.set_float(Field::scale, y.quant.scale);
        st.vector.push_back(q);
      }
      if (!stores) continue;
      DmaBox store;
      store.ddr_addr = y_ddr;
      store.sram_addr = y_dst;
      store.run_bytes = static_cast<std::uint64_t>(ni * out_es);
      store.runs = static_cast<std::uint64_t>(nr * s.out_mid);
      store.ddr_stride = static_cast<std::uint64_t>(s.inner * out_es);
      store.sram_stride = store.run_bytes;
      emit_dma(st.store, Opcode::Store, store, ctx.alignment);
      out.planned_ddr_bytes += store.run_bytes * store.runs;
    }
  out.code = stream.finish();
  return out;
}

bool is_rowwise(const Node& n) { return is_rowwise_op(n.op_type); }

}  // namespace

const NpuOpFamily& rowwise_family() {
  static const NpuOpFamily family{"rowwise", is_rowwise,
                                  rowwise_rejection, generate_rowwise, nullptr,
                                  /*region_aware=*/true, /*reads_resident=*/true, /*writes_resident=*/true};
  return family;
}

}  // namespace npu::compiler
