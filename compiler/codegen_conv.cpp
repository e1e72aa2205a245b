// Code for fused Conv / Gemm layers: the MAC array accumulates a tile, the vector unit runs
// the epilogue (bias, requantise or cast, activation, residual add) on the accumulators in
// SRAM, and only the final int8/fp16 result is stored to DDR.
#include <cmath>
#include <cstring>
#include <limits>

#include "compiler/codegen_context.h"
#include "compiler/eltwise_plan.h"
#include "compiler/float_evaluator.h"
#include "compiler/instruction_stream.h"
#include "compiler/int8_layer_params.h"
#include "compiler/quant_math.h"
#include "compiler/quantize.h"
#include "compiler/shape_inference.h"
#include "compiler/sram_tiling.h"
#include "isa/field_limits.h"
#include "isa/fp16.h"

namespace npu::compiler {
namespace {

template <typename T>
void append(std::vector<std::uint8_t>& out, T v) {
  std::uint8_t b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.insert(out.end(), b, b + sizeof(T));
}

constexpr std::int64_t kDtypeInt32 = static_cast<std::int64_t>(isa::DType::Int32);
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

// DMA box for rows [row0, row0+rows) of an NHWC tensor, channels [c0, c0+count).
DmaBox rows_box(std::uint64_t ddr_base, std::uint64_t sram, std::int64_t row0, std::int64_t rows, std::int64_t w,
                std::int64_t c_total, std::int64_t c0, std::int64_t count, std::int64_t es) {
  DmaBox b;
  b.sram_addr = sram;
  std::uint64_t row_bytes = static_cast<std::uint64_t>(w * c_total * es);
  b.ddr_addr = ddr_base + static_cast<std::uint64_t>(row0) * row_bytes + static_cast<std::uint64_t>(c0 * es);
  if (count == c_total && row_bytes <= kDmaLen0Max) {
    b.run_bytes = row_bytes;
    b.runs = static_cast<std::uint64_t>(rows);
    b.ddr_stride = b.sram_stride = row_bytes;
  } else {
    b.run_bytes = static_cast<std::uint64_t>(count * es);
    b.runs = static_cast<std::uint64_t>(w);
    b.ddr_stride = static_cast<std::uint64_t>(c_total * es);
    b.sram_stride = b.run_bytes;
    b.reps = static_cast<std::uint64_t>(rows);
    b.ddr_rep_stride = row_bytes;
    b.sram_rep_stride = static_cast<std::uint64_t>(w * count * es);
  }
  return b;
}

}  // namespace

LayerCode generate_conv(CodegenContext& ctx, const Node& n) {
  const Graph& g = ctx.graph;
  const bool gemm = n.op_type == "FusedGemm";
  const Tensor& xt = g.tensor(n.inputs[0]);
  const Tensor& wt = g.tensor(n.inputs[1]);
  const std::string& bias_name = n.inputs.size() > 2 ? n.inputs[2] : std::string();
  const std::string& res_name = n.inputs.size() > 3 ? n.inputs[3] : std::string();
  const bool residual = !res_name.empty();
  const DdrTensor& x = ctx.tensor(n.inputs[0]);
  const DdrTensor& y = ctx.tensor(n.outputs[0]);
  const DdrTensor* r = residual ? &ctx.tensor(res_name) : nullptr;
  const std::int64_t es = ctx.elem_bytes();

  ConvShape s;
  s.name = n.name;
  s.gemm = gemm;
  s.h = x.h;
  s.w = x.w;
  s.c = x.c;
  s.oc = y.c;
  s.oh = y.h;
  s.ow = y.w;
  WindowGeometry geo;
  if (!gemm) {
    geo = window_geometry(n, xt.shape, wt.shape[2], wt.shape[3]);
    s.groups = n.get_int("group", 1);
  }
  // A 1x1, stride-1, unpadded conv sees each pixel alone: any H x W with the same pixels in the
  // same (NHWC) order is the same layer, so one too wide for in_w (YOLOv8's 4 x 8400 DFL conv)
  // runs as HW x 1.
  if (!gemm && geo.kernel_h == 1 && geo.kernel_w == 1 && geo.stride_h == 1 && geo.stride_w == 1 && geo.pad_top == 0 &&
      geo.pad_left == 0 && geo.pad_bottom == 0 && geo.pad_right == 0 &&
      s.w > isa::field_max(isa::Opcode::Conv, isa::Field::in_w)) {
    s.h = x.h * x.w;
    s.w = 1;
    s.oh = y.h * y.w;
    s.ow = 1;
  }
  s.kh = geo.kernel_h;
  s.kw = geo.kernel_w;
  s.sh = geo.stride_h;
  s.dh = geo.dilation_h;
  s.pad_top = geo.pad_top;
  s.elem = es;
  s.residual = residual;
  std::string act = n.get_string("activation", "");
  std::string post = n.get_string("post_activation", "");
  s.lut = ctx.int8() && is_lut_activation(act);
  TilePlan plan = plan_conv_tiles(s, ctx.sram_bytes, ctx.alignment, &ctx.config);

  // ---- constant data: packed weights per chunk, epilogue parameters per chunk ----
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
  if (!bias_name.empty()) bias = g.tensor(bias_name).floats;

  std::vector<std::uint8_t> weights_blob, params_blob;
  std::vector<std::uint64_t> chunk_w_offset;
  std::vector<std::uint64_t> slice_w_offset;  // per (chunk, input-channel slice), chunk-major
  for (const auto& ch : plan.chunks) {
    chunk_w_offset.push_back(weights_blob.size());
    slice_w_offset.push_back(weights_blob.size());
    std::int64_t g0 = ch.first_unit, gu = ch.units;
    auto push_w = [&](std::size_t idx) {
      if (ctx.int8()) weights_blob.push_back(static_cast<std::uint8_t>(q.weights[idx]));
      else append<std::uint16_t>(weights_blob, isa::float_to_half(wf[idx]));
    };
    if (plan.k_slices > 1) {  // per input-channel slice: [kh][kw][slice C][chunk_oc], each 64-aligned
      for (std::int64_t k = 0; k < plan.k_slices; ++k) {
        if (k > 0) {
          while (weights_blob.size() % 64) weights_blob.push_back(0);
          slice_w_offset.push_back(weights_blob.size());
        }
        std::int64_t c0 = k * plan.k_slice, c1 = std::min(s.c, c0 + plan.k_slice);
        for (std::int64_t kh = 0; kh < KH; ++kh)
          for (std::int64_t kw = 0; kw < KW; ++kw)
            for (std::int64_t i = c0; i < c1; ++i)
              for (std::int64_t o = ch.first_oc; o < ch.first_oc + ch.oc; ++o) push_w(w_at(o, i, kh, kw));
      }
    } else if (s.groups == 1) {  // [kh][kw][C][chunk_oc]
      for (std::int64_t kh = 0; kh < KH; ++kh)
        for (std::int64_t kw = 0; kw < KW; ++kw)
          for (std::int64_t i = 0; i < s.c; ++i)
            for (std::int64_t o = ch.first_oc; o < ch.first_oc + ch.oc; ++o) push_w(w_at(o, i, kh, kw));
    } else {  // [group][kh][kw][icg][ocg]
      for (std::int64_t gi = g0; gi < g0 + gu; ++gi)
        for (std::int64_t kh = 0; kh < KH; ++kh)
          for (std::int64_t kw = 0; kw < KW; ++kw)
            for (std::int64_t i = 0; i < icg; ++i)
              for (std::int64_t o = gi * ocg; o < (gi + 1) * ocg; ++o) push_w(w_at(o, i, kh, kw));
    }
    while (weights_blob.size() % 64) weights_blob.push_back(0);
    // Parameters: bias block then (int8) requant block, each aligned, as the SRAM image.
    std::size_t start = params_blob.size();
    for (std::int64_t o = ch.first_oc; o < ch.first_oc + ch.oc; ++o) {
      if (ctx.int8()) {
        append<std::int32_t>(params_blob, q.bias[o]);
      } else {
        append<float>(params_blob, bias[o]);
      }
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
  std::uint64_t weights_ddr = ctx.add_data(weights_blob);
  std::uint64_t params_ddr = ctx.add_data(params_blob);
  std::uint64_t lut_ddr = 0;
  if (s.lut) lut_ddr = ctx.add_data(std::vector<std::uint8_t>(q.lut.begin(), q.lut.end()));
  const QaddParams& qadd = q.qadd;

  // ---- instructions ----
  LayerStream stream({Unit::Load, Unit::Compute, Unit::Vector, Unit::Store}, residual);
  const SramLayout& m = plan.sram;
  auto epilogue = [&](std::vector<Instruction>& vec, std::uint64_t acc, std::uint64_t o_slot, std::uint64_t res_slot,
                      std::int64_t count, std::int64_t ch_oc, std::uint64_t pbase) {
    auto addr = [](std::uint64_t a) { return static_cast<std::int64_t>(a); };
    if (ctx.int8()) {
      vec.push_back(make(Opcode::BiasAdd, {{Field::dtype, kDtypeInt32}, {Field::dst_addr, addr(acc)}, {Field::src_addr, addr(acc)},
                                                 {Field::param_addr, addr(pbase)}, {Field::count, count}, {Field::channels, ch_oc}}));
      vec.push_back(make(Opcode::Requantize,
                               {{Field::dst_addr, addr(o_slot)}, {Field::src_addr, addr(acc)},
                                {Field::param_addr, addr(pbase + ctx.align(static_cast<std::uint64_t>(4 * ch_oc)))},
                                {Field::count, count}, {Field::channels, ch_oc}, {Field::zero_point, q.requant_zero_point},
                                {Field::clamp_min, q.clamp_min}, {Field::clamp_max, q.clamp_max}}));
      if (s.lut)
        vec.push_back(make(Opcode::Lut, {{Field::dst_addr, addr(o_slot)}, {Field::src_addr, addr(o_slot)},
                                               {Field::table_addr, addr(m.lut)}, {Field::count, count}}));
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
      if (act == "Relu" || act == "Clip") {
        clip(act, n.get_float("act_alpha", 0), n.get_float("act_beta", 0), kDtypeFp32, acc);
      } else if (!act.empty()) {
        Instruction in = make(Opcode::Activation, {{Field::dtype, kDtypeFp32}, {Field::function, act_function(act)},
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
        if (post == "Relu" || post == "Clip") clip(post, n.get_float("post_alpha", 0), n.get_float("post_beta", 0), kDtypeFp16, o_slot);
      }
    }
  };
  int weight_loads = 0, input_loads = 0;
  std::int64_t last_chunk = -1, last_rows = -1;
  LayerCode out;
  std::uint64_t params_offset = 0;
  std::vector<std::uint64_t> chunk_param_offset;
  for (const auto& ch : plan.chunks) {
    chunk_param_offset.push_back(params_offset);
    params_offset += m.params_per_chunk(ch.oc);
  }
  if (plan.k_slices > 1) {
    // Reduction split over input-channel slices: one step per (tile, slice). A step loads the
    // slice's weights and input channels into slot step%2 and convolves them into the tile's
    // accumulators (accumulate after the first slice); the epilogue and store follow the last
    // slice. Tokens as LayerStream wires them, per step for load/compute and per tile for the
    // accumulator, output and residual slots.
    const std::int64_t ns = plan.k_slices, ntiles = static_cast<std::int64_t>(plan.tiles.size());
    std::vector<TileStages> steps(static_cast<std::size_t>(ntiles * ns));
    std::vector<std::size_t> vec_of_tile;
    for (std::int64_t t = 0; t < ntiles; ++t) {
      const auto& tile = plan.tiles[static_cast<std::size_t>(t)];
      const auto& ch = plan.chunks[static_cast<std::size_t>(tile.chunk)];
      std::int64_t start = tile.row0 * s.sh - geo.pad_top;
      std::int64_t end = (tile.row0 + tile.rows - 1) * s.sh - geo.pad_top + s.dh * (KH - 1);
      std::int64_t ih0 = std::max<std::int64_t>(0, start), ih1 = std::min<std::int64_t>(s.h - 1, end) + 1;
      if (ih1 <= ih0) throw CompileError(g.source + ": layer '" + n.name + "': a tile lies entirely in padding");
      std::uint64_t acc = m.acc[t % 2], res_slot = m.residual[t % 2], o_slot = m.output[t % 2];
      for (std::int64_t k = 0; k < ns; ++k) {
        const std::int64_t j = t * ns + k;
        TileStages& st = steps[static_cast<std::size_t>(j)];
        if (j == 0) {
          emit_linear_load(st.load, params_ddr, m.params, params_blob.size());
          if (s.lut) emit_dma(st.load, Opcode::Load, DmaBox{lut_ddr, m.lut, 256});
        }
        std::int64_t c0 = k * plan.k_slice, cs = std::min(plan.k_slice, s.c - c0);
        std::size_t wi = static_cast<std::size_t>(tile.chunk * ns + k);
        std::uint64_t w_end = wi + 1 < slice_w_offset.size() ? slice_w_offset[wi + 1] : weights_blob.size();
        std::uint64_t w_slot = m.weights[j % 2], in_slot = m.input[j % 2];
        emit_linear_load(st.load, weights_ddr + slice_w_offset[wi], w_slot, w_end - slice_w_offset[wi]);
        out.planned_ddr_bytes += w_end - slice_w_offset[wi];
        emit_dma(st.load, Opcode::Load, rows_box(x.addr, in_slot, ih0, ih1 - ih0, s.w, s.c, c0, cs, es));
        out.planned_ddr_bytes += static_cast<std::uint64_t>((ih1 - ih0) * s.w * cs * es);
        if (residual && k == 0) {
          emit_dma(st.load, Opcode::Load, rows_box(r->addr, res_slot, tile.row0, tile.rows, s.ow, s.oc, ch.first_oc, ch.oc, es));
          out.planned_ddr_bytes += static_cast<std::uint64_t>(tile.rows * s.ow * ch.oc * es);
        }
        std::int64_t mac_dtype = mac_dtype_of(ctx.int8()), accumulate = k > 0 ? 1 : 0;
        if (gemm) {
          st.compute.push_back(make(Opcode::Gemm, {{Field::mac_dtype, mac_dtype}, {Field::accumulate, accumulate},
                                                   {Field::a_addr, static_cast<std::int64_t>(in_slot)},
                                                   {Field::b_addr, static_cast<std::int64_t>(w_slot)},
                                                   {Field::c_addr, static_cast<std::int64_t>(acc)}, {Field::m, tile.rows},
                                                   {Field::n, ch.oc}, {Field::k, cs}}));
        } else {
          st.compute.push_back(make(Opcode::Conv,
                                    {{Field::mac_dtype, mac_dtype}, {Field::accumulate, accumulate},
                                     {Field::in_addr, static_cast<std::int64_t>(in_slot)},
                                     {Field::w_addr, static_cast<std::int64_t>(w_slot)}, {Field::out_addr, static_cast<std::int64_t>(acc)},
                                     {Field::in_h, ih1 - ih0}, {Field::in_w, s.w}, {Field::in_c, cs}, {Field::out_c, ch.oc},
                                     {Field::kernel_h, KH}, {Field::kernel_w, KW}, {Field::stride_h, geo.stride_h},
                                     {Field::stride_w, geo.stride_w}, {Field::dilation_h, geo.dilation_h},
                                     {Field::dilation_w, geo.dilation_w}, {Field::pad_top, ih0 - start},
                                     {Field::pad_left, geo.pad_left}, {Field::pad_bottom, end - (ih1 - 1)},
                                     {Field::pad_right, geo.pad_right}, {Field::groups, 1},
                                     {Field::pad_value, ctx.int8() ? q.input_zero_point : 0}}));
        }
        if (k + 1 == ns) {
          std::int64_t count = tile.rows * s.ow * ch.oc;
          epilogue(st.vector, acc, o_slot, res_slot, count, ch.oc, m.params + chunk_param_offset[static_cast<std::size_t>(tile.chunk)]);
          emit_dma(st.store, Opcode::Store, rows_box(y.addr, o_slot, tile.row0, tile.rows, s.ow, s.oc, ch.first_oc, ch.oc, es));
          out.planned_ddr_bytes += static_cast<std::uint64_t>(count * es);
        }
      }
    }
    auto bit = [](Unit u) { return static_cast<std::uint8_t>(1u << static_cast<int>(u)); };
    auto S = [&](std::int64_t j) -> TileStages& { return steps[static_cast<std::size_t>(j)]; };
    const std::int64_t nsteps = ntiles * ns;
    for (std::int64_t j = 0; j < nsteps; ++j) {  // input and weight slots: per step
      S(j).load.back().push |= bit(Unit::Compute);
      S(j).compute.front().pop |= bit(Unit::Load);
      if (j + 2 < nsteps) {
        S(j).compute.back().push |= bit(Unit::Load);
        S(j + 2).load.front().pop |= bit(Unit::Compute);
      }
    }
    for (std::int64_t t = 0; t < ntiles; ++t) {  // accumulator, output and residual slots: per tile
      TileStages& first = S(t * ns);
      TileStages& last = S(t * ns + ns - 1);
      last.compute.back().push |= bit(Unit::Vector);
      last.vector.front().pop |= bit(Unit::Compute);
      last.vector.back().push |= bit(Unit::Store);
      last.store.front().pop |= bit(Unit::Vector);
      if (residual) {
        first.load.back().push |= bit(Unit::Vector);
        last.vector.front().pop |= bit(Unit::Load);
      }
      if (t + 2 < ntiles) {
        last.vector.back().push |= bit(Unit::Compute);
        S((t + 2) * ns).compute.front().pop |= bit(Unit::Vector);
        last.store.back().push |= bit(Unit::Vector);
        S((t + 2) * ns + ns - 1).vector.front().pop |= bit(Unit::Store);
        if (residual) {
          last.vector.back().push |= bit(Unit::Load);
          S((t + 2) * ns).load.front().pop |= bit(Unit::Vector);
        }
      }
    }
    for (auto& st : steps)
      for (auto* v : {&st.load, &st.compute, &st.vector, &st.store}) out.code.insert(out.code.end(), v->begin(), v->end());
    out.planned_ddr_bytes += params_blob.size() + (s.lut ? 256 : 0);
    out.macs = static_cast<std::uint64_t>(s.oh * s.ow * s.oc * icg * KH * KW);
    return out;
  }
  for (std::size_t t = 0; t < plan.tiles.size(); ++t) {
    const auto& tile = plan.tiles[t];
    const auto& ch = plan.chunks[tile.chunk];
    TileStages& st = stream.new_tile();
    if (t == 0) {
      emit_linear_load(st.load, params_ddr, m.params, params_blob.size());
      if (s.lut) emit_dma(st.load, Opcode::Load, DmaBox{lut_ddr, m.lut, 256});
    }
    std::uint64_t w_slot = m.weights[weight_loads % 2];
    if (tile.chunk != last_chunk) {
      w_slot = m.weights[weight_loads % 2];
      std::uint64_t bytes = (tile.chunk + 1 < static_cast<std::int64_t>(plan.chunks.size()) ? chunk_w_offset[tile.chunk + 1]
                                                                                          : weights_blob.size()) -
                            chunk_w_offset[tile.chunk];
      emit_linear_load(st.load, weights_ddr + chunk_w_offset[tile.chunk], w_slot, bytes);
      out.planned_ddr_bytes += bytes;
      ++weight_loads;
      last_chunk = tile.chunk;
      last_rows = -1;  // grouped convs load a channel subset per chunk
    } else {
      w_slot = m.weights[(weight_loads - 1) % 2];
    }
    // Input rows with halo, clipped to the tensor; the rest is the instruction's padding.
    std::int64_t start = tile.row0 * s.sh - geo.pad_top;
    std::int64_t end = (tile.row0 + tile.rows - 1) * s.sh - geo.pad_top + s.dh * (KH - 1);
    std::int64_t ih0 = std::max<std::int64_t>(0, start), ih1 = std::min<std::int64_t>(s.h - 1, end) + 1;
    if (ih1 <= ih0) throw CompileError(g.source + ": layer '" + n.name + "': a tile lies entirely in padding");
    std::int64_t cin0 = s.groups == 1 ? 0 : ch.first_unit * icg;
    std::int64_t cin = s.groups == 1 ? s.c : ch.units * icg;
    std::int64_t key = tile.row0 * 1000003 + cin0;
    if (key != last_rows || s.groups != 1) {
      ++input_loads;
      emit_dma(st.load, Opcode::Load, rows_box(x.addr, m.input[(input_loads - 1) % 2], ih0, ih1 - ih0, s.w, s.c, cin0, cin, es));
      out.planned_ddr_bytes += static_cast<std::uint64_t>((ih1 - ih0) * s.w * cin * es);
      last_rows = key;
    }
    std::uint64_t in_slot = m.input[(input_loads - 1) % 2];
    std::uint64_t acc = m.acc[t % 2], res_slot = m.residual[t % 2], o_slot = m.output[t % 2];
    if (residual) {
      emit_dma(st.load, Opcode::Load, rows_box(r->addr, res_slot, tile.row0, tile.rows, s.ow, s.oc, ch.first_oc, ch.oc, es));
      out.planned_ddr_bytes += static_cast<std::uint64_t>(tile.rows * s.ow * ch.oc * es);
    }
    std::int64_t mac_dtype = mac_dtype_of(ctx.int8());
    if (gemm) {
      st.compute.push_back(make(Opcode::Gemm, {{Field::mac_dtype, mac_dtype}, {Field::a_addr, static_cast<std::int64_t>(in_slot)},
                                               {Field::b_addr, static_cast<std::int64_t>(w_slot)}, {Field::c_addr, static_cast<std::int64_t>(acc)},
                                               {Field::m, tile.rows}, {Field::n, ch.oc}, {Field::k, s.c}}));
    } else {
      st.compute.push_back(make(Opcode::Conv,
                                {{Field::mac_dtype, mac_dtype}, {Field::in_addr, static_cast<std::int64_t>(in_slot)},
                                 {Field::w_addr, static_cast<std::int64_t>(w_slot)}, {Field::out_addr, static_cast<std::int64_t>(acc)},
                                 {Field::in_h, ih1 - ih0}, {Field::in_w, s.w}, {Field::in_c, cin}, {Field::out_c, ch.oc},
                                 {Field::kernel_h, KH}, {Field::kernel_w, KW}, {Field::stride_h, geo.stride_h},
                                 {Field::stride_w, geo.stride_w}, {Field::dilation_h, geo.dilation_h},
                                 {Field::dilation_w, geo.dilation_w}, {Field::pad_top, ih0 - start},
                                 {Field::pad_left, geo.pad_left}, {Field::pad_bottom, end - (ih1 - 1)},
                                 {Field::pad_right, geo.pad_right}, {Field::groups, s.groups == 1 ? 1 : ch.units},
                                 {Field::pad_value, ctx.int8() ? q.input_zero_point : 0}}));
    }
    std::int64_t count = tile.rows * s.ow * ch.oc;
    std::uint64_t pbase = m.params + chunk_param_offset[tile.chunk];
    epilogue(st.vector, acc, o_slot, res_slot, count, ch.oc, pbase);
    emit_dma(st.store, Opcode::Store, rows_box(y.addr, o_slot, tile.row0, tile.rows, s.ow, s.oc, ch.first_oc, ch.oc, es));
    out.planned_ddr_bytes += static_cast<std::uint64_t>(count * es);
  }
  out.planned_ddr_bytes += params_blob.size() + (s.lut ? 256 : 0);
  out.code = stream.finish();
  out.macs = static_cast<std::uint64_t>(s.oh * s.ow * s.oc * icg * KH * KW);
  return out;
}

}  // namespace npu::compiler
