// Gather with run-time indices (token embeddings): per tile, the int32 indices are loaded into
// the scratchpad, the gather instruction fetches the rows they name from the table in DDR, and
// a store writes them to the output. Rows longer than a DMA run go in column chunks.
#include <algorithm>
#include <optional>

#include "compiler/backend/codegen_move.h"
#include "compiler/backend/instruction_stream.h"
#include "compiler/backend/move_params.h"
#include "isa/field_limits.h"

namespace npu::compiler {
namespace {

// The gather's field limits, from the ISA table.
constexpr std::uint64_t kRunMax = static_cast<std::uint64_t>(isa::field_max(Opcode::Gather, Field::len0));
constexpr std::uint64_t kIndicesMax = static_cast<std::uint64_t>(isa::field_max(Opcode::Gather, Field::count));
constexpr std::uint64_t kTableRowsMax = static_cast<std::uint64_t>(isa::field_max(Opcode::Gather, Field::rows));

struct RowTable {
  std::int64_t rows = 0;       // along the gathered axis
  std::int64_t row_elems = 1;  // the axes after it
};

RowTable row_table(const Graph& g, const Node& n) {
  const auto& xs = g.tensor(n.inputs[0]).shape;
  const auto axis = static_cast<std::size_t>(gather_axis(g, n));
  RowTable t;
  t.rows = xs[axis];
  for (std::size_t a = axis + 1; a < xs.size(); ++a) t.row_elems *= xs[a];
  return t;
}

[[noreturn]] void internal(const CodegenContext& ctx, const Node& n, const std::string& what) {
  throw CompileError(ctx.graph.source + ": layer '" + n.name + "' (Gather): internal: " + what);
}

bool row_major(const DdrTensor& t) {
  std::int64_t stride = 1;
  for (std::size_t a = t.shape.size(); a-- > 0;) {
    if (t.shape[a] != 1 && t.strides[a] != stride) return false;
    stride *= t.shape[a];
  }
  return true;
}

}  // namespace

std::string row_gather_rejection(const Graph& g, const Node& n) {
  const auto& xs = g.tensor(n.inputs[0]).shape;
  const auto axis = static_cast<std::size_t>(gather_axis(g, n));
  for (std::size_t a = 0; a < axis; ++a)
    if (xs[a] != 1) return "run-time indices on axis " + std::to_string(axis) + " with outer axes of more than one element (the gather instruction picks whole rows)";
  const RowTable t = row_table(g, n);
  if (t.rows < 1 || static_cast<std::uint64_t>(t.rows) > kTableRowsMax)
    return "a table of " + std::to_string(t.rows) + " rows (the gather instruction indexes 1 to " + std::to_string(kTableRowsMax) + ")";
  if (t.row_elems * 2 > static_cast<std::int64_t>(isa::field_max(Opcode::Gather, Field::ddr_stride1)))
    return "table rows of " + std::to_string(t.row_elems) + " elements (longer than the gather's DDR stride can hold)";
  return "";
}

LayerCode generate_row_gather(CodegenContext& ctx, const Node& n) {
  const Graph& g = ctx.graph;
  const DdrTensor& y = ctx.tensor(n.outputs[0]);
  const DdrTensor& indices = ctx.tensor(n.inputs[1]);
  const DdrTensor& table = g.is_constant(n.inputs[0]) ? ctx.constant(n.inputs[0], y.quant) : ctx.tensor(n.inputs[0]);
  if (indices.elem != 4 || !row_major(indices)) internal(ctx, n, "the indices are not dense int32");
  if (table.elem != y.elem || !row_major(table) || !row_major(y)) internal(ctx, n, "table and output are not row-major alike");
  const RowTable t = row_table(g, n);
  const auto es = static_cast<std::uint64_t>(y.elem);
  const std::uint64_t row_bytes = static_cast<std::uint64_t>(t.row_elems) * es;
  const auto count = static_cast<std::uint64_t>(indices.elements());

  // Four slots (two tiles in flight while two are stored), each the tile's indices then its rows.
  const std::uint64_t slot_bytes = std::min<std::uint64_t>(ctx.sram_bytes / 4 / ctx.alignment * ctx.alignment, 256 * 1024);
  const std::uint64_t chunk_max = std::min(kRunMax, slot_bytes / 2) / ctx.alignment * ctx.alignment;
  if (chunk_max == 0) throw CompileError(g.source + ": layer '" + n.name + "': the scratchpad is too small for a gather");
  const std::uint64_t chunk = std::min(row_bytes, chunk_max);
  const std::uint64_t chunk_stride = ctx.align(chunk);
  const std::uint64_t per_tile = std::min({count, kIndicesMax, (slot_bytes - ctx.alignment) / (chunk_stride + 4)});
  if (per_tile == 0) throw CompileError(g.source + ": layer '" + n.name + "': the scratchpad is too small for a gather");

  // Where the step scheduler keeps the output on chip, the rows land there, dense, and are
  // stored only if something reads them from DDR too (a rotary table's cos and sin rows for the
  // Muls after them; a token's embedding for the norm after it).
  const std::optional<std::uint64_t> home = ctx.resident(n.outputs[0]);
  const bool store = !home || ctx.in_ddr(n.outputs[0]);
  if (home && chunk != row_bytes)
    throw CompileError(g.source + ": layer '" + n.name + "': a gathered row wider than one transfer cannot stay on chip");

  LayerCode code;
  LayerMapping& map = code.mapping;
  map.unit = TileUnit::Dma;
  map.region_base = ctx.sram_base;
  map.loops = {{LoopDim::Elements, static_cast<std::int64_t>(count * row_bytes / es),
                static_cast<std::int64_t>(per_tile * chunk / es)}};
  std::uint64_t at = ctx.sram_base;
  std::vector<std::uint64_t> slots;
  for (int i = 0; i < 4; ++i) slots.push_back(map.place(BufferRole::Input, 0, slot_bytes, at));

  LayerStream stream{store ? std::vector<Unit>{Unit::Load, Unit::Store} : std::vector<Unit>{Unit::Load}, false};
  int tile = 0;
  for (std::uint64_t first = 0; first < count; first += per_tile) {
    const std::uint64_t k = std::min(per_tile, count - first);
    for (std::uint64_t col = 0; col < row_bytes; col += chunk) {
      const std::uint64_t len = std::min(chunk, row_bytes - col);
      const std::uint64_t slot = slots[static_cast<std::size_t>(tile++) % slots.size()];
      const std::uint64_t rows_at = home ? *home + first * row_bytes : slot + ctx.align(4 * k);
      const std::uint64_t rows_stride = home ? row_bytes : chunk_stride;
      if (rows_at % ctx.alignment)
        throw CompileError(g.source + ": layer '" + n.name + "': gathered rows on chip at an unaligned address");
      TileStages& st = stream.new_tile();
      emit_linear_load(st.load, indices.addr + 4 * first, slot, 4 * k, ctx.alignment);
      st.load.push_back(make(Opcode::Gather, {{Field::channel, 0},
                                              {Field::ddr_addr, static_cast<std::int64_t>(table.addr + col)},
                                              {Field::sram_addr, static_cast<std::int64_t>(rows_at)},
                                              {Field::index_addr, static_cast<std::int64_t>(slot)},
                                              {Field::len0, static_cast<std::int64_t>(len)},
                                              {Field::count, static_cast<std::int64_t>(k)},
                                              {Field::rows, t.rows},
                                              {Field::ddr_stride1, static_cast<std::int64_t>(row_bytes)},
                                              {Field::sram_stride1, static_cast<std::int64_t>(rows_stride)}}));
      code.planned_ddr_bytes += 4 * k + k * len;
      if (!store) continue;
      DmaBox out;
      out.ddr_addr = y.addr + first * row_bytes + col;
      out.sram_addr = rows_at;
      out.run_bytes = len;
      out.runs = k;
      out.ddr_stride = row_bytes;
      out.sram_stride = rows_stride;
      emit_dma(st.store, Opcode::Store, out, ctx.alignment);
      code.planned_ddr_bytes += k * len;
    }
  }
  code.code = stream.finish();
  return code;
}

}  // namespace npu::compiler
