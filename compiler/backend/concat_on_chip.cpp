#include "compiler/backend/concat_on_chip.h"

#include <algorithm>

#include "compiler/backend/instruction_stream.h"
#include "compiler/backend/move_params.h"

namespace npu::compiler {
namespace {

// Channels innermost and every byte used: pixel p's channels at [p * c, (p + 1) * c).
bool dense_nhwc(const DdrTensor& t) {
  return t.shape.size() == 4 && t.strides.size() == 4 && t.shape[0] == 1 && t.strides[1] == 1 &&
         t.strides[3] == t.shape[1] && t.strides[2] == t.shape[1] * t.shape[3];
}

}  // namespace

bool move_on_chip(const Graph& graph, const Node& node, const std::string& value) {
  return is_channel_concat(graph, node) || (value == node.outputs[0] && is_row_gather(graph, node));
}

bool moves_values_on_chip(const CodegenContext& ctx, const Node& node) {
  for (const auto* names : {&node.inputs, &node.outputs})
    for (const auto& v : *names)
      if (!v.empty() && !ctx.graph.is_constant(v) && ctx.resident(v)) return true;
  return false;
}

LayerCode generate_concat_on_chip(CodegenContext& ctx, const Node& n) {
  const Graph& g = ctx.graph;
  auto refuse = [&](const std::string& why) {
    throw CompileError(g.source + ": layer '" + n.name + "' (" + n.op_type + "): " + why);
  };
  if (!is_channel_concat(g, n)) refuse("only a channel Concat of 4-D values moves values kept on chip");
  if (ctx.part) refuse("an engine's part of a layer moves no values kept on chip");
  if (ctx.concat_in_place.count(n.outputs[0])) refuse("a Concat written in place keeps its values in DDR");
  const DdrTensor& y = ctx.tensor(n.outputs[0]);
  if (!dense_nhwc(y)) refuse("values on chip: the output is not dense NHWC");
  const auto es = static_cast<std::uint64_t>(y.elem);
  const auto pixels = static_cast<std::uint64_t>(y.shape[2] * y.shape[3]);
  const auto y_row = static_cast<std::uint64_t>(y.shape[1]) * es;
  const std::optional<std::uint64_t> y_home = ctx.resident(n.outputs[0]);
  const bool y_stored = ctx.in_ddr(n.outputs[0]);

  LayerCode code;
  LayerMapping& map = code.mapping;
  map.unit = TileUnit::Dma;
  map.region_base = ctx.sram_base;
  const std::uint64_t slot_bytes = std::min<std::uint64_t>(ctx.sram_bytes / 2 / ctx.alignment * ctx.alignment, 64 * 1024);
  if (slot_bytes < ctx.alignment) refuse("the scratchpad is too small for a copy");
  std::uint64_t at = ctx.sram_base;
  const std::uint64_t slots[2] = {map.place(BufferRole::Input, 0, slot_bytes, at), map.place(BufferRole::Input, 0, slot_bytes, at)};
  map.loops = {{LoopDim::Elements, static_cast<std::int64_t>(pixels * y_row / es),
                static_cast<std::int64_t>(std::min(pixels * y_row, slot_bytes) / es)}};
  std::vector<isa::Instruction>& out = code.code;
  int next_slot = 0;
  // rows pixels of `row` bytes from `src` (pitch src_stride) into the output's pixels from
  // `first`, channel bytes [offset, offset + row), in the scratchpad.
  auto copy_into_output = [&](std::uint64_t src, std::uint64_t src_stride, std::uint64_t first, std::uint64_t rows,
                              std::uint64_t offset, std::uint64_t row) {
    const std::uint64_t dst = *y_home + first * y_row + offset;
    const std::uint64_t base = dst / ctx.alignment * ctx.alignment;
    out.push_back(make(Opcode::Copy, {{Field::dst_addr, addr(base)}, {Field::src_addr, addr(src)},
                                      {Field::rows, addr(rows)}, {Field::row_bytes, addr(row)},
                                      {Field::dst_stride, addr(y_row)}, {Field::src_stride, addr(src_stride)},
                                      {Field::dst_offset, addr(dst - base)}}));
  };
  // The same rows from the scratchpad (pitch `row`) into the output's pixels in DDR: a window of
  // one row of `pixels` pixels, the part's channels.
  auto store_into_output = [&](std::uint64_t src, std::uint64_t first, std::uint64_t rows, std::uint64_t offset,
                               std::uint64_t row) {
    const auto e = static_cast<std::int64_t>(es);
    emit_dma(out, Opcode::Store,
             window_box(y.addr, src, 0, 1, static_cast<std::int64_t>(first), static_cast<std::int64_t>(rows),
                        static_cast<std::int64_t>(pixels), y.shape[1], static_cast<std::int64_t>(offset) / e,
                        static_cast<std::int64_t>(row) / e, e),
             ctx.alignment);
    code.planned_ddr_bytes += rows * row;
  };
  std::uint64_t offset = 0;  // bytes into an output pixel
  for (const auto& in : n.inputs) {
    const DdrTensor& x = ctx.tensor(in);
    if (!dense_nhwc(x) || x.elem != y.elem || x.shape[2] != y.shape[2] || x.shape[3] != y.shape[3])
      refuse("values on chip: part '" + in + "' is not dense NHWC pixels of the output's size and element");
    const auto row = static_cast<std::uint64_t>(x.shape[1]) * es;
    const std::optional<std::uint64_t> x_home = ctx.resident(in);
    if (x_home && y_home) {
      copy_into_output(*x_home, row, 0, pixels, offset, row);
    } else if (x_home) {
      store_into_output(*x_home, 0, pixels, offset, row);
    } else {  // in DDR: through the staging slots
      if (row > slot_bytes) refuse("values on chip: a pixel of part '" + in + "' does not fit a staging slot");
      const std::uint64_t chunk = slot_bytes / row;
      for (std::uint64_t p0 = 0; p0 < pixels; p0 += chunk) {
        const std::uint64_t rows = std::min(chunk, pixels - p0);
        const std::uint64_t slot = slots[next_slot++ % 2];
        emit_linear_load(out, x.addr + p0 * row, slot, rows * row, ctx.alignment);
        code.planned_ddr_bytes += rows * row;
        if (y_home) copy_into_output(slot, row, p0, rows, offset, row);
        else store_into_output(slot, p0, rows, offset, row);
      }
    }
    offset += row;
  }
  if (y_home && y_stored) {
    emit_linear_dma(out, Opcode::Store, y.addr, *y_home, pixels * y_row, ctx.alignment);
    code.planned_ddr_bytes += pixels * y_row;
  }
  if (out.empty()) refuse("internal: a Concat with nothing to move");
  return code;
}

}  // namespace npu::compiler
