// Code for the precision converters of mixed programs (precision_converters.h): the value's
// bytes stream through the scratchpad in tiles, the vector unit's quantize / dequantize changes
// their element type, and the result is stored. Both sides share shape and memory order, so a
// tile is a contiguous run of elements.
#include <algorithm>

#include "compiler/backend/codegen_context.h"
#include "compiler/backend/instruction_stream.h"
#include "compiler/backend/op_registry.h"
#include "compiler/backend/precision_converters.h"
#include "isa/field_limits.h"

namespace npu::compiler {
namespace {

std::int64_t addr(std::uint64_t a) { return static_cast<std::int64_t>(a); }

LayerCode generate_convert(CodegenContext& ctx, const Node& n) {
  const bool quantize = n.op_type == "Quantize";
  const DdrTensor& x = ctx.tensor(n.inputs[0]);
  const DdrTensor& y = ctx.tensor(n.outputs[0]);
  const QuantParams q = quantize ? y.quant : x.quant;
  if (x.elements() != y.elements() || x.elem == y.elem || !(q.scale > 0.0f))
    throw CompileError(ctx.graph.source + ": converter '" + n.name + "' does not connect an int8 and an fp16 value");
  const std::uint64_t total = static_cast<std::uint64_t>(x.elements());
  // Two slots of (source + result) elements, 3 bytes per element, within the scratchpad.
  const std::uint64_t per_element = static_cast<std::uint64_t>(x.elem + y.elem);
  std::uint64_t tile = ctx.sram_bytes / 2 / per_element;
  tile = std::min<std::uint64_t>(tile, static_cast<std::uint64_t>(isa::field_max(Opcode::Quantize, Field::count)));
  tile = std::max<std::uint64_t>(64, tile / 64 * 64);
  tile = std::min(tile, total);
  LayerCode out;
  LayerMapping& map = out.mapping;
  map.unit = TileUnit::Vector;
  map.loops = {{LoopDim::Elements, static_cast<std::int64_t>(total), static_cast<std::int64_t>(tile)}};
  std::uint64_t at = 0;  // not region-aware: the whole scratchpad from 0
  for (int i = 0; i < 2; ++i) {
    map.place(BufferRole::Input, 0, ctx.align(tile * static_cast<std::uint64_t>(x.elem)), at);
    map.place(BufferRole::Output, 0, ctx.align(tile * static_cast<std::uint64_t>(y.elem)), at);
  }
  const MappingBuffer &in_slot = map.buffer(BufferRole::Input), &out_slot = map.buffer(BufferRole::Output);
  if (at > ctx.sram_bytes)
    throw CompileError(ctx.graph.source + ": converter '" + n.name + "': a tile of " + std::to_string(tile) +
                       " elements needs " + std::to_string(at) + " bytes of SRAM; the scratchpad has " +
                       std::to_string(ctx.sram_bytes));
  LayerStream stream({Unit::Load, Unit::Vector, Unit::Store}, false);
  std::int64_t t = 0;
  for (std::uint64_t first = 0; first < total; first += tile, ++t) {
    const std::uint64_t count = std::min(tile, total - first);
    TileStages& st = stream.new_tile();
    emit_linear_dma(st.load, Opcode::Load, x.addr + first * static_cast<std::uint64_t>(x.elem), in_slot.at(t),
           count * static_cast<std::uint64_t>(x.elem), ctx.alignment);
    Instruction in = make(quantize ? Opcode::Quantize : Opcode::Dequantize,
                          {{Field::dtype, static_cast<std::int64_t>(isa::DType::Fp16)}, {Field::dst_addr, addr(out_slot.at(t))},
                           {Field::src_addr, addr(in_slot.at(t))}, {Field::count, static_cast<std::int64_t>(count)},
                           {Field::zero_point, q.zero_point}});
    in.set_float(Field::scale, q.scale);
    st.vector.push_back(in);
    emit_linear_dma(st.store, Opcode::Store, y.addr + first * static_cast<std::uint64_t>(y.elem), out_slot.at(t),
           count * static_cast<std::uint64_t>(y.elem), ctx.alignment);
    out.planned_ddr_bytes += count * per_element;
  }
  out.code = stream.finish();
  return out;
}

}  // namespace

const NpuOpFamily& converter_family() {
  static const NpuOpFamily family{"converter", is_precision_converter,
                                  nullptr, generate_convert, nullptr,
                                  /*region_aware=*/false, /*reads_resident=*/false, /*writes_resident=*/false};
  return family;
}

}  // namespace npu::compiler
