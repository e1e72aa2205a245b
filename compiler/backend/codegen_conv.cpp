// Code for fused Conv / Gemm layers: the MAC array accumulates a tile, its output stage
// (drain) adds the bias and requantises int8 accumulators as they leave the array, the vector
// unit runs the rest of the epilogue (LUT activation, residual add; fp16: bias, activation,
// cast, residual add) in SRAM, and only the final int8/fp16 result leaves the array: into the output value where the
// step scheduler keeps it resident, and/or to DDR. Tiles are emitted in issue order; the
// dependency tokens come from compiler/backend/dependency_tokens.h.
#include <algorithm>
#include <limits>

#include "compiler/backend/codegen_context.h"
#include "compiler/backend/conv_layer.h"
#include "compiler/backend/eltwise_plan.h"
#include "compiler/backend/instruction_stream.h"
#include "compiler/backend/isa_limits.h"
#include "compiler/backend/op_registry.h"
#include "compiler/backend/sram_tiling.h"
#include "compiler/quant/int8_layer_params.h"
#include "isa/field_limits.h"

namespace npu::compiler {
namespace {

using namespace isa_limits;

constexpr std::int64_t kDtypeFp16 = static_cast<std::int64_t>(isa::DType::Fp16);
constexpr std::int64_t kDtypeFp32 = static_cast<std::int64_t>(isa::DType::Fp32);

std::int64_t mac_dtype_of(bool int8) {
  return static_cast<std::int64_t>(int8 ? isa::MacDType::Int8 : isa::MacDType::Fp16);
}

int act_function(const std::string& a) {
  isa::ActFunction f;
  if (!act_function_of(a, f)) throw CompileError("activation " + a + " has no fp16 act function");
  return static_cast<int>(f);
}

// Whether the previous layer's region covers the bottom of this layer's bytes
// [sram_base, +used) but not their top: the first tile's buffers then go at the top
// (TilePlan::sram_top_down), where its loads need not wait for that layer.
bool top_down_pays(const CodegenContext& ctx, std::uint64_t used) {
  const SramRegion& p = ctx.previous_region;
  const std::uint64_t begin = ctx.sram_base, end = ctx.sram_base + used;
  return p.bytes > 0 && p.base <= begin && p.base + p.bytes > begin && p.base + p.bytes < end;
}

// FusedConv / FusedGemm: the conv or gemm instruction's fields; fp16 needs an act function for
// the fused activation.
std::string fused_activation_rejection(const Node& n, bool int8) {
  const std::string act = n.get_string("activation", "");
  isa::ActFunction f;
  if (!int8 && !act.empty() && act != "Relu" && act != "Clip" && !act_function_of(act, f))
    return "activation " + act + " has no fp16 act function";
  return "";
}

std::string conv_rejection(const Graph& g, const Node& n, bool int8) {
  const std::string& op = n.op_type;
  const auto& xs = g.tensor(n.inputs[0]).shape;
  if (op == "FusedConv") {
    const Tensor& w = g.tensor(n.inputs[1]);
    if (xs.size() != 4) return "only 2-D convolution maps to the conv instruction";
    auto geo = window_geometry(n, xs, w.shape[2], w.shape[3]);
    auto why = check_window(geo, kConvKernelMax, kConvKernelBits, kConvStrideMax, kConvStrideBits, true);
    if (!why.empty()) return why;
    const bool pointwise = geo.kernel_h == 1 && geo.kernel_w == 1 && geo.stride_h == 1 && geo.stride_w == 1 &&
                           geo.pad_top == 0 && geo.pad_left == 0 && geo.pad_bottom == 0 && geo.pad_right == 0;
    if (xs[3] > kTileDimMax && !pointwise) return too_wide("input width", xs[3], kTileDimMax, kTileDimBits);
    if (xs[1] > kChannelsMax || w.shape[0] > kChannelsMax) return too_wide("channels", std::max(xs[1], w.shape[0]), kChannelsMax, kChannelsBits);
    return fused_activation_rejection(n, int8);
  }
  if (xs.size() < 2) return "Gemm input is 1-D";
  if (xs.back() > kChannelsMax) return too_wide("inner dimension", xs.back(), kChannelsMax, kChannelsBits);
  return fused_activation_rejection(n, int8);
}

// Where the step scheduler's plans of this layer (or of this engine's part of it, priced with
// the tiling config) are kept.
std::string part_plan_key(const CodegenContext& ctx, const ConvLayer& L, const ConvPart& P) {
  std::string key = conv_plan_key(L) + P.key;
  if (ctx.tiling_config) key += "/bw" + std::to_string(ctx.tiling_config->ddr.bandwidth_gbps);
  return key;
}

// This engine's part of the layer (ctx.part), planned with the weight load order its row parts
// share (ctx.weight_orders).
ConvPart engine_part(const CodegenContext& ctx, const ConvLayer& L) {
  ConvPart P = conv_part(L, ctx.part);
  if (ctx.part && ctx.part->dim == LoopDim::Rows)
    if (auto it = ctx.weight_orders.find(L.s.name); it != ctx.weight_orders.end()) {
      P.s.weight_order = it->second;
      P.key += "/ordered";
    }
  return P;
}

std::optional<LayerDemand> conv_demand(CodegenContext& ctx, const Node& n, std::uint64_t budget) {
  const ConvLayer L = describe_conv_layer(ctx, n);
  ConvPart P = engine_part(ctx, L);
  // Below the whole scratchpad a region too small for the shared load order is too small: the
  // step scheduler then gives the layer more room rather than loads that do not multicast.
  if (P.s.weight_order && budget < ctx.sram_capacity) P.s.weight_order->strict = true;
  const std::string key = part_plan_key(ctx, L, P);
  std::vector<TilePlan>& plans = ctx.conv_plans[key];
  auto [known, fresh] = ctx.conv_plan_of_budget.try_emplace({key, budget}, -1);
  if (fresh) {
    auto plan = try_plan_conv_tiles(P.s, budget, ctx.alignment, &ctx.tiling());
    if (plan) {
      known->second = static_cast<std::ptrdiff_t>(plans.size());
      plans.push_back(std::move(*plan));
    }
  }
  if (known->second < 0) return std::nullopt;
  const TilePlan& plan = plans[static_cast<std::size_t>(known->second)];
  LayerDemand d{plan.sram.total, plan.est_cycles, plan.bus_bytes};
  d.weight_slot_bytes = plan.weight_slot_bytes;
  return d;
}

// The plan for the region the step scheduler gave: the fastest of the plans its questions
// produced that fits (a third weight buffer comes out of the region when the scheduler added
// room for one), else the tiler's own from this budget.
TilePlan choose_conv_plan(CodegenContext& ctx, const ConvLayer& L, const ConvPart& P) {
  // A plan in the load order the layer's row parts share beats any other (their loads then
  // multicast); among equals, the fastest.
  const auto ordered = [&](const TilePlan& p) { return P.s.weight_order && weight_load_order(p) == *P.s.weight_order; };
  const TilePlan* known = nullptr;
  for (const TilePlan& p : ctx.conv_plans[part_plan_key(ctx, L, P)])
    if (p.sram.total + (ctx.third_weight_slot ? p.weight_slot_bytes : 0) <= ctx.sram_bytes &&
        (!ctx.third_weight_slot || p.weight_slot_bytes > 0) &&
        (!known || (ordered(p) != ordered(*known) ? ordered(p) : p.est_cycles < known->est_cycles)))
      known = &p;
  TilePlan plan = known ? *known : plan_conv_tiles(P.s, ctx.sram_bytes, ctx.alignment, &ctx.tiling());
  if (ctx.third_weight_slot)
    if (auto deeper = with_third_weight_slot(plan); deeper && deeper->sram.total <= ctx.sram_bytes) plan = std::move(*deeper);
  place_part_plan(plan, P, L.s);
  return plan;
}

// Where the layer's activations are: in DDR (looked up before the constants are placed, since
// a value's first lookup allocates its DDR) and, where the step keeps them, in the scratchpad.
struct ConvOperands {
  const DdrTensor* x = nullptr;
  const DdrTensor* y = nullptr;
  const DdrTensor* residual = nullptr;
  std::optional<std::uint64_t> x_home, y_home, residual_home;
};

ConvOperands conv_operands(CodegenContext& ctx, const ConvLayer& L) {
  ConvOperands v;
  v.x = &ctx.tensor(L.x);
  v.y = &ctx.tensor(L.y);
  v.residual = L.residual ? &ctx.tensor(L.res) : nullptr;
  v.x_home = ctx.resident(L.x);
  v.y_home = ctx.resident(L.y);
  v.residual_home = L.residual ? ctx.resident(L.res) : std::nullopt;
  return v;
}

// Input rows [ih0, ih1) and columns [iw0, iw1) a tile reads, clipped to the tensor, with the
// unclipped window [start, end] x [cstart, cend] whose overhang is the instruction's padding.
struct InputWindow {
  std::int64_t start = 0, end = 0, ih0 = 0, ih1 = 0;
  std::int64_t cstart = 0, cend = 0, iw0 = 0, iw1 = 0;
};

// A conv/gemm layer's code, tile by tile in issue order, from its plan, mapping and constants:
// per chunk its parameters and weights, per tile its input window (or the resident rows), the
// residual, one conv/gemm per reduction slice, the epilogue and the store.
class ConvTileEmitter {
 public:
  ConvTileEmitter(CodegenContext& ctx, const Node& n, const ConvLayer& L, const TilePlan& plan, const ConvOperands& v,
                  const ConvConstants& k, const Int8ConvParams& q, LayerCode& out)
      : ctx_(ctx), n_(n), L_(L), s_(L.s), plan_(plan), v_(v), k_(k), q_(q), out_(out), map_(out.mapping),
        es_(ctx.elem_bytes()), icg_(L.s.c / L.s.groups),
        x_row_(static_cast<std::uint64_t>(L.s.w * L.s.c * ctx.elem_bytes())),
        y_row_(static_cast<std::uint64_t>(L.s.ow * L.s.oc * ctx.elem_bytes())),
        lut_at_(L.s.lut ? out.mapping.buffer(BufferRole::Table).at(0) : 0) {}

