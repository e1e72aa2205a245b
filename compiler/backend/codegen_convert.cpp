// Code for value-to-value converters: the precision converters of mixed programs
// (precision_converters.h), the int16 graph inputs and outputs (integer_boundary.h) and the
// clip of token ids into their table (move_params.h is_index_clip). The value's bytes stream
// through the scratchpad in tiles, vector instructions change them, and the result is stored.
// Both sides share shape and memory order, so a tile is a contiguous run of elements.
#include <algorithm>
#include <cstdlib>

#include "compiler/backend/codegen_context.h"
#include "compiler/backend/instruction_stream.h"
#include "compiler/backend/integer_boundary.h"
#include "compiler/backend/move_params.h"
#include "compiler/backend/op_registry.h"
#include "compiler/backend/precision_converters.h"
#include "isa/field_limits.h"

namespace npu::compiler {
namespace {

// Operands start at scratchpad alignment: two parameters take two slots of this many bytes.
constexpr std::uint64_t kParamSlot = 64;

// Streams a value through the scratchpad in element tiles, two slots of {input, output} after
// `param_slots` parameter slots (their first byte in `param`): `vector(stages, in, out, count,
// first_tile)` appends the tile's vector instructions; the output is read back from `out`. Both
// values share shape and order.
template <typename EmitVector>
LayerCode stream_elements(CodegenContext& ctx, const Node& n, const DdrTensor& x, const DdrTensor& y, int param_slots,
                          std::uint64_t& param, EmitVector vector) {
  const std::uint64_t total = static_cast<std::uint64_t>(x.elements());
  const auto per_element = static_cast<std::uint64_t>(x.elem + y.elem);
  const std::uint64_t params = static_cast<std::uint64_t>(param_slots) * kParamSlot;
  std::uint64_t tile = (ctx.sram_bytes - params) / 2 / per_element;
  tile = std::min<std::uint64_t>(tile, static_cast<std::uint64_t>(isa::field_max(Opcode::Quantize, Field::count)));
  tile = std::max<std::uint64_t>(64, tile / 64 * 64);
  tile = std::min(tile, total);
  LayerCode out;
  LayerMapping& map = out.mapping;
  map.unit = TileUnit::Vector;
  map.loops = {{LoopDim::Elements, static_cast<std::int64_t>(total), static_cast<std::int64_t>(tile)}};
  std::uint64_t at = 0;  // not region-aware: the whole scratchpad from 0
  if (params > 0) map.place(BufferRole::Params, 0, params, at);
  for (int i = 0; i < 2; ++i) {
    map.place(BufferRole::Input, 0, ctx.align(tile * static_cast<std::uint64_t>(x.elem)), at);
    map.place(BufferRole::Output, 0, ctx.align(tile * static_cast<std::uint64_t>(y.elem)), at);
  }
  if (at > ctx.sram_bytes)
    throw CompileError(ctx.graph.source + ": layer '" + n.name + "': a tile of " + std::to_string(tile) + " elements needs " +
                       std::to_string(at) + " bytes of SRAM; the scratchpad has " + std::to_string(ctx.sram_bytes));
  if (params > 0) param = map.buffer(BufferRole::Params).at(0);
  const MappingBuffer &in_slot = map.buffer(BufferRole::Input), &out_slot = map.buffer(BufferRole::Output);
  LayerStream stream({Unit::Load, Unit::Vector, Unit::Store}, false);
  std::int64_t t = 0;
  for (std::uint64_t first = 0; first < total; first += tile, ++t) {
    const std::uint64_t count = std::min(tile, total - first);
    TileStages& st = stream.new_tile();
    emit_linear_dma(st.load, Opcode::Load, x.addr + first * static_cast<std::uint64_t>(x.elem), in_slot.at(t),
                    count * static_cast<std::uint64_t>(x.elem), ctx.alignment);
    vector(st.vector, in_slot.at(t), out_slot.at(t), count, t == 0);
    emit_linear_dma(st.store, Opcode::Store, y.addr + first * static_cast<std::uint64_t>(y.elem), out_slot.at(t),
                    count * static_cast<std::uint64_t>(y.elem), ctx.alignment);
    out.planned_ddr_bytes += count * per_element;
  }
  out.code = stream.finish();
  return out;
}

LayerCode generate_convert(CodegenContext& ctx, const Node& n) {
  const bool quantize = n.op_type == "Quantize";
  const DdrTensor& x = ctx.tensor(n.inputs[0]);
  const DdrTensor& y = ctx.tensor(n.outputs[0]);
  const QuantParams q = quantize ? y.quant : x.quant;
  if (x.elements() != y.elements() || x.elem == y.elem || !(q.scale > 0.0f))
    throw CompileError(ctx.graph.source + ": converter '" + n.name + "' does not connect an int8 and an fp16 value");
  std::uint64_t no_param = 0;
  return stream_elements(ctx, n, x, y, 0, no_param, [&](std::vector<Instruction>& v, std::uint64_t in, std::uint64_t out,
                                                          std::uint64_t count, bool) {
    Instruction c = make(quantize ? Opcode::Quantize : Opcode::Dequantize,
                         {{Field::dtype, static_cast<std::int64_t>(isa::DType::Fp16)}, {Field::dst_addr, addr(out)},
                          {Field::src_addr, addr(in)}, {Field::count, static_cast<std::int64_t>(count)},
                          {Field::zero_point, q.zero_point}});
    c.set_float(Field::scale, q.scale);
    v.push_back(c);
  });
}

// An int16 graph input or output (integer_boundary.h): the int16 side is held as int32, the NPU
// side is int8 on its value's grid (s8, z8); the file gives the int16 side's (s16, z16). The
// vector unit computes in fp32 what ONNX's DequantizeLinear and QuantizeLinear compute, step for
// step (so no table of 65,536 entries and no new instruction):
//   in:  cast int32 -> fp32, + (-z16), * s16 (the real), quantize by s8 with z8 (an fp32
//        division, half to even, saturated to int8);
//   out: dequantize (y - z8) * s8 (the real), / s16, cast to int32 (half to even), + z16,
//        clip to [-32768, 32767].
// z16 and s16 are filled into the parameter slot once (z16 exactly: |z16| < 2^24).
LayerCode generate_int16_boundary(CodegenContext& ctx, const Node& n) {
  const bool into_npu = n.op_type == "DequantizeLinear";
  const DdrTensor& x = ctx.tensor(n.inputs[0]);
  const DdrTensor& y = ctx.tensor(n.outputs[0]);
  const QuantParams& npu_side = into_npu ? y.quant : x.quant;
  const float wide_scale = n.get_float("integer_scale", 0.0f);
  const auto wide_zero_point = static_cast<float>(n.get_int("integer_zero_point", 0));
  if (x.elements() != y.elements() || (into_npu ? x.elem : y.elem) != 4 || !(npu_side.scale > 0.0f) || !(wide_scale > 0.0f))
    throw CompileError(ctx.graph.source + ": int16 boundary '" + n.name + "' does not connect an int16 and an int8 value");
  const auto fp32 = static_cast<std::int64_t>(isa::DType::Fp32), int32 = static_cast<std::int64_t>(isa::DType::Int32);
  // param: the zero-point term (fp32 in, int32 out), one slot on s16 (fp32).
  std::uint64_t param = 0;
  auto element_op = [&](Opcode op, std::int64_t dtype, std::uint64_t at, std::int64_t count) {
    return make(op, {{Field::dtype, dtype}, {Field::dst_addr, addr(at)}, {Field::src_addr, addr(at)}, {Field::count, count}});
  };
  auto add_zero_point = [&](std::vector<Instruction>& v, std::int64_t dtype, std::uint64_t at, std::int64_t count) {
    if (wide_zero_point == 0.0f) return;
    Instruction bias = element_op(Opcode::BiasAdd, dtype, at, count);
    bias.set(Field::param_addr, addr(param));
    bias.set(Field::channels, 1);
    v.push_back(bias);
  };
  auto by_scale = [&](std::vector<Instruction>& v, isa::BinaryFunction f, std::uint64_t at, std::int64_t count) {
    v.push_back(make(Opcode::Binary, {{Field::dtype, fp32}, {Field::function, static_cast<std::int64_t>(f)}, {Field::dst_addr, addr(at)},
                                      {Field::a_addr, addr(at)}, {Field::b_addr, addr(param + kParamSlot)}, {Field::rows, 1},
                                      {Field::cols, count}, {Field::a_row_stride, count}, {Field::a_col_stride, 1},
                                      {Field::b_row_stride, 0}, {Field::b_col_stride, 0}}));
  };
  return stream_elements(ctx, n, x, y, 2, param, [&](std::vector<Instruction>& v, std::uint64_t in, std::uint64_t out,
                                                   std::uint64_t elements, bool first_tile) {
    const auto count = static_cast<std::int64_t>(elements);
    if (first_tile) {
      Instruction zero = make(Opcode::Fill, {{Field::dtype, into_npu ? fp32 : int32}, {Field::dst_addr, addr(param)}, {Field::count, 1}});
      zero.set_float(Field::value, into_npu ? -wide_zero_point : wide_zero_point);
      Instruction scale = make(Opcode::Fill, {{Field::dtype, fp32}, {Field::dst_addr, addr(param + kParamSlot)}, {Field::count, 1}});
      scale.set_float(Field::value, wide_scale);
      if (wide_zero_point != 0.0f) v.push_back(zero);
      v.push_back(scale);
    }
    if (into_npu) {  // the fp32 work in place in the int32 input slot
      v.push_back(make(Opcode::Cast, {{Field::src_dtype, int32}, {Field::dst_dtype, fp32}, {Field::dst_addr, addr(in)},
                                      {Field::src_addr, addr(in)}, {Field::count, count}}));
      add_zero_point(v, fp32, in, count);
      by_scale(v, isa::BinaryFunction::Mul, in, count);
      Instruction q = make(Opcode::Quantize, {{Field::dtype, fp32}, {Field::dst_addr, addr(out)}, {Field::src_addr, addr(in)},
                                              {Field::count, count}, {Field::zero_point, npu_side.zero_point}});
      q.set_float(Field::scale, npu_side.scale);
      v.push_back(q);
      return;
    }
    Instruction dq = make(Opcode::Dequantize, {{Field::dtype, fp32}, {Field::dst_addr, addr(out)}, {Field::src_addr, addr(in)},
                                               {Field::count, count}, {Field::zero_point, npu_side.zero_point}});
    dq.set_float(Field::scale, npu_side.scale);
    v.push_back(dq);
    by_scale(v, isa::BinaryFunction::Div, out, count);
    v.push_back(make(Opcode::Cast, {{Field::src_dtype, fp32}, {Field::dst_dtype, int32}, {Field::dst_addr, addr(out)},
                                    {Field::src_addr, addr(out)}, {Field::count, count}}));
    add_zero_point(v, int32, out, count);
    Instruction clip = element_op(Opcode::Clip, int32, out, count);
    clip.set_float(Field::lo, -32768.0f);
    clip.set_float(Field::hi, 32767.0f);
    v.push_back(clip);
  });
}

// Token ids clipped into a table (move_params.h is_index_clip): int32 in and out, one clip
// instruction per tile. The bounds are integers; clip compares the int32 ids with them exactly.
LayerCode generate_index_clip(CodegenContext& ctx, const Node& n) {
  const DdrTensor& x = ctx.tensor(n.inputs[0]);
  const DdrTensor& y = ctx.tensor(n.outputs[0]);
  const std::int64_t lo = ctx.graph.tensor(n.inputs[1]).ints.at(0), hi = ctx.graph.tensor(n.inputs[2]).ints.at(0);
  if (x.elem != 4 || y.elem != 4 || x.elements() != y.elements() || std::llabs(lo) > (1 << 24) || std::llabs(hi) > (1 << 24))
    throw CompileError(ctx.graph.source + ": layer '" + n.name + "' (Clip): ids are not int32 or the bounds exceed 2^24");
  std::uint64_t param = 0;
  return stream_elements(ctx, n, x, y, 2, param, [&](std::vector<Instruction>& v, std::uint64_t in, std::uint64_t out,
                                                   std::uint64_t elements, bool) {
    Instruction clip = make(Opcode::Clip, {{Field::dtype, static_cast<std::int64_t>(isa::DType::Int32)}, {Field::dst_addr, addr(out)},
                                           {Field::src_addr, addr(in)}, {Field::count, static_cast<std::int64_t>(elements)}});
    clip.set_float(Field::lo, static_cast<float>(lo));
    clip.set_float(Field::hi, static_cast<float>(hi));
    v.push_back(clip);
  });
}

LayerCode generate_converter(CodegenContext& ctx, const Node& n) {
  if (is_int16_boundary_conversion(n)) return generate_int16_boundary(ctx, n);
  if (n.has(kIndexClip)) return generate_index_clip(ctx, n);
  return generate_convert(ctx, n);
}

// Element-type changes and the int32 id clip: value to value in element tiles.
bool converts(const Node& n) { return is_precision_converter(n) || is_int16_boundary_conversion(n) || n.has(kIndexClip); }

}  // namespace

const NpuOpFamily& converter_family() {
  static const NpuOpFamily family{"converter", converts,
                                  nullptr, generate_converter, nullptr,
                                  /*region_aware=*/false, /*reads_resident=*/false, /*writes_resident=*/false};
  return family;
}

}  // namespace npu::compiler
