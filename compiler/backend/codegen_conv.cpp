// Code for fused Conv / Gemm layers: the MAC array accumulates a tile, its output stage
// (drain) adds the bias and requantises int8 accumulators as they leave the array, the vector
// unit runs the rest of the epilogue (LUT activation, residual add; fp16: bias, activation,
// cast, residual add) in SRAM, and only the final int8/fp16 result leaves the array: into the output value where the
// step scheduler keeps it resident, and/or to DDR. Tiles are emitted in issue order; the
// dependency tokens come from compiler/backend/dependency_tokens.h.
#include <cmath>
#include <cstring>
#include <limits>

#include "compiler/backend/codegen_context.h"
#include "compiler/backend/eltwise_plan.h"
#include "compiler/backend/instruction_stream.h"
#include "compiler/backend/isa_limits.h"
#include "compiler/backend/op_registry.h"
#include "compiler/backend/sram_tiling.h"
#include "compiler/quant/int8_layer_params.h"
#include "compiler/quant/quant_math.h"
#include "compiler/quant/quantize.h"
#include "compiler/quant/weight_only.h"
#include "compiler/reference/float_evaluator.h"
#include "compiler/reference/node_geometry.h"
#include "isa/field_limits.h"
#include "isa/fp16.h"

namespace npu::compiler {
namespace {

using namespace isa_limits;

template <typename T>
void append(std::vector<std::uint8_t>& out, T v) {
  std::uint8_t b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.insert(out.end(), b, b + sizeof(T));
}

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

// Everything about a conv/gemm node the tiler and the code need, before its constants.
struct ConvLayer {
  ConvShape s;
  WindowGeometry geo;
  bool gemm = false, residual = false;
  std::string x, bias, res, y, act, post;
};

ConvLayer describe(CodegenContext& ctx, const Node& n) {
  const Graph& g = ctx.graph;
  ConvLayer L;
  L.gemm = n.op_type == "FusedGemm";
  L.x = n.inputs[0];
  L.bias = n.inputs.size() > 2 ? n.inputs[2] : std::string();
  L.res = n.inputs.size() > 3 ? n.inputs[3] : std::string();
  L.y = n.outputs[0];
  L.residual = !L.res.empty();
  const Tensor& xt = g.tensor(L.x);
  const Tensor& wt = g.tensor(n.inputs[1]);
  const DdrTensor& x = ctx.tensor(L.x);
  const DdrTensor& y = ctx.tensor(L.y);
  ConvShape& s = L.s;
  s.name = n.name;
  s.gemm = L.gemm;
  s.h = x.h;
  s.w = x.w;
  s.c = x.c;
  s.oc = y.c;
  s.oh = y.h;
  s.ow = y.w;
  if (!L.gemm) {
    L.geo = window_geometry(n, xt.shape, wt.shape[2], wt.shape[3]);
    s.groups = n.get_int("group", 1);
  }
  // A 1x1, stride-1, unpadded conv sees each pixel alone: any H x W with the same pixels in the
  // same (NHWC) order is the same layer, so one too wide for in_w (YOLOv8's 4 x 8400 DFL conv)
  // runs as HW x 1.
  const WindowGeometry& geo = L.geo;
  if (!L.gemm && geo.kernel_h == 1 && geo.kernel_w == 1 && geo.stride_h == 1 && geo.stride_w == 1 && geo.pad_top == 0 &&
      geo.pad_left == 0 && geo.pad_bottom == 0 && geo.pad_right == 0 &&
      s.w > isa::field_max(isa::Opcode::Conv, isa::Field::in_w)) {
    s.h = x.h * x.w;
    s.w = 1;
    s.oh = y.h * y.w;
    s.ow = 1;
  }
  s.kh = L.geo.kernel_h;
  s.kw = L.geo.kernel_w;
  s.sh = L.geo.stride_h;
  s.sw = L.geo.stride_w;
  s.dh = L.geo.dilation_h;
  s.dw = L.geo.dilation_w;
  s.pad_top = L.geo.pad_top;
  s.pad_left = L.geo.pad_left;
  s.elem = ctx.elem_bytes();
  if (L.gemm && !ctx.int8() && ctx.weight_only.quantized()) s.weights = ctx.weight_only;
  s.residual = L.residual;
  L.act = n.get_string("activation", "");
  L.post = n.get_string("post_activation", "");
  s.lut = ctx.int8() && is_lut_activation(L.act);
  using isa::Opcode;
  if (ctx.int8()) {
    s.epilogue = {Opcode::Drain};
    if (s.lut) s.epilogue.push_back(Opcode::Lut);
    if (L.residual) s.epilogue.push_back(Opcode::QuantizedAdd);
  } else {
    s.epilogue = {Opcode::BiasAdd};
    if (L.act == "Relu" || L.act == "Clip") s.epilogue.push_back(Opcode::Clip);
    else if (!L.act.empty()) s.epilogue.push_back(Opcode::Activation);
    s.epilogue.push_back(Opcode::Cast);
    if (L.residual) {
      s.epilogue.push_back(Opcode::Add);
      if (L.post == "Relu" || L.post == "Clip") s.epilogue.push_back(Opcode::Clip);
    }
  }
  if (auto it = ctx.concat_parts.find(L.x); it != ctx.concat_parts.end()) {
    for (const auto& part : it->second) s.parts.push_back({ctx.tensor(part).c, ctx.resident(part).has_value()});
  } else {
    s.input_resident = ctx.resident(L.x).has_value();
  }
  s.residual_resident = L.residual && ctx.resident(L.res).has_value();
  s.output_resident = ctx.resident(L.y).has_value();
  s.output_stored = ctx.in_ddr(L.y);
  return L;
}

std::string plan_key(const ConvLayer& L) {
  const ConvShape& s = L.s;
  std::string key = s.name + (s.input_resident ? "/ri" : "/di") + (s.residual_resident ? "r" : "d") +
                    (s.output_resident ? "r" : "d") + (s.output_stored ? "s" : "");
  for (const auto& p : s.parts) key += p.resident ? 'R' : 'D';
  return key;
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

std::optional<LayerDemand> conv_demand(CodegenContext& ctx, const Node& n, std::uint64_t budget) {
  const ConvLayer L = describe(ctx, n);
  const std::string key = plan_key(L);
  std::vector<TilePlan>& plans = ctx.conv_plans[key];
  auto [known, fresh] = ctx.conv_plan_of_budget.try_emplace({key, budget}, -1);
  if (fresh) {
    auto plan = try_plan_conv_tiles(L.s, budget, ctx.alignment, &ctx.config);
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

LayerCode generate_conv(CodegenContext& ctx, const Node& n) {
  const Graph& g = ctx.graph;
  const ConvLayer L = describe(ctx, n);
  const ConvShape& s = L.s;
  const WindowGeometry& geo = L.geo;
  const bool gemm = L.gemm, residual = L.residual;
  const DdrTensor& x = ctx.tensor(L.x);
  const DdrTensor& y = ctx.tensor(L.y);
  const DdrTensor* r = residual ? &ctx.tensor(L.res) : nullptr;
  const std::int64_t es = ctx.elem_bytes();
  const auto x_home = ctx.resident(L.x), y_home = ctx.resident(L.y);
  const auto r_home = residual ? ctx.resident(L.res) : std::nullopt;
  const TilePlan* known = nullptr;
  // A third weight buffer comes out of the region the scheduler gave (it added room for one).
  for (const TilePlan& p : ctx.conv_plans[plan_key(L)])
    if (p.sram.total + (ctx.third_weight_slot ? p.weight_slot_bytes : 0) <= ctx.sram_bytes &&
        (!ctx.third_weight_slot || p.weight_slot_bytes > 0) && (!known || p.est_cycles < known->est_cycles))
      known = &p;
  TilePlan plan = known ? *known : plan_conv_tiles(s, ctx.sram_bytes, ctx.alignment, &ctx.config);
  if (ctx.third_weight_slot)
    if (auto deeper = with_third_weight_slot(plan); deeper && deeper->sram.total <= ctx.sram_bytes) plan = std::move(*deeper);

  // ---- constant data: packed weights per chunk (per input-channel slice), parameters per chunk ----
  const Tensor& wt = g.tensor(n.inputs[1]);
  const std::int64_t icg = s.c / s.groups, ocg = s.oc / s.groups;
  const std::int64_t KH = s.kh, KW = s.kw;
  const std::vector<float>& wf = wt.floats;  // Conv: [OC][icg][KH][KW]; Gemm: [K][N]
  auto w_at = [&](std::int64_t o, std::int64_t i, std::int64_t kh, std::int64_t kw) -> std::size_t {
    return gemm ? static_cast<std::size_t>(i * s.oc + o) : static_cast<std::size_t>(((o * icg + i) * KH + kh) * KW + kw);
  };
  static const Int8ConvParams kNoInt8Params;
  const auto q_shared = ctx.int8() ? ctx.conv_params(n) : nullptr;
  const Int8ConvParams& q = q_shared ? *q_shared : kNoInt8Params;
  std::vector<float> bias(static_cast<std::size_t>(s.oc), 0.0f);
  if (!L.bias.empty()) bias = g.tensor(L.bias).floats;
  const cost::WeightStorage& wstore = s.weights;
  WeightOnlyWeights wq;
  if (wstore.quantized()) {
    wq = quantize_weight_only(wf, s.c, s.oc, wstore);
    if (!ctx.dry_run) ++ctx.weight_only_layers;
  }

  // Input channels [first, end) of each reduction slice (kernel-row slices: all channels).
  std::vector<std::pair<std::int64_t, std::int64_t>> slice_channels;
  if (plan.input_parts) {
    std::int64_t c0 = 0;
    for (const auto& p : s.parts) slice_channels.emplace_back(c0, c0 + p.c), c0 += p.c;
  } else {
    const std::int64_t width = plan.k_slice > 0 ? plan.k_slice : s.c;
    for (std::int64_t c0 = 0; c0 < s.c; c0 += width) slice_channels.emplace_back(c0, std::min(s.c, c0 + width));
  }
  std::vector<std::uint8_t> weights_blob, params_blob;
  std::vector<std::uint64_t> slice_w_offset;  // per (chunk, input-channel slice), chunk-major
  std::vector<std::uint64_t> chunk_param_offset;
  for (const auto& ch : plan.chunks) {
    auto push_w = [&](std::size_t idx) {
      if (ctx.int8()) weights_blob.push_back(static_cast<std::uint8_t>(q.weights[idx]));
      else append<std::uint16_t>(weights_blob, isa::float_to_half(wf[idx]));
    };
    if (s.groups == 1) {  // per input-channel slice: [kh][kw][slice C][chunk_oc], each 64-aligned
      // (kernel-row slices are contiguous parts of the whole chunk's block)
      const std::int64_t channel_slices = plan.kernel_rows ? 1 : plan.k_slices;
      for (std::int64_t k = 0; k < channel_slices; ++k) {
        slice_w_offset.push_back(weights_blob.size());
        const auto [c0, c1] = slice_channels[static_cast<std::size_t>(plan.kernel_rows ? 0 : k)];
        if (wstore.quantized()) {
          if (wstore.group != 0 && c0 % wq.group_rows != 0)
            throw CompileError(g.source + ": layer '" + n.name + "': --weights int4 needs the parts of its concatenated input "
                               "to be multiples of --group-size " + std::to_string(wstore.group) + " channels (a part starts at " +
                               std::to_string(c0) + ")");
          append_weight_block(weights_blob, wq, wstore, c0, c1, ch.first_oc, ch.oc, ctx.alignment);
        } else {
          for (std::int64_t kh = 0; kh < KH; ++kh)
            for (std::int64_t kw = 0; kw < KW; ++kw)
              for (std::int64_t i = c0; i < c1; ++i)
                for (std::int64_t o = ch.first_oc; o < ch.first_oc + ch.oc; ++o) push_w(w_at(o, i, kh, kw));
        }
        while (weights_blob.size() % kWeightBlockAlign) weights_blob.push_back(0);
      }
    } else {  // [group][kh][kw][icg][ocg]
      slice_w_offset.push_back(weights_blob.size());
      for (std::int64_t gi = ch.first_unit; gi < ch.first_unit + ch.units; ++gi)
        for (std::int64_t kh = 0; kh < KH; ++kh)
          for (std::int64_t kw = 0; kw < KW; ++kw)
            for (std::int64_t i = 0; i < icg; ++i)
              for (std::int64_t o = gi * ocg; o < (gi + 1) * ocg; ++o) push_w(w_at(o, i, kh, kw));
      while (weights_blob.size() % kWeightBlockAlign) weights_blob.push_back(0);
    }
    // Parameters: bias block then (int8) requant block, each aligned, as the SRAM image.
    chunk_param_offset.push_back(params_blob.size());
    const std::size_t start = params_blob.size();
    for (std::int64_t o = ch.first_oc; o < ch.first_oc + ch.oc; ++o) {
      if (ctx.int8()) append<std::int32_t>(params_blob, q.bias[o]);
      else append<float>(params_blob, bias[o]);
    }
    while ((params_blob.size() - start) % ctx.alignment) params_blob.push_back(0);
    if (ctx.int8()) {
      for (std::int64_t o = ch.first_oc; o < ch.first_oc + ch.oc; ++o) {
        append<std::int32_t>(params_blob, q.requant[o].multiplier);
        append<std::int32_t>(params_blob, q.requant[o].shift);
      }
      while ((params_blob.size() - start) % ctx.alignment) params_blob.push_back(0);
    }
  }
  slice_w_offset.push_back(weights_blob.size());
  chunk_param_offset.push_back(params_blob.size());
  const std::uint64_t weights_ddr = ctx.add_data(weights_blob);
  const std::uint64_t params_ddr = ctx.add_data(params_blob);
  std::uint64_t lut_ddr = 0;
  if (s.lut) lut_ddr = ctx.add_data(std::vector<std::uint8_t>(q.lut.begin(), q.lut.end()));
  const QaddParams& qadd = q.qadd;

  // ---- instructions ----
  LayerCode out;
  out.mapping = conv_layer_mapping(s, plan, top_down_pays(ctx, plan.sram.total) ? plan.sram_top_down : plan.sram,
                                   ctx.sram_base, ctx.config.mac_array.dataflow);
  const LayerMapping& map = out.mapping;
  const std::uint64_t lut_at = s.lut ? map.buffer(BufferRole::Table).at(0) : 0;
  auto addr = [](std::uint64_t a) { return static_cast<std::int64_t>(a); };
  auto epilogue = [&](std::vector<Instruction>& vec, std::uint64_t acc, std::uint64_t o_slot, std::uint64_t res_slot,
                      std::int64_t count, std::int64_t ch_oc, std::uint64_t pbase) {
    if (ctx.int8()) {  // bias and requantisation in the array's output stage, right behind the conv/gemm
      vec.push_back(make(Opcode::Drain,
                         {{Field::dst_addr, addr(o_slot)}, {Field::src_addr, addr(acc)}, {Field::param_addr, addr(pbase)},
                          {Field::requant_addr, addr(pbase + ctx.align(static_cast<std::uint64_t>(4 * ch_oc)))},
                          {Field::count, count}, {Field::channels, ch_oc}, {Field::zero_point, q.requant_zero_point},
                          {Field::clamp_min, q.clamp_min}, {Field::clamp_max, q.clamp_max}}));
      if (s.lut)
        vec.push_back(make(Opcode::Lut, {{Field::dst_addr, addr(o_slot)}, {Field::src_addr, addr(o_slot)},
                                         {Field::table_addr, addr(lut_at)}, {Field::count, count}}));
      if (residual)
        vec.push_back(make(Opcode::QuantizedAdd,
                           {{Field::dst_addr, addr(o_slot)}, {Field::a_addr, addr(o_slot)}, {Field::b_addr, addr(res_slot)},
                            {Field::count, count}, {Field::a_zero_point, qadd.a_zero_point},
                            {Field::b_zero_point, qadd.b_zero_point}, {Field::zero_point, qadd.zero_point},
                            {Field::a_multiplier, qadd.a_multiplier}, {Field::b_multiplier, qadd.b_multiplier},
                            {Field::shift, qadd.shift}, {Field::clamp_min, qadd.clamp_min}, {Field::clamp_max, qadd.clamp_max}}));
    } else {
      vec.push_back(make(Opcode::BiasAdd, {{Field::dtype, kDtypeFp32}, {Field::dst_addr, addr(acc)}, {Field::src_addr, addr(acc)},
                                                 {Field::param_addr, addr(pbase)}, {Field::count, count}, {Field::channels, ch_oc}}));
      auto clip = [&](const std::string& a, float lo, float hi, std::int64_t dtype, std::uint64_t where) {
        Instruction in = make(Opcode::Clip, {{Field::dtype, dtype}, {Field::dst_addr, addr(where)}, {Field::src_addr, addr(where)},
                                             {Field::count, count}});
        in.set_float(Field::lo, a == "Relu" ? 0.0f : lo);
        in.set_float(Field::hi, a == "Relu" ? std::numeric_limits<float>::infinity() : hi);
        vec.push_back(in);
      };
      if (L.act == "Relu" || L.act == "Clip") {
        clip(L.act, n.get_float("act_alpha", 0), n.get_float("act_beta", 0), kDtypeFp32, acc);
      } else if (!L.act.empty()) {
        Instruction in = make(Opcode::Activation, {{Field::dtype, kDtypeFp32}, {Field::function, act_function(L.act)},
                                                   {Field::dst_addr, addr(acc)}, {Field::src_addr, addr(acc)}, {Field::count, count}});
        in.set_float(Field::alpha, n.get_float("act_alpha", 0));
        in.set_float(Field::beta, n.get_float("act_beta", 0));
        vec.push_back(in);
      }
      vec.push_back(make(Opcode::Cast, {{Field::src_dtype, kDtypeFp32}, {Field::dst_dtype, kDtypeFp16}, {Field::dst_addr, addr(o_slot)},
                                              {Field::src_addr, addr(acc)}, {Field::count, count}}));
      if (residual) {
        vec.push_back(make(Opcode::Add, {{Field::dtype, kDtypeFp16}, {Field::dst_addr, addr(o_slot)}, {Field::a_addr, addr(o_slot)},
                                               {Field::b_addr, addr(res_slot)}, {Field::count, count}}));
        if (L.post == "Relu" || L.post == "Clip") clip(L.post, n.get_float("post_alpha", 0), n.get_float("post_beta", 0), kDtypeFp16, o_slot);
      }
    }
  };

  std::vector<Instruction>& code = out.code;
  std::int64_t last_chunk = -1, last_window = -1;
  int param_loads = 0, weight_loads = 0, input_loads = 0;
  std::uint64_t pbase = 0, w_slot = 0, in_slot = 0;
  const std::uint64_t x_row = static_cast<std::uint64_t>(s.w * s.c * es), y_row = static_cast<std::uint64_t>(s.ow * s.oc * es);
  for (std::size_t t = 0; t < plan.tiles.size(); ++t) {
    const ConvTile& tile = plan.tiles[t];
    const TileChunk& ch = plan.chunks[static_cast<std::size_t>(tile.chunk)];
    const std::size_t chunk = static_cast<std::size_t>(tile.chunk);
    if (t == 0 && s.lut) emit_dma(code, Opcode::Load, DmaBox{lut_ddr, lut_at, 256}, ctx.alignment);
    if (tile.chunk != last_chunk) {
      pbase = map.buffer(BufferRole::Params).at(param_loads++);
      const std::uint64_t pbytes = chunk_param_offset[chunk + 1] - chunk_param_offset[chunk];
      emit_linear_load(code, params_ddr + chunk_param_offset[chunk], pbase, pbytes, ctx.alignment);
      out.planned_ddr_bytes += pbytes;
      if (plan.k_slices == 1) {
        w_slot = map.buffer(BufferRole::Weights).at(weight_loads++);
        const std::size_t wi = chunk;  // one block per chunk
        const std::uint64_t bytes = slice_w_offset[wi + 1] - slice_w_offset[wi];
        emit_linear_load(code, weights_ddr + slice_w_offset[wi], w_slot, bytes, ctx.alignment);
        out.planned_ddr_bytes += bytes;
      }
      last_chunk = tile.chunk;
    }
    // Input rows and columns with halo, clipped to the tensor; the rest is the instruction's padding.
    const std::int64_t start = tile.row0 * s.sh - geo.pad_top;
    const std::int64_t end = (tile.row0 + tile.rows - 1) * s.sh - geo.pad_top + s.dh * (KH - 1);
    const std::int64_t ih0 = std::max<std::int64_t>(0, start), ih1 = std::min<std::int64_t>(s.h - 1, end) + 1;
    // Whole-width tiles read whole input rows (contiguous) with the layer's own padding.
    const bool full_width = tile.cols == s.ow;
    const std::int64_t cstart = full_width ? -geo.pad_left : tile.col0 * s.sw - geo.pad_left;
    const std::int64_t cend = full_width ? s.w - 1 + geo.pad_right
                                         : (tile.col0 + tile.cols - 1) * s.sw - geo.pad_left + s.dw * (KW - 1);
    const std::int64_t iw0 = std::max<std::int64_t>(0, cstart), iw1 = std::min<std::int64_t>(s.w - 1, cend) + 1;
    if (ih1 <= ih0 || iw1 <= iw0) throw CompileError(g.source + ": layer '" + n.name + "': a tile lies entirely in padding");
    const std::int64_t cin0 = s.groups == 1 ? 0 : ch.first_unit * icg;
    const std::int64_t cin = s.groups == 1 ? s.c : ch.units * icg;
    const std::int64_t window = (tile.row0 * 65537 + tile.col0) * 65537 + cin0;
    const std::uint64_t acc = map.buffer(BufferRole::Accumulator).at(static_cast<std::int64_t>(t));
    const std::uint64_t res_slot = !residual ? 0
                                   : r_home  ? *r_home + static_cast<std::uint64_t>(tile.row0) * y_row
                                             : map.buffer(BufferRole::Residual).at(static_cast<std::int64_t>(t));
    const std::uint64_t o_slot = y_home ? *y_home + static_cast<std::uint64_t>(tile.row0) * y_row
                                        : map.buffer(BufferRole::Output).at(static_cast<std::int64_t>(t));
    if (residual && !r_home) {
      emit_dma(code, Opcode::Load, window_box(r->addr, res_slot, tile.row0, tile.rows, tile.col0, tile.cols, s.ow, s.oc,
                                              ch.first_oc, ch.oc, es), ctx.alignment);
      out.planned_ddr_bytes += static_cast<std::uint64_t>(tile.rows * tile.cols * ch.oc * es);
    }
    for (std::int64_t k = 0; k < plan.k_slices; ++k) {
      const bool channel_split = plan.k_slices > 1 && !plan.kernel_rows;
      const auto [slice_first, slice_end] = slice_channels[static_cast<std::size_t>(channel_split ? k : 0)];
      const std::int64_t c0 = channel_split ? slice_first : cin0;
      const std::int64_t cs = channel_split ? slice_end - slice_first : cin;
      // A part of a concatenated input is a tensor of its own: read all of it.
      const std::string* part = plan.input_parts ? &ctx.concat_parts.at(L.x)[static_cast<std::size_t>(k)] : nullptr;
      // A kernel-row slice is a 1-row kernel over the input rows shifted by k dilated rows.
      const std::int64_t kstart = plan.kernel_rows ? start + k * s.dh : start;
      const std::int64_t kend = plan.kernel_rows ? kstart + (tile.rows - 1) * s.sh : end;
      const std::int64_t kh0 = std::max<std::int64_t>(0, kstart), kh1 = std::min<std::int64_t>(s.h - 1, kend) + 1;
      if (kh1 <= kh0) throw CompileError(g.source + ": layer '" + n.name + "': a kernel row lies entirely in padding");
      if (plan.k_slices > 1) {
        w_slot = map.buffer(BufferRole::Weights).at(weight_loads++);
        std::uint64_t from, bytes;
        if (plan.kernel_rows) {  // kernel row k of the chunk's [kh][kw][C][oc] block
          bytes = static_cast<std::uint64_t>(KW * s.c * ch.oc * es);
          from = slice_w_offset[chunk] + static_cast<std::uint64_t>(k) * bytes;
        } else {
          const std::size_t wi = chunk * static_cast<std::size_t>(plan.k_slices) + static_cast<std::size_t>(k);
          from = slice_w_offset[wi];
          bytes = slice_w_offset[wi + 1] - slice_w_offset[wi];
        }
        emit_linear_load(code, weights_ddr + from, w_slot, bytes, ctx.alignment);
        out.planned_ddr_bytes += bytes;
      }
      std::uint64_t in_at;
      const auto part_home = part ? ctx.resident(*part) : std::nullopt;
      if (part_home) {
        in_at = *part_home + static_cast<std::uint64_t>(kh0 * s.w * cs * es);
      } else if (part) {
        in_slot = map.buffer(BufferRole::Input).at(input_loads++);
        emit_dma(code, Opcode::Load,
                 window_box(ctx.tensor(*part).addr, in_slot, kh0, kh1 - kh0, iw0, iw1 - iw0, s.w, cs, 0, cs, es), ctx.alignment);
        out.planned_ddr_bytes += static_cast<std::uint64_t>((kh1 - kh0) * (iw1 - iw0) * cs * es);
        in_at = in_slot;
      } else if (x_home) {  // whole rows; a channel slice is read in place with in_stride
        in_at = *x_home + static_cast<std::uint64_t>(kh0) * x_row + static_cast<std::uint64_t>(c0 * es);
      } else {
        if (plan.k_slices > 1 || window != last_window || s.groups != 1) {
          in_slot = map.buffer(BufferRole::Input).at(input_loads++);
          emit_dma(code, Opcode::Load, window_box(x.addr, in_slot, kh0, kh1 - kh0, iw0, iw1 - iw0, s.w, s.c, c0, cs, es), ctx.alignment);
          out.planned_ddr_bytes += static_cast<std::uint64_t>((kh1 - kh0) * (iw1 - iw0) * cs * es);
          last_window = window;
        }
        in_at = in_slot;
      }
      const std::int64_t mac_dtype = mac_dtype_of(ctx.int8()), accumulate = k > 0 ? 1 : 0;
      const std::int64_t swap = tile.mapping.swap ? 1 : 0, dw = tile.mapping.depthwise ? 1 : 0;
      if (gemm) {
        Instruction mm = make(Opcode::Gemm, {{Field::mac_dtype, mac_dtype}, {Field::accumulate, accumulate},
                                             {Field::a_addr, addr(in_at)}, {Field::b_addr, addr(w_slot)},
                                             {Field::c_addr, addr(acc)}, {Field::m, tile.rows}, {Field::n, ch.oc},
                                             {Field::k, cs}, {Field::swap, swap}});
        if (wstore.quantized()) {
          std::uint64_t scale_offset = 0;
          weight_block_bytes(wstore, cs, ch.oc, es, ctx.alignment, &scale_offset);
          mm.set(Field::b_format, static_cast<std::int64_t>(wstore.format));
          mm.set(Field::b_scale_addr, addr(w_slot + scale_offset));
          mm.set(Field::b_group, static_cast<std::int64_t>(wstore.group));
        }
        code.push_back(mm);
      } else {
        code.push_back(make(Opcode::Conv,
                            {{Field::mac_dtype, mac_dtype}, {Field::accumulate, accumulate}, {Field::in_addr, addr(in_at)},
                             {Field::w_addr, addr(w_slot)}, {Field::out_addr, addr(acc)}, {Field::in_h, kh1 - kh0},
                             {Field::in_w, iw1 - iw0}, {Field::in_c, cs}, {Field::out_c, ch.oc},
                             {Field::kernel_h, plan.kernel_rows ? 1 : KH}, {Field::kernel_w, KW},
                             {Field::stride_h, geo.stride_h}, {Field::stride_w, geo.stride_w},
                             {Field::dilation_h, plan.kernel_rows ? 1 : geo.dilation_h},
                             {Field::dilation_w, geo.dilation_w}, {Field::pad_top, kh0 - kstart},
                             {Field::pad_left, iw0 - cstart}, {Field::pad_bottom, kend - (kh1 - 1)},
                             {Field::pad_right, cend - (iw1 - 1)}, {Field::groups, s.groups == 1 ? 1 : ch.units},
                             {Field::pad_value, ctx.int8() ? q.input_zero_point : 0}, {Field::swap, swap},
                             {Field::depthwise, dw}, {Field::in_stride, x_home && !part && cs < s.c ? s.c : 0}}));
      }
    }
    const std::int64_t count = tile.rows * tile.cols * ch.oc;
    epilogue(code, acc, o_slot, res_slot, count, ch.oc, pbase);
    if (ctx.in_ddr(L.y)) {
      emit_dma(code, Opcode::Store, window_box(y.addr, o_slot, tile.row0, tile.rows, tile.col0, tile.cols, s.ow, s.oc,
                                               ch.first_oc, ch.oc, es), ctx.alignment);
      out.planned_ddr_bytes += static_cast<std::uint64_t>(count * es);
    }
  }
  if (s.lut) out.planned_ddr_bytes += 256;
  out.macs = static_cast<std::uint64_t>(s.oh * s.ow * s.oc * icg * KH * KW);
  out.est_cycles = plan.est_cycles;
  return out;
}

bool is_conv_or_gemm(const Node& n) { return n.op_type == "FusedConv" || n.op_type == "FusedGemm"; }

}  // namespace

const NpuOpFamily& conv_family() {
  static const NpuOpFamily family{"conv", is_conv_or_gemm,
                                  conv_rejection, generate_conv, conv_demand,
                                  /*region_aware=*/true, /*reads_resident=*/true, /*writes_resident=*/true};
  return family;
}

}  // namespace npu::compiler