  void tile(std::size_t t);

 private:
  void load_chunk(const ConvTile& tile);
  InputWindow input_window(const ConvTile& tile) const;
  void reduction_slice(const ConvTile& tile, std::int64_t k, const InputWindow& w, std::uint64_t acc);
  std::uint64_t slice_input(const ConvTile& tile, std::int64_t c0, std::int64_t cs, std::int64_t kh0, std::int64_t kh1,
                            const InputWindow& w, const std::string* part);
  void epilogue(std::uint64_t acc, std::uint64_t o_slot, std::uint64_t res_slot, std::int64_t count, std::int64_t ch_oc);

  CodegenContext& ctx_;
  const Node& n_;
  const ConvLayer& L_;
  const ConvShape& s_;
  const TilePlan& plan_;
  const ConvOperands& v_;
  const ConvConstants& k_;
  const Int8ConvParams& q_;
  LayerCode& out_;
  const LayerMapping& map_;
  const std::int64_t es_, icg_;
  const std::uint64_t x_row_, y_row_, lut_at_;
  // Where the tiles are: the chunk whose parameters and weights are loaded, the input window
  // last loaded, and how often each buffer was filled (each fill takes its next slot).
  std::int64_t last_chunk_ = -1, last_window_ = -1;
  std::int64_t param_loads_ = 0, weight_loads_ = 0, input_loads_ = 0;
  std::uint64_t pbase_ = 0, w_slot_ = 0, in_slot_ = 0;
};

void ConvTileEmitter::tile(std::size_t t) {
  std::vector<Instruction>& code = out_.code;
  const ConvTile& tile = plan_.tiles[t];
  const TileChunk& ch = plan_.chunks[static_cast<std::size_t>(tile.chunk)];
  if (t == 0 && s_.lut) emit_dma(code, Opcode::Load, DmaBox{k_.lut_ddr, lut_at_, 256}, ctx_.alignment);
  if (tile.chunk != last_chunk_) load_chunk(tile);
  const InputWindow w = input_window(tile);
  const auto slot = static_cast<std::int64_t>(t);
  const std::uint64_t acc = map_.buffer(BufferRole::Accumulator).at(slot);
  const std::uint64_t res_slot = !L_.residual      ? 0
                                 : v_.residual_home ? *v_.residual_home + static_cast<std::uint64_t>(tile.row0) * y_row_
                                                    : map_.buffer(BufferRole::Residual).at(slot);
  const std::uint64_t o_slot = v_.y_home ? *v_.y_home + static_cast<std::uint64_t>(tile.row0) * y_row_
                                         : map_.buffer(BufferRole::Output).at(slot);
  if (L_.residual && !v_.residual_home) {
    emit_dma(code, Opcode::Load, window_box(v_.residual->addr, res_slot, tile.row0, tile.rows, tile.col0, tile.cols, s_.ow,
                                            s_.oc, ch.first_oc, ch.oc, es_), ctx_.alignment);
    out_.planned_ddr_bytes += static_cast<std::uint64_t>(tile.rows * tile.cols * ch.oc * es_);
  }
  for (std::int64_t k = 0; k < plan_.k_slices; ++k) reduction_slice(tile, k, w, acc);
  const std::int64_t count = tile.rows * tile.cols * ch.oc;
  epilogue(acc, o_slot, res_slot, count, ch.oc);
  if (ctx_.in_ddr(L_.y)) {
    emit_dma(code, Opcode::Store, window_box(v_.y->addr, o_slot, tile.row0, tile.rows, tile.col0, tile.cols, s_.ow, s_.out_pixel_elems(),
                                             ch.first_oc, ch.oc, es_), ctx_.alignment);
    out_.planned_ddr_bytes += static_cast<std::uint64_t>(count * es_);
  }
}

// A new chunk of output channels: its parameter block, and its weights when the reduction is
// not split (split reductions load a block per slice).
void ConvTileEmitter::load_chunk(const ConvTile& tile) {
  std::vector<Instruction>& code = out_.code;
  const auto chunk = static_cast<std::size_t>(tile.chunk);
  pbase_ = map_.buffer(BufferRole::Params).at(param_loads_++);
  const std::uint64_t pbytes = k_.chunk_param_offset[chunk + 1] - k_.chunk_param_offset[chunk];
  emit_linear_load(code, k_.params_ddr + k_.chunk_param_offset[chunk], pbase_, pbytes, ctx_.alignment);
  out_.planned_ddr_bytes += pbytes;
  if (plan_.k_slices == 1) {
    w_slot_ = map_.buffer(BufferRole::Weights).at(weight_loads_++);
    const std::size_t wi = chunk;  // one block per chunk
    const std::uint64_t bytes = k_.slice_w_offset[wi + 1] - k_.slice_w_offset[wi];
    emit_linear_load(code, k_.weights_ddr + k_.slice_w_offset[wi], w_slot_, bytes, ctx_.alignment);
    out_.planned_ddr_bytes += bytes;
  }
  last_chunk_ = tile.chunk;
}

InputWindow ConvTileEmitter::input_window(const ConvTile& tile) const {
  const WindowGeometry& geo = L_.geo;
  InputWindow w;
  w.start = tile.row0 * s_.sh - geo.pad_top;
  w.end = (tile.row0 + tile.rows - 1) * s_.sh - geo.pad_top + s_.dh * (s_.kh - 1);
  w.ih0 = std::max<std::int64_t>(0, w.start);
  w.ih1 = std::min<std::int64_t>(s_.h - 1, w.end) + 1;
  // Whole-width tiles read whole input rows (contiguous) with the layer's own padding.
  const bool full_width = tile.cols == s_.ow;
  w.cstart = full_width ? -geo.pad_left : tile.col0 * s_.sw - geo.pad_left;
  w.cend = full_width ? s_.w - 1 + geo.pad_right : (tile.col0 + tile.cols - 1) * s_.sw - geo.pad_left + s_.dw * (s_.kw - 1);
  w.iw0 = std::max<std::int64_t>(0, w.cstart);
  w.iw1 = std::min<std::int64_t>(s_.w - 1, w.cend) + 1;
  if (w.ih1 <= w.ih0 || w.iw1 <= w.iw0)
    throw CompileError(ctx_.graph.source + ": layer '" + n_.name + "': a tile lies entirely in padding");
  return w;
}

// Reduction slice k of a tile (k 0 of an unsplit reduction): its weights when the reduction is
// split, its input, and the conv or gemm accumulating into `acc`.
void ConvTileEmitter::reduction_slice(const ConvTile& tile, std::int64_t k, const InputWindow& w, std::uint64_t acc) {
  std::vector<Instruction>& code = out_.code;
  const TileChunk& ch = plan_.chunks[static_cast<std::size_t>(tile.chunk)];
  const auto chunk = static_cast<std::size_t>(tile.chunk);
  const WindowGeometry& geo = L_.geo;
  const std::int64_t cin0 = s_.groups == 1 ? 0 : ch.first_unit * icg_;
  const std::int64_t cin = s_.groups == 1 ? s_.c : ch.units * icg_;
  const bool channel_split = plan_.k_slices > 1 && !plan_.kernel_rows;
  const auto [slice_first, slice_end] = k_.slice_channels[static_cast<std::size_t>(channel_split ? k : 0)];
  const std::int64_t c0 = channel_split ? slice_first : cin0;
  const std::int64_t cs = channel_split ? slice_end - slice_first : cin;
  // A part of a concatenated input is a tensor of its own: read all of it.
  const std::string* part = plan_.input_parts ? &ctx_.concat_parts.at(L_.x)[static_cast<std::size_t>(k)] : nullptr;
  // A kernel-row slice is a 1-row kernel over the input rows shifted by k dilated rows.
  const std::int64_t kstart = plan_.kernel_rows ? w.start + k * s_.dh : w.start;
  const std::int64_t kend = plan_.kernel_rows ? kstart + (tile.rows - 1) * s_.sh : w.end;
  const std::int64_t kh0 = std::max<std::int64_t>(0, kstart), kh1 = std::min<std::int64_t>(s_.h - 1, kend) + 1;
  if (kh1 <= kh0) throw CompileError(ctx_.graph.source + ": layer '" + n_.name + "': a kernel row lies entirely in padding");
  if (plan_.k_slices > 1) {
    w_slot_ = map_.buffer(BufferRole::Weights).at(weight_loads_++);
    std::uint64_t from, bytes;
    if (plan_.kernel_rows) {  // kernel row k of the chunk's [kh][kw][C][oc] block
      bytes = static_cast<std::uint64_t>(s_.kw * s_.c * ch.oc * es_);
      from = k_.slice_w_offset[chunk] + static_cast<std::uint64_t>(k) * bytes;
    } else {
      const std::size_t wi = chunk * static_cast<std::size_t>(plan_.k_slices) + static_cast<std::size_t>(k);
      from = k_.slice_w_offset[wi];
      bytes = k_.slice_w_offset[wi + 1] - k_.slice_w_offset[wi];
    }
    emit_linear_load(code, k_.weights_ddr + from, w_slot_, bytes, ctx_.alignment);
    out_.planned_ddr_bytes += bytes;
  }
  const std::uint64_t in_at = slice_input(tile, c0, cs, kh0, kh1, w, part);
  const std::int64_t mac_dtype = mac_dtype_of(ctx_.int8()), accumulate = k > 0 ? 1 : 0;
  const std::int64_t swap = tile.mapping.swap ? 1 : 0, dw = tile.mapping.depthwise ? 1 : 0;
  if (L_.gemm) {
    Instruction mm = make(Opcode::Gemm, {{Field::mac_dtype, mac_dtype}, {Field::accumulate, accumulate},
                                         {Field::a_addr, addr(in_at)}, {Field::b_addr, addr(w_slot_)},
                                         {Field::c_addr, addr(acc)}, {Field::m, tile.rows}, {Field::n, ch.oc},
                                         {Field::k, cs}, {Field::swap, swap}});
    const cost::WeightStorage& wstore = s_.weights;
    if (wstore.quantized()) {
      mm.set(Field::b_format, static_cast<std::int64_t>(wstore.format));
      if (wstore.has_scales()) {
        std::uint64_t scale_offset = 0;
        weight_block_bytes(wstore, cs, ch.oc, es_, ctx_.alignment, &scale_offset);
        mm.set(Field::b_scale_addr, addr(w_slot_ + scale_offset));
        mm.set(Field::b_group, static_cast<std::int64_t>(wstore.group));
      }
    }
    code.push_back(mm);
  } else {
    code.push_back(make(Opcode::Conv,
                        {{Field::mac_dtype, mac_dtype}, {Field::accumulate, accumulate}, {Field::in_addr, addr(in_at)},
                         {Field::w_addr, addr(w_slot_)}, {Field::out_addr, addr(acc)}, {Field::in_h, kh1 - kh0},
                         {Field::in_w, w.iw1 - w.iw0}, {Field::in_c, cs}, {Field::out_c, ch.oc},
                         {Field::kernel_h, plan_.kernel_rows ? 1 : s_.kh}, {Field::kernel_w, s_.kw},
                         {Field::stride_h, geo.stride_h}, {Field::stride_w, geo.stride_w},
                         {Field::dilation_h, plan_.kernel_rows ? 1 : geo.dilation_h},
                         {Field::dilation_w, geo.dilation_w}, {Field::pad_top, kh0 - kstart},
                         {Field::pad_left, w.iw0 - w.cstart}, {Field::pad_bottom, kend - (kh1 - 1)},
                         {Field::pad_right, w.cend - (w.iw1 - 1)}, {Field::groups, s_.groups == 1 ? 1 : ch.units},
                         {Field::pad_value, ctx_.int8() ? q_.input_zero_point : 0}, {Field::swap, swap},
                         {Field::depthwise, dw}, {Field::in_stride, v_.x_home && !part && cs < s_.c ? s_.c : 0}}));
  }
}

// Where a reduction slice's input is: in place in the scratchpad (a resident input or part),
// or loaded into the next input slot (once per window unless the reduction or groups split it).
std::uint64_t ConvTileEmitter::slice_input(const ConvTile& tile, std::int64_t c0, std::int64_t cs, std::int64_t kh0,
                                           std::int64_t kh1, const InputWindow& w, const std::string* part) {
  std::vector<Instruction>& code = out_.code;
  const TileChunk& ch = plan_.chunks[static_cast<std::size_t>(tile.chunk)];
  const std::int64_t cin0 = s_.groups == 1 ? 0 : ch.first_unit * icg_;
  const std::int64_t window = (tile.row0 * 65537 + tile.col0) * 65537 + cin0;
  const auto part_home = part ? ctx_.resident(*part) : std::nullopt;
  if (part_home) return *part_home + static_cast<std::uint64_t>(kh0 * s_.w * cs * es_);
  if (part) {
    in_slot_ = map_.buffer(BufferRole::Input).at(input_loads_++);
    emit_dma(code, Opcode::Load,
             window_box(ctx_.tensor(*part).addr, in_slot_, kh0, kh1 - kh0, w.iw0, w.iw1 - w.iw0, s_.w, cs, 0, cs, es_),
             ctx_.alignment);
    out_.planned_ddr_bytes += static_cast<std::uint64_t>((kh1 - kh0) * (w.iw1 - w.iw0) * cs * es_);
    return in_slot_;
  }
  if (v_.x_home)  // whole rows; a channel slice is read in place with in_stride
    return *v_.x_home + static_cast<std::uint64_t>(kh0) * x_row_ + static_cast<std::uint64_t>(c0 * es_);
  if (plan_.k_slices > 1 || window != last_window_ || s_.groups != 1) {
    in_slot_ = map_.buffer(BufferRole::Input).at(input_loads_++);
    emit_dma(code, Opcode::Load,
             window_box(v_.x->addr, in_slot_, kh0, kh1 - kh0, w.iw0, w.iw1 - w.iw0, s_.w, s_.c, c0, cs, es_), ctx_.alignment);
    out_.planned_ddr_bytes += static_cast<std::uint64_t>((kh1 - kh0) * (w.iw1 - w.iw0) * cs * es_);
    last_window_ = window;
  }
  return in_slot_;
}

// INT8: bias and requantisation in the array's output stage (drain), right behind the conv/gemm,
// then the table and the residual add on the vector unit. FP16: bias, activation, cast and the
// residual add on the vector unit.
void ConvTileEmitter::epilogue(std::uint64_t acc, std::uint64_t o_slot, std::uint64_t res_slot, std::int64_t count,
                               std::int64_t ch_oc) {
  std::vector<Instruction>& code = out_.code;
  const CodegenContext& ctx = ctx_;
  const Node& n = n_;
  const ConvLayer& L = L_;
  const ConvShape& s = s_;
  const Int8ConvParams& q = q_;
  const QaddParams& qadd = q.qadd;
  const bool residual = L.residual;
  const std::uint64_t pbase = pbase_, lut_at = lut_at_;
  if (ctx.int8()) {  // bias and requantisation in the array's output stage, right behind the conv/gemm
    code.push_back(make(Opcode::Drain,
                       {{Field::dst_addr, addr(o_slot)}, {Field::src_addr, addr(acc)}, {Field::param_addr, addr(pbase)},
                        {Field::requant_addr, addr(pbase + ctx.align(static_cast<std::uint64_t>(4 * ch_oc)))},
                        {Field::count, count}, {Field::channels, ch_oc}, {Field::zero_point, q.requant_zero_point},
                        {Field::clamp_min, q.clamp_min}, {Field::clamp_max, q.clamp_max}}));
    if (s.lut)
      code.push_back(make(Opcode::Lut, {{Field::dst_addr, addr(o_slot)}, {Field::src_addr, addr(o_slot)},
                                       {Field::table_addr, addr(lut_at)}, {Field::count, count}}));
    if (residual)
      code.push_back(make(Opcode::QuantizedAdd,
                         {{Field::dst_addr, addr(o_slot)}, {Field::a_addr, addr(o_slot)}, {Field::b_addr, addr(res_slot)},
                          {Field::count, count}, {Field::a_zero_point, qadd.a_zero_point},
                          {Field::b_zero_point, qadd.b_zero_point}, {Field::zero_point, qadd.zero_point},
                          {Field::a_multiplier, qadd.a_multiplier}, {Field::b_multiplier, qadd.b_multiplier},
                          {Field::shift, qadd.shift}, {Field::clamp_min, qadd.clamp_min}, {Field::clamp_max, qadd.clamp_max}}));
  } else {
    code.push_back(make(Opcode::BiasAdd, {{Field::dtype, kDtypeFp32}, {Field::dst_addr, addr(acc)}, {Field::src_addr, addr(acc)},
                                               {Field::param_addr, addr(pbase)}, {Field::count, count}, {Field::channels, ch_oc}}));
    auto clip = [&](const std::string& a, float lo, float hi, std::int64_t dtype, std::uint64_t where) {
      Instruction in = make(Opcode::Clip, {{Field::dtype, dtype}, {Field::dst_addr, addr(where)}, {Field::src_addr, addr(where)},
                                           {Field::count, count}});
      in.set_float(Field::lo, a == "Relu" ? 0.0f : lo);
      in.set_float(Field::hi, a == "Relu" ? std::numeric_limits<float>::infinity() : hi);
      code.push_back(in);
    };
    if (L.act == "Relu" || L.act == "Clip") {
      clip(L.act, n.get_float("act_alpha", 0), n.get_float("act_beta", 0), kDtypeFp32, acc);
    } else if (!L.act.empty()) {
      Instruction in = make(Opcode::Activation, {{Field::dtype, kDtypeFp32}, {Field::function, act_function(L.act)},
                                                 {Field::dst_addr, addr(acc)}, {Field::src_addr, addr(acc)}, {Field::count, count}});
      in.set_float(Field::alpha, n.get_float("act_alpha", 0));
      in.set_float(Field::beta, n.get_float("act_beta", 0));
      code.push_back(in);
    }
    code.push_back(make(Opcode::Cast, {{Field::src_dtype, kDtypeFp32}, {Field::dst_dtype, kDtypeFp16}, {Field::dst_addr, addr(o_slot)},
                                            {Field::src_addr, addr(acc)}, {Field::count, count}}));
    if (residual) {
      code.push_back(make(Opcode::Add, {{Field::dtype, kDtypeFp16}, {Field::dst_addr, addr(o_slot)}, {Field::a_addr, addr(o_slot)},
                                             {Field::b_addr, addr(res_slot)}, {Field::count, count}}));
      if (L.post == "Relu" || L.post == "Clip") clip(L.post, n.get_float("post_alpha", 0), n.get_float("post_beta", 0), kDtypeFp16, o_slot);
    }
  }
}

LayerCode generate_conv(CodegenContext& ctx, const Node& n) {
  const ConvLayer L = describe_conv_layer(ctx, n);
  const ConvPart P = engine_part(ctx, L);
  const ConvOperands operands = conv_operands(ctx, L);
  const TilePlan plan = choose_conv_plan(ctx, L, P);
  static const Int8ConvParams kNoInt8Params;
  const auto q_shared = ctx.int8() ? ctx.conv_params(n) : nullptr;
  const Int8ConvParams& q = q_shared ? *q_shared : kNoInt8Params;
  const ConvConstants constants = place_conv_constants(ctx, n, L, plan, q);

  LayerCode out;
  out.mapping = conv_layer_mapping(P.s, plan, top_down_pays(ctx, plan.sram.total) ? plan.sram_top_down : plan.sram,
                                   ctx.sram_base, ctx.config.mac_array.dataflow);
  ConvTileEmitter emitter(ctx, n, L, plan, operands, constants, q, out);
  for (std::size_t t = 0; t < plan.tiles.size(); ++t) emitter.tile(t);
  const ConvShape& s = P.s;  // the part's own work
  if (s.lut) out.planned_ddr_bytes += 256;
  out.macs = static_cast<std::uint64_t>(s.oh * s.ow * s.oc * (s.c / s.groups) * s.kh * s.kw);
  out.est_cycles = plan.est_cycles;
  return out;
}

bool is_conv_or_gemm(const Node& n) { return n.op_type == "FusedConv" || n.op_type == "FusedGemm"; }

// Engine parts (engine_split.h): output rows (a gemm's M), unless the layer runs as HW x 1
// (describe_conv_layer), or output-channel units (channels; groups when grouped).
std::int64_t conv_split_extent(CodegenContext& ctx, const Node& n, LoopDim dim) {
  const ConvLayer L = describe_conv_layer(ctx, n);
  if (dim == LoopDim::Rows) return L.s.oh == ctx.tensor(L.y).h ? L.s.oh : 0;
  if (dim == LoopDim::OutChannels) {
    if (L.s.groups == 1) return L.s.oc;
    // Grouped: whole groups per part. Not yet when a group has several channels: a part of one
    // such group is an ungrouped conv to the tiler, whose units (output channels) the emitter
    // would read as groups.
    return L.s.c == L.s.groups && L.s.oc == L.s.groups ? L.s.groups : 0;
  }
  return 0;
}

std::int64_t conv_channel_granule(CodegenContext& ctx, const Node& n) {
  const ConvLayer L = describe_conv_layer(ctx, n);
  if (L.s.groups == 1) return ctx.config.mac_array.cols;
  // Grouped: whole alignment units of channels, so each part's channel runs start aligned.
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(ctx.alignment) / L.s.elem / (L.s.oc / L.s.groups));
}

ValueBox conv_part_writes(CodegenContext& ctx, const Node& n, const EnginePart& part) {
  const ConvLayer L = describe_conv_layer(ctx, n);
  const ConvPart P = conv_part(L, part);
  const std::int64_t ocg = L.s.groups == 1 ? 1 : L.s.oc / L.s.groups;
  if (part.dim == LoopDim::Rows) return {part.begin, part.end, 0, L.s.oc};
  return {0, L.s.oh, P.unit0 * ocg, P.unit0 * ocg + P.s.oc};
}

ValueBox conv_part_reads(CodegenContext& ctx, const Node& n, const EnginePart& part, std::size_t input) {
  const ConvLayer L = describe_conv_layer(ctx, n);
  if (input != 0) return conv_part_writes(ctx, n, part);  // the residual: as the output
  if (part.dim == LoopDim::Rows) {
    const auto [i0, i1] = conv_input_rows(L.s, part.begin, part.end);
    return {i0, i1, 0, L.s.c};
  }
  if (L.s.groups == 1) return {0, L.s.h, 0, L.s.c};
  const std::int64_t icg = L.s.c / L.s.groups;
  return {0, L.s.h, part.begin * icg, part.end * icg};
}

// The order of the first part's plan (widest first; with its input in DDR, then on chip) that
// every part can keep in the whole scratchpad, its input in DDR or on chip (each engine's step
// scheduler decides that for itself): an edge part's padding rows, or a resident input's
// aligned channel slices, can rule out another part's tiling.
void conv_share_load_order(CodegenContext& ctx, const Node& n, const std::vector<EnginePart>& parts) {
  const ConvLayer L = describe_conv_layer(ctx, n);
  std::vector<EnginePart> widest_first = parts;
  std::stable_sort(widest_first.begin(), widest_first.end(),
                   [](const EnginePart& a, const EnginePart& b) { return a.size() > b.size(); });
  auto shape = [&](const EnginePart& part, bool resident_input) {
    ConvShape s = conv_part(L, part).s;
    s.input_resident = s.input_resident || (resident_input && s.parts.empty());
    return s;
  };
  for (const bool resident_reference : {false, true})
    for (const EnginePart& reference : widest_first) {
      const auto plan = try_plan_conv_tiles(shape(reference, resident_reference), ctx.sram_capacity, ctx.alignment, &ctx.tiling());
      if (!plan) continue;
      WeightLoadOrder order = weight_load_order(*plan);
      order.strict = true;
      const bool all_can = std::all_of(parts.begin(), parts.end(), [&](const EnginePart& p) {
        for (const bool resident : {false, true}) {
          ConvShape s = shape(p, resident);
          s.weight_order = order;
          if (!try_plan_conv_tiles(s, ctx.sram_capacity, ctx.alignment, &ctx.tiling())) return false;
        }
        return true;
      });
      if (!all_can) continue;
      order.strict = false;
      ctx.weight_orders[n.name] = order;
      return;
    }
}

const LayerSplitter kConvSplitter{conv_split_extent, conv_channel_granule, conv_part_reads, conv_part_writes,
                                  conv_share_load_order};

}  // namespace

const NpuOpFamily& conv_family() {
  static const NpuOpFamily family{"conv", is_conv_or_gemm,
                                  conv_rejection, generate_conv, conv_demand,
                                  /*region_aware=*/true, /*reads_resident=*/true, /*writes_resident=*/true,
                                  &kConvSplitter};
  return family;
}

}  // namespace npu::compiler
