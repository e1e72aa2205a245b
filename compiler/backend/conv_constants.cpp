// The conv family's constants in DDR (conv_layer.h): weight blocks in the order and layout the
// tiles load them, parameter blocks as the scratchpad image the drain / bias-add reads.
#include <cstring>

#include "compiler/backend/conv_layer.h"
#include "compiler/quant/weight_only.h"
#include "isa/fp16.h"

namespace npu::compiler {
namespace {

template <typename T>
void append(std::vector<std::uint8_t>& out, T v) {
  std::uint8_t b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.insert(out.end(), b, b + sizeof(T));
}

}  // namespace

ConvConstants place_conv_constants(CodegenContext& ctx, const Node& n, const ConvLayer& L, const TilePlan& plan,
                                   const Int8ConvParams& q) {
  const Graph& g = ctx.graph;
  const ConvShape& s = L.s;
  const bool gemm = L.gemm;
  const Tensor& wt = g.tensor(n.inputs[1]);
  const std::int64_t icg = s.c / s.groups, ocg = s.oc / s.groups;
  const std::int64_t KH = s.kh, KW = s.kw;
  const std::vector<float>& wf = wt.floats;  // Conv: [OC][icg][KH][KW]; Gemm: [K][N]
  auto w_at = [&](std::int64_t o, std::int64_t i, std::int64_t kh, std::int64_t kw) -> std::size_t {
    return gemm ? static_cast<std::size_t>(i * s.oc + o) : static_cast<std::size_t>(((o * icg + i) * KH + kh) * KW + kw);
  };
  std::vector<float> bias(static_cast<std::size_t>(s.oc), 0.0f);
  if (!L.bias.empty()) bias = g.tensor(L.bias).floats;
  const cost::WeightStorage& wstore = s.weights;
  WeightOnlyWeights wq;
  if (wstore.quantized()) {
    // int8 activations: the int4 integers the requantisation was computed with ([K][N]).
    wq = ctx.int8() ? WeightOnlyWeights{s.c, s.oc, s.c, q.weights, {}} : quantize_weight_only(wf, s.c, s.oc, wstore);
    if (!ctx.dry_run) ++ctx.weight_only_layers;
  }

  ConvConstants placed;
  auto& slice_channels = placed.slice_channels;
  if (plan.input_parts) {
    std::int64_t c0 = 0;
    for (const auto& p : s.parts) slice_channels.emplace_back(c0, c0 + p.c), c0 += p.c;
  } else {
    const std::int64_t width = plan.k_slice > 0 ? plan.k_slice : s.c;
    for (std::int64_t c0 = 0; c0 < s.c; c0 += width) slice_channels.emplace_back(c0, std::min(s.c, c0 + width));
  }
  std::vector<std::uint8_t> weights_blob, params_blob;
  auto& slice_w_offset = placed.slice_w_offset;
  auto& chunk_param_offset = placed.chunk_param_offset;
  for (const auto& ch : plan.chunks) {
    auto push_w = [&](std::size_t idx) {
      if (ctx.int8()) weights_blob.push_back(static_cast<std::uint8_t>(q.weights[idx]));
      else append<std::uint16_t>(weights_blob, isa::float_to_half_saturating(wf[idx]));
    };
    if (s.groups == 1) {  // per input-channel slice: [kh][kw][slice C][chunk_oc], each 64-aligned
      // (kernel-row slices are contiguous parts of the whole chunk's block)
      const std::int64_t channel_slices = plan.kernel_rows ? 1 : plan.k_slices;
      for (std::int64_t slice = 0; slice < channel_slices; ++slice) {
        slice_w_offset.push_back(weights_blob.size());
        const auto [c0, c1] = slice_channels[static_cast<std::size_t>(plan.kernel_rows ? 0 : slice)];
        if (wstore.quantized()) {
          if (wstore.group != 0 && c0 % wq.group_rows != 0)
            throw CompileError(g.source + ": layer '" + n.name + "': --weights int4 needs the parts of its concatenated input "
                               "to be multiples of --group-size " + std::to_string(wstore.group) + " channels (a part starts at " +
                               std::to_string(c0) + ")");
          append_weight_block(weights_blob, wq, wstore, c0, c1, ch.first_oc, ch.oc, ctx.alignment);
        } else if (gemm && ctx.int8()) {  // [K][N]: the chunk's outputs of one input channel lie side by side
          for (std::int64_t kh = 0; kh < KH; ++kh)
            for (std::int64_t kw = 0; kw < KW; ++kw)
              for (std::int64_t i = c0; i < c1; ++i) {
                const auto* run = reinterpret_cast<const std::uint8_t*>(q.weights.data() + w_at(ch.first_oc, i, kh, kw));
                weights_blob.insert(weights_blob.end(), run, run + ch.oc);
              }
        } else if (ctx.int8()) {
          // push_w's bytes written in place (a push_back per weight was most of this function),
          // a block of output channels at a time: each weight read sat in another output
          // channel's cache line, and a block's lines stay cached across (kh, kw, i).
          constexpr std::int64_t kOcBlock = 64;
          const std::size_t at = weights_blob.size();
          weights_blob.resize(at + static_cast<std::size_t>(KH * KW * (c1 - c0) * ch.oc));
          std::uint8_t* out = weights_blob.data() + at;
          for (std::int64_t o0 = ch.first_oc; o0 < ch.first_oc + ch.oc; o0 += kOcBlock) {
            const std::int64_t o1 = std::min(o0 + kOcBlock, ch.first_oc + ch.oc);
            std::uint8_t* row = out + (o0 - ch.first_oc);  // (kh, kw, i) = (0, 0, c0)'s row
            for (std::int64_t kh = 0; kh < KH; ++kh)
              for (std::int64_t kw = 0; kw < KW; ++kw)
                for (std::int64_t i = c0; i < c1; ++i, row += ch.oc)
                  for (std::int64_t o = o0; o < o1; ++o) row[o - o0] = static_cast<std::uint8_t>(q.weights[w_at(o, i, kh, kw)]);
          }
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
  placed.weights_ddr = ctx.add_data(weights_blob);
  placed.params_ddr = ctx.add_data(params_blob);
  if (s.lut) placed.lut_ddr = ctx.add_data(std::vector<std::uint8_t>(q.lut.begin(), q.lut.end()));
  return placed;
}

}  // namespace npu::compiler
