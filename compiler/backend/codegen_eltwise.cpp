// Element-wise layers on the vector unit with numpy broadcasting: unary functions (act, clip,
// int8 lut), binary ops (binary / qbinary / qadd, int8 Div/Pow/PRelu as a dequantize, fp16
// binary, quantize island) and Where with a constant condition. The output's dims, in memory
// order, merge wherever every operand allows; the last two become the instructions' rows x
// cols and each operand's strides there are 0 (broadcast) or its own (constants are laid out
// in the output's order). A tile is a chunk of rows (or of cols) at fixed outer indices; every
// operand loads only the part it has (a per-channel scale loads one row).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>

#include "compiler/backend/codegen_context.h"
#include "compiler/backend/eltwise_plan.h"
#include "compiler/backend/instruction_stream.h"
#include "compiler/backend/integer_boundary.h"
#include "compiler/backend/move_params.h"
#include "compiler/backend/op_registry.h"
#include "compiler/core/npu_ops.h"
#include "compiler/quant/int8_layer_params.h"
#include "compiler/reference/float_evaluator.h"
#include "isa/field_limits.h"

namespace npu::compiler {
namespace {

constexpr std::int64_t kCountMax = isa::field_max(isa::Opcode::Activation, isa::Field::count);
constexpr std::int64_t kBinaryDimMax = isa::field_max(isa::Opcode::Binary, isa::Field::rows);
constexpr std::int64_t kQBinaryRowsMax = isa::field_max(isa::Opcode::QuantizedBinary, isa::Field::rows);
constexpr std::int64_t kQBinaryColsMax = isa::field_max(isa::Opcode::QuantizedBinary, isa::Field::cols);
constexpr std::int64_t kQBinaryColStrideMax = isa::field_max(isa::Opcode::QuantizedBinary, isa::Field::a_col_stride);
constexpr std::int64_t kQBinaryRowStrideMax = isa::field_max(isa::Opcode::QuantizedBinary, isa::Field::a_row_stride);

struct Dim {
  std::int64_t size = 1, out_stride = 0;
  std::vector<std::int64_t> stride;  // per operand
};

// The output's dims in memory order (size-1 dims dropped), each operand's element stride along
// them, merged wherever every operand allows; the last two become rows x cols.
struct EltwiseGeometry {
  Dim rows_dim, cols_dim;
  std::vector<Dim> outer;
};

EltwiseGeometry eltwise_geometry(const CodegenContext& ctx, const Node& n, const EltwisePlan& plan, const DdrTensor& y) {
  const std::size_t k = plan.operands.size();
  const std::size_t rank = y.shape.size();
  std::vector<Dim> dims;
  for (int axis : y.order) {
    const auto a = static_cast<std::size_t>(axis);
    if (y.shape[a] == 1) continue;
    Dim d;
    d.size = y.shape[a];
    d.out_stride = y.strides[a];
    for (const auto& op : plan.operands) {
      const std::size_t r = op.tensor->shape.size();
      const std::int64_t oa = static_cast<std::int64_t>(a) - static_cast<std::int64_t>(rank - r);
      d.stride.push_back(oa < 0 || op.tensor->shape[static_cast<std::size_t>(oa)] == 1 ? 0 : op.tensor->strides[static_cast<std::size_t>(oa)]);
    }
    dims.push_back(d);
  }
  std::vector<Dim> merged;
  for (const auto& d : dims) {
    if (!merged.empty()) {
      Dim& m = merged.back();
      bool ok = m.out_stride == d.out_stride * d.size;
      for (std::size_t i = 0; i < k && ok; ++i) ok = m.stride[i] == d.stride[i] * d.size;
      if (ok) {
        m.size *= d.size;
        m.out_stride = d.out_stride;
        m.stride = d.stride;
        continue;
      }
    }
    merged.push_back(d);
  }
  while (merged.size() < 2) merged.insert(merged.begin(), Dim{1, 0, std::vector<std::int64_t>(k, 0)});
  EltwiseGeometry geo{merged[merged.size() - 2], merged.back(), std::vector<Dim>(merged.begin(), merged.end() - 2)};
  for (std::size_t i = 0; i < k; ++i)
    if (geo.cols_dim.stride[i] > 1)
      throw CompileError(ctx.graph.source + ": layer '" + n.name + "': internal: operand " + std::to_string(i) + " is not contiguous in the output's order");
  return geo;
}

// Elements of operand i in a tile of nr x nc (a broadcast dim holds one).
std::int64_t operand_count(const EltwiseGeometry& geo, std::size_t i, std::int64_t nr, std::int64_t nc) {
  return (geo.rows_dim.stride[i] ? nr : 1) * (geo.cols_dim.stride[i] ? nc : 1);
}

std::int64_t temp_count(const EltwiseGeometry& geo, const EltwisePlan::Temp& t, std::int64_t nr, std::int64_t nc) {
  return t.like_operand >= 0 ? operand_count(geo, static_cast<std::size_t>(t.like_operand), nr, nc) : nr * nc;
}

// Where the step scheduler keeps the layer's computed operands and its output on chip
// (step_schedule.h): read and written there in place. Only a value laid out as the output (no
// broadcast) is read in place, and every tile must then be one run of whole rows of the output
// starting on an aligned address (map_elementwise sizes the tiles so); a layer that cannot is
// an error here, which tells the scheduler the value cannot stay on chip for it.
struct Residency {
  std::vector<std::optional<std::uint64_t>> operand;
  std::optional<std::uint64_t> output;
  bool any() const {
    return output || std::any_of(operand.begin(), operand.end(), [](const auto& h) { return h.has_value(); });
  }
};

Residency eltwise_residency(const CodegenContext& ctx, const Node& n, const EltwisePlan& plan, const EltwiseGeometry& geo,
                            const DdrTensor& y) {
  Residency r;
  auto same_layout = [&](std::size_t i) {
    if (geo.rows_dim.stride[i] != geo.rows_dim.out_stride || geo.cols_dim.stride[i] != geo.cols_dim.out_stride) return false;
    for (const auto& d : geo.outer)
      if (d.stride[i] != d.out_stride) return false;
    return true;
  };
  // A scalar or a row of the output's columns repeated for every row, or a block laid out as the
  // output's rows repeated along outer dims (a rotary table's [T, h] for every head): each tile
  // one run from where the tile starts (the binary instructions' strides repeat a row or a
  // scalar); generate_elementwise checks that every tile starts aligned.
  auto broadcast_in_place = [&](std::size_t i) {
    const std::int64_t rs = geo.rows_dim.stride[i], cs = geo.cols_dim.stride[i];
    return (rs == 0 && cs <= 1) || (rs == geo.rows_dim.out_stride && cs == geo.cols_dim.out_stride);
  };
  for (std::size_t i = 0; i < plan.operands.size(); ++i) {
    const auto& op = plan.operands[i];
    r.operand.push_back(op.value.empty() ? std::nullopt : ctx.resident(op.value));
    if (r.operand.back() && op.tensor->span_bytes() == op.tensor->bytes() && !same_layout(i) && broadcast_in_place(i))
      continue;
    if (r.operand.back() && (!same_layout(i) || op.tensor->span_bytes() != op.tensor->bytes())) {
      // A broadcast operand (eltwise_on_chip says so to the scheduler) is read from DDR.
      if (!ctx.in_ddr(op.value))
        throw CompileError(ctx.graph.source + ": layer '" + n.name + "': operand '" + op.value +
                           "' kept on chip only is not laid out as the output");
      r.operand.back().reset();
    }
  }
  r.output = ctx.resident(n.outputs[0]);
  if (r.output && y.span_bytes() != y.bytes())
    throw CompileError(ctx.graph.source + ": layer '" + n.name + "': a strided output cannot stay on chip");
  // (A dim of one element has no stride to speak of: a scalar's geometry may give it 0.)
  if (r.any() && (ctx.part || (geo.cols_dim.size > 1 && geo.cols_dim.out_stride != 1) ||
                  (geo.rows_dim.size > 1 && geo.rows_dim.out_stride != geo.cols_dim.size)))
    throw CompileError(ctx.graph.source + ": layer '" + n.name + "': values on chip need one engine and dense rows");
  return r;
}

// The tiles, the largest rows x cols chunk that fits twice (double buffering) within the
// instructions' fields, and the region's buffers: the table, per slot the operands and the
// output, then the temporaries.
LayerMapping map_elementwise(const CodegenContext& ctx, const Node& n, const EltwisePlan& plan, const EltwiseGeometry& geo,
                             std::int64_t out_es, const Residency& resident) {
  const std::size_t k = plan.operands.size();
  const Dim &rows_dim = geo.rows_dim, &cols_dim = geo.cols_dim;
  bool qbinary = false;
  for (const auto& s : plan.steps) qbinary |= s.kind == EltwiseStep::Kind::QBinary;
  const std::int64_t rows_max = qbinary ? kQBinaryRowsMax : kBinaryDimMax;
  // A row of a tile is one DMA run (len0): at most 32 KiB of the widest element.
  std::int64_t widest = out_es;
  for (const auto& op : plan.operands) widest = std::max(widest, op.tensor->elem);
  const std::int64_t run_max = static_cast<std::int64_t>(kDmaLen0Max / 2 + 1) / widest;
  const std::int64_t cols_max = std::min(qbinary ? std::min(kQBinaryColsMax, kQBinaryRowStrideMax) : kBinaryDimMax, run_max);

  auto need = [&](std::int64_t nr, std::int64_t nc) -> std::uint64_t {
    std::uint64_t per_slot = resident.output ? 0 : ctx.align(static_cast<std::uint64_t>(nr * nc * out_es));
    for (std::size_t i = 0; i < k; ++i)
      if (!resident.operand[i])
        per_slot += ctx.align(static_cast<std::uint64_t>(operand_count(geo, i, nr, nc) * plan.operands[i].tensor->elem));
    std::uint64_t temps = 0;
    for (const auto& t : plan.temps) temps += ctx.align(static_cast<std::uint64_t>(temp_count(geo, t, nr, nc) * t.elem));
    return 2 * per_slot + temps + (plan.lut.empty() ? 0 : ctx.align(256));
  };
  std::int64_t nc = std::min(cols_dim.size, cols_max), nr = std::min(rows_dim.size, rows_max);
  while (nr > 1 && (need(nr, nc) > ctx.sram_bytes || nr * nc > kCountMax)) nr = (nr + 1) / 2;
  while (nc > 64 && (need(nr, nc) > ctx.sram_bytes || nr * nc > kCountMax)) nc = std::max<std::int64_t>(64, nc / 2 / 64 * 64);
  if (resident.any()) {
    // Tiles of whole rows (or one row) that start on aligned addresses of every value on chip.
    std::int64_t widest_resident = resident.output ? out_es : 1;
    for (std::size_t i = 0; i < k; ++i)
      if (resident.operand[i]) widest_resident = std::max(widest_resident, plan.operands[i].tensor->elem);
    const auto a = static_cast<std::int64_t>(ctx.alignment);
    auto granule = [&](std::int64_t elems) {  // the fewest units of `elems` elements that stay aligned
      std::int64_t g = 1;
      for (std::int64_t es = 1; es <= widest_resident; es *= 2) g = std::lcm(g, a / std::gcd(elems * es, a));
      return g;
    };
    for (const auto& d : geo.outer)
      if (granule(d.out_stride) != 1)
        throw CompileError(ctx.graph.source + ": layer '" + n.name + "': values on chip need aligned outer steps");
    if (nc < cols_dim.size) {
      if (rows_dim.size > 1 && granule(cols_dim.size) != 1)
        throw CompileError(ctx.graph.source + ": layer '" + n.name + "': values on chip need aligned rows");
      nr = 1;
      const std::int64_t g = granule(1);
      nc = nc / g * g;
    } else if (nr < rows_dim.size) {
      const std::int64_t g = granule(cols_dim.size);
      nr = nr / g * g;
    }
    if (nr < 1 || nc < 1)
      throw CompileError(ctx.graph.source + ": layer '" + n.name + "': no aligned tile for values on chip");
  }
  if (need(nr, nc) > ctx.sram_bytes || nr * nc > kCountMax) throw_tile_too_big(ctx, n, need(1, 1));
  if (qbinary)
    for (std::size_t i = 0; i < k; ++i)
      if ((rows_dim.stride[i] && cols_dim.stride[i] ? nc : 1) > kQBinaryRowStrideMax || kQBinaryColStrideMax < 1)
        throw_tile_too_big(ctx, n, need(1, 1));

  LayerMapping map;
  map.unit = TileUnit::Vector;
  std::int64_t batch = 1;
  for (const auto& d : geo.outer) batch *= d.size;
  map.loops = {{LoopDim::Batch, batch, 1}, {LoopDim::Rows, rows_dim.size, nr}, {LoopDim::Cols, cols_dim.size, nc}};
  map.region_base = ctx.sram_base;
  std::uint64_t at = ctx.sram_base;
  if (!plan.lut.empty()) map.place(BufferRole::Table, 0, ctx.align(256), at);
  for (int s = 0; s < 2; ++s) {
    for (std::size_t i = 0; i < k; ++i)
      if (!resident.operand[i])
        map.place(BufferRole::Operand, static_cast<int>(i),
                  ctx.align(static_cast<std::uint64_t>(operand_count(geo, i, nr, nc) * plan.operands[i].tensor->elem)), at);
    if (!resident.output) map.place(BufferRole::Output, 0, ctx.align(static_cast<std::uint64_t>(nr * nc * out_es)), at);
  }
  for (std::size_t j = 0; j < plan.temps.size(); ++j)
    map.place(BufferRole::Temp, static_cast<int>(j), ctx.align(static_cast<std::uint64_t>(temp_count(geo, plan.temps[j], nr, nc) * plan.temps[j].elem)), at);
  return map;
}

// Element-wise: fp16 on act / clip / binary; int8 as a table (a function of one value), qadd /
// qbinary, or a dequantize-fp16-quantize island for Div, Pow and PRelu of two values.
std::string eltwise_rejection(const Graph& g, const Node& n, bool int8) {
  const std::string& op = n.op_type;
  if (op == "Clip")
    for (std::size_t i = 1; i < n.inputs.size(); ++i)
      if (!n.inputs[i].empty() && !g.is_constant(n.inputs[i])) return "Clip bounds are not constants";
  if (op == "Where") {
    if (!g.is_constant(n.inputs[0])) return "the condition is computed (only constant masks select by multiply-add)";
    // int8: a mask fill (-inf, float min) has no int8 code; such a Where keeps its output in
    // fp16 for the softmax after it (quantize.cpp), which must be its only kind of reader.
    if (int8 && masked_where(g, n))
      for (int c : g.consumers(n.outputs[0]))
        if (g.nodes[static_cast<std::size_t>(c)].op_type != "Softmax" && g.nodes[static_cast<std::size_t>(c)].op_type != "LogSoftmax")
          return "int8 Where with a mask fill read by a " + g.nodes[static_cast<std::size_t>(c)].op_type + " (only a softmax can take its fp16 output)";
    return "";
  }
  const int single = unary_operand(g, n);
  if (int8) {
    if (single >= 0 && !evaluator_supports(n)) return "no FP32 kernel to build its int8 table from";
    return "";
  }
  isa::ActFunction f;
  if (unary_ops().count(op) && op != "Relu" && op != "Clip" && !act_function_of(op, f)) return "op " + op + " has no fp16 act function";
  if (binary_ops().count(op) && n.inputs.size() != 2) return "needs two inputs";
  return "";
}

LayerCode generate_elementwise(CodegenContext& ctx, const Node& n) {
  const DdrTensor& y = ctx.tensor(n.outputs[0]);
  EltwisePlan plan = plan_elementwise(ctx, n);
  const std::size_t k = plan.operands.size();
  const std::int64_t out_es = y.elem;
  const EltwiseGeometry geo = eltwise_geometry(ctx, n, plan, y);
  const Dim &rows_dim = geo.rows_dim, &cols_dim = geo.cols_dim;
  const std::vector<Dim>& outer = geo.outer;

  const Residency resident = eltwise_residency(ctx, n, plan, geo, y);
  const bool store_output = ctx.in_ddr(n.outputs[0]);
  LayerCode out;
  out.mapping = map_elementwise(ctx, n, plan, geo, out_es, resident);
  const LayerMapping& map = out.mapping;
  const std::int64_t nr = map.loop(LoopDim::Rows).tile, nc = map.loop(LoopDim::Cols).tile;
  const std::uint64_t lut_at = plan.lut.empty() ? 0 : map.buffer(BufferRole::Table).at(0);
  std::uint64_t lut_ddr = plan.lut.empty() ? 0 : ctx.add_data(std::vector<std::uint8_t>(plan.lut.begin(), plan.lut.end()));
  // The stages this layer's tiles use: no load when every operand is on chip (its table, if
  // any, then loads ahead of the tiles: LayerStream::load_first), no store when the output
  // stays on chip alone.
  const bool loads = !std::all_of(resident.operand.begin(), resident.operand.end(), [](const auto& h) { return h.has_value(); });
  std::vector<Unit> chain;
  if (loads) chain.push_back(Unit::Load);
  chain.push_back(Unit::Vector);
  if (store_output) chain.push_back(Unit::Store);
  LayerStream stream(chain, false);
  if (!plan.lut.empty()) {
    std::vector<isa::Instruction> table_load;
    emit_linear_load(table_load, lut_ddr, lut_at, 256, ctx.alignment);
    stream.load_first(std::move(table_load));
  }
  std::vector<std::int64_t> idx(outer.size(), 0);
  std::int64_t t = 0;
  for (;;) {
    std::int64_t out_off = 0;
    std::vector<std::int64_t> op_off(k, 0);
    for (std::size_t d = 0; d < outer.size(); ++d) {
      out_off += idx[d] * outer[d].out_stride;
      for (std::size_t i = 0; i < k; ++i) op_off[i] += idx[d] * outer[d].stride[i];
    }
    for (std::int64_t r0 = 0; r0 < rows_dim.size; r0 += nr)
      for (std::int64_t c0 = 0; c0 < cols_dim.size; c0 += nc, ++t) {
        const std::int64_t tr = std::min(nr, rows_dim.size - r0), tc = std::min(nc, cols_dim.size - c0);
        const int slot = static_cast<int>(t % 2);
        TileStages& st = stream.new_tile();
        std::vector<EltwiseBuffer> buffers;
        for (std::size_t i = 0; i < k; ++i) {
          const DdrTensor& src = *plan.operands[i].tensor;
          const std::int64_t es = src.elem;
          const bool hr = rows_dim.stride[i] != 0, hc = cols_dim.stride[i] != 0;
          EltwiseBuffer b;
          b.col_stride = hc ? 1 : 0;
          b.row_stride = hr ? (hc ? tc : 1) : 0;
          b.count = (hr ? tr : 1) * (hc ? tc : 1);
          const std::int64_t off = op_off[i] + r0 * rows_dim.stride[i] + c0 * cols_dim.stride[i];
          if (resident.operand[i]) {  // laid out as the output, or a broadcast row: one run there
            b.addr = *resident.operand[i] + static_cast<std::uint64_t>(off * es);
            if (b.addr % ctx.alignment)
              throw CompileError(ctx.graph.source + ": layer '" + n.name + "': operand '" + plan.operands[i].value +
                                 "' on chip is read at an unaligned address");
            buffers.push_back(b);
            continue;
          }
          b.addr = map.buffer(BufferRole::Operand, static_cast<int>(i)).at(slot);
          buffers.push_back(b);
          DmaBox box;
          box.ddr_addr = src.addr + static_cast<std::uint64_t>(off * es);
          box.sram_addr = b.addr;
          box.run_bytes = static_cast<std::uint64_t>((hc ? tc : 1) * es);
          box.runs = static_cast<std::uint64_t>(hr ? tr : 1);
          box.ddr_stride = static_cast<std::uint64_t>(rows_dim.stride[i] * es);
          box.sram_stride = static_cast<std::uint64_t>(b.row_stride * es);
          emit_dma(st.load, Opcode::Load, box, ctx.alignment);
          out.planned_ddr_bytes += box.run_bytes * box.runs;
        }
        for (std::size_t j = 0; j < plan.temps.size(); ++j) {
          const int like = plan.temps[j].like_operand;
          EltwiseBuffer b;
          b.addr = map.buffer(BufferRole::Temp, static_cast<int>(j)).at(0);
          if (like >= 0) {
            b.row_stride = buffers[static_cast<std::size_t>(like)].row_stride;
            b.col_stride = buffers[static_cast<std::size_t>(like)].col_stride;
            b.count = buffers[static_cast<std::size_t>(like)].count;
          } else {
            b.row_stride = tc;
            b.col_stride = 1;
            b.count = tr * tc;
          }
          buffers.push_back(b);
        }
        const std::int64_t y_off = out_off + r0 * rows_dim.out_stride + c0 * cols_dim.out_stride;
        EltwiseBuffer result{resident.output ? *resident.output + static_cast<std::uint64_t>(y_off * out_es)
                                             : map.buffer(BufferRole::Output).at(slot),
                             tc, 1, tr * tc};
        buffers.push_back(result);
        auto buf = [&](int id) -> const EltwiseBuffer& { return id < 0 ? buffers.back() : buffers[static_cast<std::size_t>(id)]; };
        for (const auto& s : plan.steps)
          st.vector.push_back(step_instruction(s, buf(s.a), s.b == kNoBuffer ? buf(s.a) : buf(s.b), buf(s.out), tr, tc, lut_at));
        if (!store_output) continue;
        DmaBox store;
        store.ddr_addr = y.addr + static_cast<std::uint64_t>(y_off * out_es);
        store.sram_addr = result.addr;
        store.run_bytes = static_cast<std::uint64_t>(tc * out_es);
        store.runs = static_cast<std::uint64_t>(tr);
        store.ddr_stride = static_cast<std::uint64_t>(rows_dim.out_stride * out_es);
        store.sram_stride = store.run_bytes;
        emit_dma(st.store, Opcode::Store, store, ctx.alignment);
        out.planned_ddr_bytes += store.run_bytes * store.runs;
      }
    std::size_t d = outer.size();
    while (d > 0 && ++idx[d - 1] == outer[d - 1].size) idx[--d] = 0;
    if (d == 0) break;
  }
  out.code = stream.finish();
  return out;
}

// Inputs of the output's shape are read on chip, and broadcast ones that are a scalar, a row of
// the output's last axis (RMSNorm's 1 / rms) or the output's last two axes repeated along outer
// ones (rotary embeddings' cos and sin tables for every head); other broadcast ones from DDR.
// The output is written on chip.
bool eltwise_on_chip(const Graph& g, const Node& n, const std::string& value) {
  if (std::find(n.outputs.begin(), n.outputs.end(), value) != n.outputs.end()) return true;
  const Tensor& x = g.tensor(value);
  const Tensor& y = g.tensor(n.outputs[0]);
  if (!x.shape_known || !y.shape_known) return false;
  if (x.shape == y.shape || x.elements() == 1) return true;
  if (x.shape.empty() || x.shape.size() > y.shape.size() || x.shape.back() != y.shape.back()) return false;
  const std::size_t skip = y.shape.size() - x.shape.size();  // leading axes x does not have
  bool one_row = true;
  for (std::size_t d = 0; d + 1 < x.shape.size(); ++d) {
    if (x.shape[d] != 1 && x.shape[d] != y.shape[d + skip]) return false;
    one_row &= x.shape[d] == 1;
  }
  const std::size_t rows = x.shape.size() - 2;  // x's second-to-last axis, when it has one
  return one_row || (x.shape.size() >= 2 && x.shape[rows] == y.shape[rows + skip]);
}

bool is_elementwise(const Node& n) {
  if (is_int16_boundary_conversion(n) || n.has(kIndexClip)) return false;  // the converter family's
  return unary_ops().count(n.op_type) || binary_ops().count(n.op_type) || n.op_type == "Where";
}

}  // namespace

const NpuOpFamily& eltwise_family() {
  static const NpuOpFamily family{"eltwise", is_elementwise,
                                  eltwise_rejection, generate_elementwise, nullptr,
                                  /*region_aware=*/true, /*reads_resident=*/true, /*writes_resident=*/true,
                                  /*splitter=*/nullptr, eltwise_on_chip};
  return family;
}

}  // namespace npu::compiler
