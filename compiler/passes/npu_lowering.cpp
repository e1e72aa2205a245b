// Rewrites of layers the conv instruction cannot express directly into ones it can, in standard
// ONNX ops (so calibration, fusion, partitioning and the integer reference see nothing new):
//
// - Conv1d as a 2-D Conv over [N, C, 1, L]; a batch as the rows of one image, [1, C, N, L] (the
//   NPU's images are batch 1; a kernel one row high never mixes the rows). Windows or strides past
//   the conv fields over stride-sized blocks of the signal.
// - ConvTranspose with kernel == stride and no padding (U-Net / DB-head upsampling): every
//   output pixel takes exactly one tap, so it is a 1x1 Conv to OC*s*s channels followed by
//   DepthToSpace(s, DCR), a DMA interleave.
// - Any other ConvTranspose (group >= 1, dilation, pads, output_padding): zeros inserted between
//   input pixels (Reshape to [N,C,H,1,W,1], Pad to [N,C,H,s,W,s], Reshape to [N,C,Hs,Ws]), the
//   border padded or cropped (Pad), then a stride-1 Conv with the flipped kernel. The MAC array
//   multiplies the inserted zeros: s*s times the useful MACs, honestly counted.
// - A "patchify" Conv whose stride exceeds the stride field (ViT's 16x16/16, kernel == stride,
//   no padding): SpaceToDepth(s) then a 1x1 Conv over the s*s*C channels.
// - Resize in mode linear by a whole factor s (the same on H and W, up to 8) with half-pixel or
//   asymmetric coordinates (Keras/TFLite UpSampling2D, PyTorch's align_corners=False): every
//   output phase (i, j) is a fixed 2x2 blend of a pixel's neighbourhood, so it is an edge Pad by
//   one, a depthwise 3x3 Conv per phase, their Concat and DepthToSpace(s, DCR). Exact, borders
//   included (the edge pad is the clamp); 9 MACs per output pixel.
// - MaxPool/AveragePool whose window equals its stride and tiles the input without padding, with
//   a kernel or stride past the pool instruction's fields (SelfieSegmentation's 16..128-wide
//   average pools): a chain of such pools whose sizes multiply to it (averages of equal blocks
//   average, maxima of maxima are maxima).
// - A Conv whose kernel is longer than the kernel field along one axis (a streaming wake-word
//   model's 17-tap depthwise conv over time): its taps in pieces of at most the field, each a
//   Conv over the slice of the (explicitly padded) input its taps read, the pieces summed by Adds
//   (the bias on the first). The same MACs; INT8 rounds each partial sum once more.
// - Clip with a bound computed at run time (a log-mel spectrogram floored at its maximum minus
//   80 dB): Max and Min against that value, which the vector unit broadcasts; a constant bound
//   beside it stays a one-sided Clip.
#include <algorithm>
#include <array>

#include "compiler/core/node_parameters.h"
#include "compiler/frontend/shape_inference.h"
#include "compiler/passes/passes.h"
#include "isa/field_limits.h"

namespace npu::compiler {
namespace {

constexpr std::int64_t kStrideMax = isa::field_max(isa::Opcode::Conv, isa::Field::stride_h);
constexpr std::int64_t kKernelMax = isa::field_max(isa::Opcode::Conv, isa::Field::kernel_w);
// Reflect/edge pads: up to this many one-wide Slices a side; on the last axis, up to
// kMaxMirroredBlock more as one Slice and a MatMul with a constant 0/1 matrix (count^2 weights).
constexpr std::int64_t kMaxMirroredSlices = 64;
constexpr std::int64_t kMaxMirroredBlock = 1024;
constexpr std::int64_t kPoolWindowMax =
    std::min(isa::field_max(isa::Opcode::Pool, isa::Field::kernel_h), isa::field_max(isa::Opcode::Pool, isa::Field::stride_h));

std::vector<std::int64_t> ints_or(const Node& n, const std::string& a, std::vector<std::int64_t> fallback) {
  return n.has(a) ? n.get_ints(a) : fallback;
}

class Lowering {
 public:
  explicit Lowering(Graph& g) : g_(g) {}

  std::string run() {
    std::vector<Node> out;
    for (auto& n : g_.nodes) {
      if (n.domain.empty() && n.op_type == "ConvTranspose" && conv_transpose(n, out)) continue;
      if (n.domain.empty() && n.op_type == "Conv" && conv1d(n, out)) continue;
      if (n.domain.empty() && n.op_type == "Pad" && mirrored_pad(n, out)) continue;
      if (n.domain.empty() && n.op_type == "Conv" && patchify(n, out)) continue;
      if (n.domain.empty() && n.op_type == "Resize" && linear_upsample(n, out)) continue;
      if (n.domain.empty() && (n.op_type == "AveragePool" || n.op_type == "MaxPool") && chained_pool(n, out)) continue;
      if (n.domain.empty() && n.op_type == "Clip" && clip_with_run_time_bounds(n, out)) continue;
      out.push_back(std::move(n));
    }
    g_.nodes = std::move(out);
    // After the first sweep, which makes 2-D Convs of Conv1d ones.
    out.clear();
    for (auto& n : g_.nodes) {
      if (n.domain.empty() && n.op_type == "Conv" && wide_kernel_in_pieces(n, out)) continue;
      out.push_back(std::move(n));
    }
    g_.nodes = std::move(out);
    infer_shapes(g_);
    return std::to_string(subpixel_) + " ConvTranspose as 1x1 Conv + DepthToSpace, " + std::to_string(zero_insert_) +
           " as zero insertion + Conv, " + std::to_string(patchify_) + " large-stride Conv as SpaceToDepth + 1x1 Conv, " +
           std::to_string(conv1d_) + " Conv1d as 2-D Conv (" + std::to_string(blocked_) + " of them over stride-sized blocks), " +
           std::to_string(mirrored_) + " reflect/edge Pad as slices and a Concat, " + std::to_string(upsampled_) +
           " linear Resize as depthwise Convs + DepthToSpace, " + std::to_string(chained_) + " wide pools as chains, " +
           std::to_string(run_time_clips_) + " Clip with run-time bounds as Max/Min, " +
           std::to_string(wide_kernels_) + " Conv kernel(s) past the kernel field as summed pieces";
  }

 private:
  std::string value(const std::string& base, std::vector<std::int64_t> shape) {
    return g_.add_value(base, kFloat, std::move(shape));
  }
  std::string ints_constant(const std::string& base, std::vector<std::int64_t> v) { return g_.add_int_vector(base, std::move(v)); }
  Node node(const std::string& op, const Node& from, const std::string& suffix, std::vector<std::string> in,
            std::vector<std::string> outs) {
    return g_.derived_node(op, from, suffix, std::move(in), std::move(outs));
  }

  bool clip_with_run_time_bounds(const Node& n, std::vector<Node>& out) {
    auto input = [&](std::size_t i) { return n.inputs.size() > i && !n.inputs[i].empty(); };
    auto run_time = [&](std::size_t i) { return input(i) && !g_.is_constant(n.inputs[i]); };
    if ((!run_time(1) && !run_time(2)) || n.inputs.empty() || !g_.tensor(n.inputs[0]).shape_known) return false;
    const std::vector<std::int64_t> shape = g_.tensor(n.inputs[0]).shape;
    const char* attribute[] = {"", "min", "max"};
    auto given = [&](std::size_t i) { return input(i) || n.has(attribute[i]); };
    std::string cur = n.inputs[0];
    // min(max(x, lo), hi), as ONNX defines Clip: the lower bound first.
    for (std::size_t i : {std::size_t{1}, std::size_t{2}}) {
      if (!given(i)) continue;
      const std::string y = i == 2 || !given(2) ? n.outputs[0] : value(n.name + "_floored", shape);
      const std::string suffix = i == 1 ? "_floor" : "_ceiling";
      if (run_time(i)) {
        out.push_back(node(i == 1 ? "Max" : "Min", n, suffix, {cur, n.inputs[i]}, {y}));
      } else {  // a constant bound beside a run-time one: a one-sided Clip
        std::vector<std::string> in = {cur, "", ""};
        if (input(i)) in[i] = n.inputs[i];
        in.resize(input(i) ? i + 1 : 1);
        Node clip = node("Clip", n, suffix, in, {y});
        if (!input(i)) clip.set_float(attribute[i], n.get_float(attribute[i], 0.0f));
        out.push_back(clip);
      }
      cur = y;
    }
    ++run_time_clips_;
    return true;
  }

  bool wide_kernel_in_pieces(const Node& n, std::vector<Node>& out) {
    if (n.inputs.size() < 2 || !g_.is_constant(n.inputs[1]) || n.get_string("auto_pad", "NOTSET") != "NOTSET") return false;
    const Tensor& x = g_.tensor(n.inputs[0]);
    const Tensor& w = g_.tensor(n.inputs[1]);
    const Tensor& y = g_.tensor(n.outputs[0]);
    if (!x.shape_known || !y.shape_known || x.shape.size() != 4 || y.shape.size() != 4 || w.shape.size() != 4 ||
        w.floats.empty())
      return false;
    const bool tall = w.shape[2] > kKernelMax, wide = w.shape[3] > kKernelMax;
    if (tall == wide) return false;  // fits, or long both ways (not seen; left to the field check)
    const std::size_t axis = tall ? 2 : 3, k = axis - 2;
    const auto s = ints_or(n, "strides", {1, 1}), d = ints_or(n, "dilations", {1, 1});
    auto p = ints_or(n, "pads", {0, 0, 0, 0});
    if (s.size() != 2 || d.size() != 2 || p.size() != 4) return false;
    const std::int64_t K = w.shape[axis], stride = s[k], dilation = d[k], out_len = y.shape[axis];
    std::string src = n.inputs[0];
    std::vector<std::int64_t> xs = x.shape;
    if (p[k] != 0 || p[k + 2] != 0) {
      std::vector<std::int64_t> pads(8, 0);
      pads[axis] = p[k];
      pads[axis + 4] = p[k + 2];
      xs[axis] += p[k] + p[k + 2];
      const std::string padded = value(n.name + "_taps_padded", xs);
      out.push_back(node("Pad", n, "_taps_pad", {src, ints_constant(n.name + "_taps_pads", pads)}, {padded}));
      src = padded;
      p[k] = p[k + 2] = 0;
    }
    const std::int64_t O = w.shape[0], I = w.shape[1], kh = w.shape[2], kw = w.shape[3];
    std::string sum;
    for (std::int64_t first = 0; first < K; first += kKernelMax) {
      const std::int64_t taps = std::min<std::int64_t>(kKernelMax, K - first);
      const std::string tag = "_taps" + std::to_string(first);
      std::vector<std::int64_t> in_shape = xs;
      in_shape[axis] = (out_len - 1) * stride + (taps - 1) * dilation + 1;
      const std::string in = value(n.name + tag + "_in", in_shape);
      Node slice = node("Slice", n, tag + "_in", {src}, {in});
      slice.set_ints("starts", {first * dilation});
      slice.set_ints("ends", {first * dilation + in_shape[axis]});
      slice.set_ints("axes", {static_cast<std::int64_t>(axis)});
      out.push_back(slice);
      const std::int64_t ph = tall ? taps : kh, pw = tall ? kw : taps;
      std::vector<float> piece;
      piece.reserve(static_cast<std::size_t>(O * I * ph * pw));
      for (std::int64_t o = 0; o < O * I; ++o)
        for (std::int64_t i = 0; i < ph; ++i)
          for (std::int64_t j = 0; j < pw; ++j)
            piece.push_back(w.floats[static_cast<std::size_t>((o * kh + (tall ? first + i : i)) * kw + (tall ? j : first + j))]);
      const std::string wn = g_.unique_name(n.name + tag + "_weight");
      g_.add_constant(wn, {O, I, ph, pw}, std::move(piece));
      std::vector<std::string> cin = {in, wn};
      if (first == 0 && n.inputs.size() > 2 && !n.inputs[2].empty()) cin.push_back(n.inputs[2]);
      const bool last = first + kKernelMax >= K;
      const std::string part = value(n.name + tag, y.shape);
      Node conv = node("Conv", n, tag, cin, {part});
      conv.set_ints("kernel_shape", {ph, pw});
      conv.set_ints("strides", s);
      conv.set_ints("dilations", d);
      conv.set_ints("pads", p);
      conv.set_int("group", n.get_int("group", 1));
      out.push_back(conv);
      if (first == 0) {
        sum = part;
        continue;
      }
      const std::string total = last ? n.outputs[0] : value(n.name + tag + "_sum", y.shape);
      out.push_back(node("Add", n, tag + "_sum", {sum, part}, {total}));
      sum = total;
    }
    ++wide_kernels_;
    return true;
  }

  bool conv_transpose(const Node& n, std::vector<Node>& out) {
    if (n.inputs.size() < 2 || !g_.is_constant(n.inputs[1]) || !g_.tensor(n.inputs[0]).shape_known) return false;
    const Tensor& x = g_.tensor(n.inputs[0]);
    const Tensor& w = g_.tensor(n.inputs[1]);  // [C_in, C_out/group, kh, kw]
    if (x.shape.size() != 4 || w.shape.size() != 4 || w.floats.empty()) return false;
    if (!n.get_ints("output_shape").empty() || n.get_string("auto_pad", "NOTSET") != "NOTSET") return false;
    const std::int64_t group = n.get_int("group", 1), C = x.shape[1], H = x.shape[2], W = x.shape[3];
    const std::int64_t kh = w.shape[2], kw = w.shape[3], ocg = w.shape[1], icg = C / group, OC = ocg * group;
    const auto s = ints_or(n, "strides", {1, 1}), d = ints_or(n, "dilations", {1, 1}), p = ints_or(n, "pads", {0, 0, 0, 0});
    const auto op = ints_or(n, "output_padding", {0, 0});
    if (s.size() != 2 || d.size() != 2 || p.size() != 4 || op.size() != 2) return false;
    std::vector<float> bias;
    if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
      if (!g_.is_constant(n.inputs[2])) return false;
      bias = g_.tensor(n.inputs[2]).floats;
    }
    const std::string& y = n.outputs[0];
    if (group == 1 && kh == s[0] && kw == s[1] && kh == kw && d[0] == 1 && d[1] == 1 && p == std::vector<std::int64_t>{0, 0, 0, 0} &&
        op == std::vector<std::int64_t>{0, 0}) {
      // 1x1 Conv to channel (i*s + j)*OC + c, then DepthToSpace DCR: the OC channels of one
      // output pixel stay contiguous, so the interleave moves whole runs.
      std::vector<float> wc(static_cast<std::size_t>(OC * kh * kw * C)), bc;
      for (std::int64_t c = 0; c < OC; ++c)
        for (std::int64_t i = 0; i < kh; ++i)
          for (std::int64_t j = 0; j < kw; ++j) {
            const std::int64_t o = (i * kw + j) * OC + c;
            for (std::int64_t ic = 0; ic < C; ++ic) wc[static_cast<std::size_t>(o * C + ic)] = w.floats[static_cast<std::size_t>(((ic * ocg + c) * kh + i) * kw + j)];
          }
      if (!bias.empty())
        for (std::int64_t k = 0; k < kh * kw; ++k) bc.insert(bc.end(), bias.begin(), bias.end());
      std::string wn = g_.unique_name(n.name + "_as_conv_weight");
      g_.add_constant(wn, {OC * kh * kw, C, 1, 1}, std::move(wc));
      std::vector<std::string> cin = {n.inputs[0], wn};
      if (!bc.empty()) {
        std::string bn = g_.unique_name(n.name + "_as_conv_bias");
        g_.add_constant(bn, {OC * kh * kw}, std::move(bc));
        cin.push_back(bn);
      }
      std::string mid = value(n.name + "_phases", {x.shape[0], OC * kh * kw, H, W});
      out.push_back(node("Conv", n, "_as_conv", cin, {mid}));
      Node d2s = node("DepthToSpace", n, "_interleave", {mid}, {y});
      d2s.set_int("blocksize", kh);
      d2s.set_string("mode", "DCR");
      out.push_back(d2s);
      ++subpixel_;
      return true;
    }
    // Zero insertion: [N,C,H,1,W,1] -> pad to [N,C,H,sh,W,sw] -> [N,C,H*sh,W*sw].
    const std::int64_t N = x.shape[0];
    std::string r6 = value(n.name + "_rows", {N, C, H, 1, W, 1});
    out.push_back(node("Reshape", n, "_split", {n.inputs[0], ints_constant(n.name + "_shape6", {N, C, H, 1, W, 1})}, {r6}));
    std::string p6 = value(n.name + "_zeros", {N, C, H, s[0], W, s[1]});
    out.push_back(node("Pad", n, "_insert_zeros",
                       {r6, ints_constant(n.name + "_pads6", {0, 0, 0, 0, 0, 0, 0, 0, 0, s[0] - 1, 0, s[1] - 1})}, {p6}));
    std::string r4 = value(n.name + "_dilated", {N, C, H * s[0], W * s[1]});
    out.push_back(node("Reshape", n, "_merge", {p6, ints_constant(n.name + "_shape4", {N, C, H * s[0], W * s[1]})}, {r4}));
    // Border: (k-1)*d - p before, the same after minus the s-1 trailing zeros plus output_padding.
    const std::int64_t top = (kh - 1) * d[0] - p[0], left = (kw - 1) * d[1] - p[1];
    const std::int64_t bottom = (kh - 1) * d[0] - p[2] - (s[0] - 1) + op[0], right = (kw - 1) * d[1] - p[3] - (s[1] - 1) + op[1];
    const std::int64_t Hp = H * s[0] + top + bottom, Wp = W * s[1] + left + right;
    std::string padded = value(n.name + "_bordered", {N, C, Hp, Wp});
    out.push_back(node("Pad", n, "_border", {r4, ints_constant(n.name + "_pads4", {0, 0, top, left, 0, 0, bottom, right})}, {padded}));
    // Flipped kernel, [OC, C/group, kh, kw].
    std::vector<float> wc(static_cast<std::size_t>(OC * icg * kh * kw));
    for (std::int64_t gi = 0; gi < group; ++gi)
      for (std::int64_t o = 0; o < ocg; ++o)
        for (std::int64_t i = 0; i < icg; ++i)
          for (std::int64_t a = 0; a < kh; ++a)
            for (std::int64_t b = 0; b < kw; ++b)
              wc[static_cast<std::size_t>((((gi * ocg + o) * icg + i) * kh + a) * kw + b)] =
                  w.floats[static_cast<std::size_t>((((gi * icg + i) * ocg + o) * kh + (kh - 1 - a)) * kw + (kw - 1 - b))];
    std::string wn = g_.unique_name(n.name + "_flipped_weight");
    g_.add_constant(wn, {OC, icg, kh, kw}, std::move(wc));
    std::vector<std::string> cin = {padded, wn};
    if (!bias.empty()) cin.push_back(n.inputs[2]);
    Node conv = node("Conv", n, "_as_conv", cin, {y});
    conv.set_ints("dilations", d);
    conv.set_int("group", group);
    out.push_back(conv);
    ++zero_insert_;
    return true;
  }

  bool patchify(const Node& n, std::vector<Node>& out) {
    if (n.inputs.size() < 2 || !g_.is_constant(n.inputs[1]) || !g_.tensor(n.inputs[0]).shape_known) return false;
    const Tensor& x = g_.tensor(n.inputs[0]);
    const Tensor& w = g_.tensor(n.inputs[1]);
    if (x.shape.size() != 4 || w.shape.size() != 4 || w.floats.empty() || n.get_int("group", 1) != 1) return false;
    const auto s = ints_or(n, "strides", {1, 1}), d = ints_or(n, "dilations", {1, 1}), p = ints_or(n, "pads", {0, 0, 0, 0});
    const std::int64_t kh = w.shape[2], kw = w.shape[3], OC = w.shape[0], C = x.shape[1];
    if (s.size() != 2 || (s[0] <= kStrideMax && s[1] <= kStrideMax)) return false;
    if (kh != s[0] || kw != s[1] || kh != kw || d != std::vector<std::int64_t>{1, 1} || p != std::vector<std::int64_t>{0, 0, 0, 0} ||
        n.get_string("auto_pad", "NOTSET") != "NOTSET")
      return false;
    std::string src = n.inputs[0];
    const std::int64_t Ho = x.shape[2] / kh, Wo = x.shape[3] / kw;
    if (Ho * kh != x.shape[2] || Wo * kw != x.shape[3]) {  // the rows and columns no window covers
      std::string cropped = value(n.name + "_cropped", {x.shape[0], C, Ho * kh, Wo * kw});
      out.push_back(node("Pad", n, "_crop", {src, ints_constant(n.name + "_crop_pads", {0, 0, 0, 0, 0, 0, Ho * kh - x.shape[2], Wo * kw - x.shape[3]})}, {cropped}));
      src = cropped;
    }
    std::string deep = value(n.name + "_patches", {x.shape[0], C * kh * kw, Ho, Wo});
    Node s2d = node("SpaceToDepth", n, "_patches", {src}, {deep});
    s2d.set_int("blocksize", kh);
    out.push_back(s2d);
    // SpaceToDepth channel (i*k + j)*C + c holds x[c, h*k+i, w*k+j].
    std::vector<float> wc(static_cast<std::size_t>(OC * C * kh * kw));
    for (std::int64_t o = 0; o < OC; ++o)
      for (std::int64_t c = 0; c < C; ++c)
        for (std::int64_t i = 0; i < kh; ++i)
          for (std::int64_t j = 0; j < kw; ++j)
            wc[static_cast<std::size_t>(o * C * kh * kw + (i * kw + j) * C + c)] = w.floats[static_cast<std::size_t>(((o * C + c) * kh + i) * kw + j)];
    std::string wn = g_.unique_name(n.name + "_patch_weight");
    g_.add_constant(wn, {OC, C * kh * kw, 1, 1}, std::move(wc));
    std::vector<std::string> cin = {deep, wn};
    if (n.inputs.size() > 2 && !n.inputs[2].empty()) cin.push_back(n.inputs[2]);
    out.push_back(node("Conv", n, "_as_1x1", cin, n.outputs));
    ++patchify_;
    return true;
  }

  // A 1-D Conv ([N, C, L], weights [O, C/g, K]) as a 2-D one over [N, C, 1, L]. When its window or
  // stride is beyond the conv instruction's fields (an STFT: K 400, stride 160) and it is not
  // grouped or dilated, the signal is cut into stride-sized blocks first, each block's samples
  // becoming channels: [N, C*s, 1, L/s], and the conv runs over ceil(K/s) blocks at stride 1
  // with the weights rearranged (taps past K zero).
  // A Conv1d's input x = [N, c..., L] as the 2-D conv's image x4 = [N, C, 1, L] (C the product of
  // the c...), or, for a batch (the NPU's images are batch 1), the N sequences as rows of one
  // image, [1, C, N, L]: a kernel one row high never mixes them.
  std::string batch_as_rows(const Node& n, const std::string& tag, const std::string& x, const std::vector<std::int64_t>& x4,
                            std::vector<Node>& out) {
    const std::int64_t N = x4[0], C = x4[1], L = x4[3];
    std::string src = x;
    if (N > 1) {  // [N, c..., L] -> [c..., N, L]
      const std::vector<std::int64_t>& xs = g_.tensor(x).shape;
      std::vector<std::int64_t> perm, shape;
      for (std::size_t a = 1; a + 1 < xs.size(); ++a) {
        perm.push_back(static_cast<std::int64_t>(a));
        shape.push_back(xs[a]);
      }
      perm.insert(perm.end(), {0, static_cast<std::int64_t>(xs.size()) - 1});
      shape.insert(shape.end(), {N, L});
      src = value(n.name + tag + "_rows", shape);
      Node t = node("Transpose", n, tag + "_rows", {x}, {src});
      t.set_ints("perm", perm);
      out.push_back(t);
    }
    const std::vector<std::int64_t> shape = N > 1 ? std::vector<std::int64_t>{1, C, N, L} : x4;
    const std::string image = value(n.name + tag, shape);
    out.push_back(node("Reshape", n, tag, {src, ints_constant(n.name + tag + "_shape", shape)}, {image}));
    return image;
  }
  // The 2-D conv's output, [1, O, N, Lo] (N rows; one row without a batch), back to [N, O, Lo] in
  // the Conv1d's output name.
  void rows_as_batch(const Node& n, const std::string& tag, const std::string& y4, const std::vector<std::int64_t>& y3,
                     std::vector<Node>& out) {
    const std::int64_t N = y3[0], O = y3[1], Lo = y3[2];
    if (N == 1) {
      out.push_back(node("Reshape", n, tag, {y4, ints_constant(n.name + tag + "_shape", y3)}, n.outputs));
      return;
    }
    const std::string rows = value(n.name + tag + "_rows", {O, N, Lo});
    out.push_back(node("Reshape", n, tag, {y4, ints_constant(n.name + tag + "_shape", {O, N, Lo})}, {rows}));
    Node t = node("Transpose", n, tag + "_batch", {rows}, n.outputs);
    t.set_ints("perm", {1, 0, 2});
    out.push_back(t);
  }

  bool conv1d(const Node& n, std::vector<Node>& out) {
    if (n.inputs.size() < 2 || !g_.is_constant(n.inputs[1])) return false;
    const Tensor& x = g_.tensor(n.inputs[0]);
    const Tensor& w = g_.tensor(n.inputs[1]);
    const Tensor& y = g_.tensor(n.outputs[0]);
    if (!x.shape_known || x.shape.size() != 3 || w.shape.size() != 3 || w.floats.empty() || !y.shape_known ||
        y.shape.size() != 3 || n.get_string("auto_pad", "NOTSET") != "NOTSET")
      return false;
    const std::int64_t N = x.shape[0], C = x.shape[1], L = x.shape[2], O = w.shape[0], K = w.shape[2], Lo = y.shape[2];
    const std::int64_t group = n.get_int("group", 1);
    const auto s = ints_or(n, "strides", {1}), d = ints_or(n, "dilations", {1}), p = ints_or(n, "pads", {0, 0});
    if (s.size() != 1 || d.size() != 1 || p.size() != 2 || group < 1 || C % group != 0 || w.shape[1] != C / group) return false;
    std::vector<std::string> bias;
    if (n.inputs.size() > 2 && !n.inputs[2].empty()) bias.push_back(n.inputs[2]);
    const bool fits = K <= kKernelMax && s[0] <= kStrideMax;
    if (fits || group != 1 || d[0] != 1) {
      // Straight: [N, C, 1, L], kernel [1, K]; a batch as rows, [1, C, N, L].
      const std::string x4 = batch_as_rows(n, "_2d_in", n.inputs[0], {N, C, 1, L}, out);
      const std::string wn = g_.unique_name(n.name + "_2d_weight");
      g_.add_constant(wn, {O, C / group, 1, K}, w.floats);
      const std::string y4 = value(n.name + "_2d_out", {1, O, N, Lo});
      std::vector<std::string> cin = {x4, wn};
      cin.insert(cin.end(), bias.begin(), bias.end());
      Node conv = node("Conv", n, "_2d", cin, {y4});
      conv.set_ints("kernel_shape", {1, K});
      conv.set_ints("strides", {1, s[0]});
      conv.set_ints("dilations", {1, d[0]});
      conv.set_ints("pads", {0, p[0], 0, p[1]});
      conv.set_int("group", group);
      out.push_back(conv);
      rows_as_batch(n, "_2d_out", y4, {N, O, Lo}, out);
      ++conv1d_;
      return true;
    }
    const std::int64_t stride = s[0], taps = (K + stride - 1) / stride, blocks = Lo - 1 + taps;
    const std::int64_t padded = blocks * stride;  // samples the blocks hold, from -pads[0]
    if (padded - p[0] < 1) return false;
    std::string src = n.inputs[0];
    if (p[0] != 0 || padded != p[0] + L) {  // pad the front, pad or crop the end
      const std::string pad = value(n.name + "_blocks_padded", {N, C, padded});
      out.push_back(node("Pad", n, "_blocks_pad", {src, ints_constant(n.name + "_blocks_pads", {0, 0, p[0], 0, 0, padded - p[0] - L})},
                         {pad}));
      src = pad;
    }
    const std::string split = value(n.name + "_blocks", {N, C, blocks, stride});
    out.push_back(node("Reshape", n, "_blocks", {src, ints_constant(n.name + "_blocks_shape", {N, C, blocks, stride})}, {split}));
    const std::string turned = value(n.name + "_blocks_t", {N, C, stride, blocks});
    Node t = node("Transpose", n, "_blocks_t", {split}, {turned});
    t.set_ints("perm", {0, 1, 3, 2});
    out.push_back(t);
    const std::string deep = batch_as_rows(n, "_blocks_deep", turned, {N, C * stride, 1, blocks}, out);
    // Channel c*s + j of block b is sample b*s + j of channel c.
    std::vector<float> wb(static_cast<std::size_t>(O * C * stride * taps), 0.0f);
    for (std::int64_t o = 0; o < O; ++o)
      for (std::int64_t c = 0; c < C; ++c)
        for (std::int64_t k = 0; k < K; ++k)
          wb[static_cast<std::size_t>(((o * C * stride) + c * stride + k % stride) * taps + k / stride)] =
              w.floats[static_cast<std::size_t>((o * C + c) * K + k)];
    const std::string wn = g_.unique_name(n.name + "_blocks_weight");
    g_.add_constant(wn, {O, C * stride, 1, taps}, std::move(wb));
    const std::string y4 = value(n.name + "_blocks_out", {1, O, N, Lo});
    std::vector<std::string> cin = {deep, wn};
    cin.insert(cin.end(), bias.begin(), bias.end());
    Node conv = node("Conv", n, "_blocks_conv", cin, {y4});
    conv.set_ints("kernel_shape", {1, taps});
    out.push_back(conv);
    rows_as_batch(n, "_blocks_out", y4, {N, O, Lo}, out);
    ++conv1d_;
    ++blocked_;
    return true;
  }

  // Pad in mode reflect or edge: per padded axis, one-wide Slices of the borders (mirrored, or the
  // edge repeated) concatenated around the data: copies the DMA does, where the pad instruction
  // only fills a constant. Up to 64 samples a side; on the last axis up to 1024, a side past 64
  // as one Slice times a constant 0/1 matrix.
  bool mirrored_pad(const Node& n, std::vector<Node>& out) {
    const std::string mode = n.get_string("mode", "constant");
    if (mode != "reflect" && mode != "edge") return false;
    std::vector<std::int64_t> pads;
    if (n.inputs.empty() || !parameter_ints(g_, n, "pads", pads)) return false;
    for (std::size_t i = 2; i < n.inputs.size(); ++i)
      if (!n.inputs[i].empty() && !g_.is_constant(n.inputs[i])) return false;
    const Tensor& x = g_.tensor(n.inputs[0]);
    const std::size_t rank = x.shape.size();
    if (!x.shape_known || pads.size() != 2 * rank) return false;
    // Negative pads crop (Kaldi's pre-emphasis: one edge sample in front, the last one dropped):
    // a Slice first, then the padding of what is left, which is the same in either order.
    std::vector<std::int64_t> starts, ends, axes, shape = x.shape;
    for (std::size_t a = 0; a < rank; ++a) {
      const std::int64_t crop_before = std::max<std::int64_t>(0, -pads[a]), crop_after = std::max<std::int64_t>(0, -pads[a + rank]);
      if (!crop_before && !crop_after) continue;
      if (crop_before + crop_after >= shape[a]) return false;
      starts.push_back(crop_before);
      ends.push_back(shape[a] - crop_after);
      axes.push_back(static_cast<std::int64_t>(a));
      shape[a] -= crop_before + crop_after;
      pads[a] = std::max<std::int64_t>(0, pads[a]);
      pads[a + rank] = std::max<std::int64_t>(0, pads[a + rank]);
    }
    for (std::size_t a = 0; a < rank; ++a) {
      const std::int64_t before = pads[a], after = pads[a + rank], extent = shape[a];
      const std::int64_t most = a + 1 == rank ? kMaxMirroredBlock : kMaxMirroredSlices;
      if (before > most || after > most) return false;
      if (mode == "reflect" && (before > extent - 1 || after > extent - 1)) return false;
    }
    std::string cur = n.inputs[0];
    if (!axes.empty()) {
      cur = value(n.name + "_cropped", shape);
      Node crop = node("Slice", n, "_crop", {n.inputs[0]}, {cur});
      crop.set_ints("starts", starts);
      crop.set_ints("ends", ends);
      crop.set_ints("axes", axes);
      out.push_back(crop);
    }
    std::vector<std::size_t> padded;
    for (std::size_t a = 0; a < rank; ++a)
      if (pads[a] || pads[a + rank]) padded.push_back(a);
    for (std::size_t k = 0; k < padded.size(); ++k) {
      const std::size_t a = padded[k];
      const std::int64_t before = pads[a], after = pads[a + rank], extent = shape[a];
      const std::string axis = std::to_string(a);
      auto piece = [&](std::int64_t index, const std::string& tag) {
        std::vector<std::int64_t> one = shape;
        one[a] = 1;
        const std::string v = value(n.name + "_" + tag, one);
        Node slice = node("Slice", n, "_" + tag, {cur}, {v});
        slice.set_ints("starts", {index});
        slice.set_ints("ends", {index + 1});
        slice.set_ints("axes", {static_cast<std::int64_t>(a)});
        out.push_back(slice);
        return v;
      };
      // More than kMaxMirroredSlices on the last axis: the border as one Slice times a constant
      // 0/1 matrix, which reverses it (reflect) or repeats its edge (edge): a MatMul copies exactly.
      auto block = [&](std::int64_t count, bool front, const std::string& tag) {
        const std::int64_t len = mode == "reflect" ? count : 1;
        const std::int64_t start = front ? (mode == "reflect" ? 1 : 0) : (mode == "reflect" ? extent - 1 - count : extent - 1);
        std::vector<std::int64_t> part = shape;
        part[a] = len;
        const std::string border = value(n.name + "_" + tag + "_border", part);
        Node slice = node("Slice", n, "_" + tag + "_border", {cur}, {border});
        slice.set_ints("starts", {start});
        slice.set_ints("ends", {start + len});
        slice.set_ints("axes", {static_cast<std::int64_t>(a)});
        out.push_back(slice);
        std::vector<float> m(static_cast<std::size_t>(len * count), 0.0f);
        for (std::int64_t i = 0; i < len; ++i)
          for (std::int64_t j = 0; j < count; ++j)
            if (mode == "edge" || i + j == count - 1) m[static_cast<std::size_t>(i * count + j)] = 1.0f;
        const std::string mn = g_.unique_name(n.name + "_" + tag + "_order");
        g_.add_constant(mn, {len, count}, std::move(m));
        part[a] = count;
        const std::string v = value(n.name + "_" + tag, part);
        out.push_back(node("MatMul", n, "_" + tag, {border, mn}, {v}));
        return v;
      };
      std::vector<std::string> parts;
      if (before > kMaxMirroredSlices)
        parts.push_back(block(before, true, "axis" + axis + "_before"));
      else
        for (std::int64_t i = before; i >= 1; --i)
          parts.push_back(piece(mode == "reflect" ? i : 0, "axis" + axis + "_before" + std::to_string(i)));
      parts.push_back(cur);
      if (after > kMaxMirroredSlices)
        parts.push_back(block(after, false, "axis" + axis + "_after"));
      else
        for (std::int64_t i = 1; i <= after; ++i)
          parts.push_back(piece(mode == "reflect" ? extent - 1 - i : extent - 1, "axis" + axis + "_after" + std::to_string(i)));
      shape[a] = extent + before + after;
      const bool last = k + 1 == padded.size();
      const std::string joined = last ? n.outputs[0] : value(n.name + "_axis" + axis, shape);
      Node concat = node("Concat", n, "_axis" + axis, parts, {joined});
      concat.set_int("axis", static_cast<std::int64_t>(a));
      out.push_back(concat);
      cur = joined;
    }
    if (padded.empty()) out.push_back(node("Identity", n, "_nothing", {cur}, n.outputs));
    ++mirrored_;
    return true;
  }

  bool linear_upsample(const Node& n, std::vector<Node>& out) {
    if (n.get_string("mode", "nearest") != "linear" || n.outputs.empty()) return false;
    const std::string coords = n.get_string("coordinate_transformation_mode", "half_pixel");
    const bool half = coords == "half_pixel" || coords == "pytorch_half_pixel";
    if (!half && coords != "asymmetric") return false;
    if (n.inputs.empty() || !g_.has_tensor(n.outputs[0])) return false;
    const Tensor& x = g_.tensor(n.inputs[0]);
    const Tensor& y = g_.tensor(n.outputs[0]);
    if (!x.shape_known || !y.shape_known || x.shape.size() != 4 || y.shape.size() != 4) return false;
    const std::int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
    if (y.shape[0] != N || y.shape[1] != C || H == 0 || W == 0 || y.shape[2] % H || y.shape[3] % W) return false;
    const std::int64_t s = y.shape[2] / H;
    if (s < 2 || s > 8 || y.shape[3] / W != s) return false;
    // The scales input, when given, must say the same factor (sizes win otherwise).
    if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
      if (!g_.is_constant(n.inputs[2])) return false;
      const auto& sc = g_.tensor(n.inputs[2]).floats;
      if (!sc.empty() && (sc.size() != 4 || sc[2] != static_cast<float>(s) || sc[3] != static_cast<float>(s))) return false;
    }
    // Output o = m*s + i reads source m + f, f = (i + 0.5)/s - 0.5 (half pixel) or i/s: taps
    // m-1, m, m+1 of the edge-padded input.
    auto taps = [&](std::int64_t i) {
      const double f = half ? (static_cast<double>(i) + 0.5) / static_cast<double>(s) - 0.5 : static_cast<double>(i) / static_cast<double>(s);
      std::array<float, 3> w{0.0f, 0.0f, 0.0f};
      if (f < 0) {
        w[0] = static_cast<float>(-f);
        w[1] = static_cast<float>(1.0 + f);
      } else {
        w[1] = static_cast<float>(1.0 - f);
        w[2] = static_cast<float>(f);
      }
      return w;
    };
    const std::string padded = value(n.name + "_edge", {N, C, H + 2, W + 2});
    Node pad = node("Pad", n, "_edge", {n.inputs[0], ints_constant(n.name + "_edge_pads", {0, 0, 1, 1, 0, 0, 1, 1})}, {padded});
    pad.set_string("mode", "edge");
    if (!mirrored_pad(pad, out)) return false;
    // One depthwise Conv per phase, concatenated phase-major: DepthToSpace DCR then moves runs of
    // C channels (CRD, from one Conv of multiplier s*s, would move single elements).
    std::vector<std::string> phases;
    for (std::int64_t i = 0; i < s; ++i)
      for (std::int64_t j = 0; j < s; ++j) {
        const auto a = taps(i), b = taps(j);
        std::vector<float> weights(static_cast<std::size_t>(C * 9));
        for (std::int64_t c = 0; c < C; ++c)
          for (int u = 0; u < 3; ++u)
            for (int v = 0; v < 3; ++v)
              weights[static_cast<std::size_t>((c * 3 + u) * 3 + v)] = a[static_cast<std::size_t>(u)] * b[static_cast<std::size_t>(v)];
        const std::string tag = "_phase" + std::to_string(i) + std::to_string(j);
        const std::string wn = g_.unique_name(n.name + tag + "_weights");
        g_.add_constant(wn, {C, 1, 3, 3}, std::move(weights));
        const std::string phase = value(n.name + tag, {N, C, H, W});
        Node conv = node("Conv", n, tag, {padded, wn}, {phase});
        conv.set_ints("kernel_shape", {3, 3});
        conv.set_int("group", C);
        out.push_back(conv);
        phases.push_back(phase);
      }
    const std::string joined = value(n.name + "_phases", {N, C * s * s, H, W});
    Node concat = node("Concat", n, "_phases", phases, {joined});
    concat.set_int("axis", 1);
    out.push_back(concat);
    Node d2s = node("DepthToSpace", n, "_interleave", {joined}, {n.outputs[0]});
    d2s.set_int("blocksize", s);
    d2s.set_string("mode", "DCR");
    out.push_back(d2s);
    ++upsampled_;
    return true;
  }

  // Factors of n, each at most `most`, largest first; empty when a prime factor exceeds it.
  static std::vector<std::int64_t> factors_up_to(std::int64_t n, std::int64_t most) {
    std::vector<std::int64_t> f;
    while (n > 1) {
      std::int64_t d = std::min(n, most);
      while (d > 1 && n % d) --d;
      if (d <= 1) return {};
      f.push_back(d);
      n /= d;
    }
    return f;
  }

  bool chained_pool(const Node& n, std::vector<Node>& out) {
    const auto k = n.get_ints("kernel_shape");
    const auto st = ints_or(n, "strides", {1, 1});
    const auto p = ints_or(n, "pads", {0, 0, 0, 0});
    if (k.size() != 2 || st != k || p != std::vector<std::int64_t>{0, 0, 0, 0} || n.get_int("ceil_mode", 0) ||
        n.get_string("auto_pad", "NOTSET") != "NOTSET" || ints_or(n, "dilations", {1, 1}) != std::vector<std::int64_t>{1, 1} ||
        (n.outputs.size() > 1 && !n.outputs[1].empty()))
      return false;
    if (k[0] <= kPoolWindowMax && k[1] <= kPoolWindowMax) return false;
    const Tensor& x = g_.tensor(n.inputs[0]);
    if (!x.shape_known || x.shape.size() != 4 || x.shape[2] % k[0] || x.shape[3] % k[1]) return false;
    auto fh = factors_up_to(k[0], kPoolWindowMax), fw = factors_up_to(k[1], kPoolWindowMax);
    if ((k[0] > 1 && fh.empty()) || (k[1] > 1 && fw.empty())) return false;
    const std::size_t steps = std::max(fh.size(), fw.size());
    fh.resize(steps, 1);
    fw.resize(steps, 1);
    std::string cur = n.inputs[0];
    std::vector<std::int64_t> shape = x.shape;
    for (std::size_t i = 0; i < steps; ++i) {
      shape[2] /= fh[i];
      shape[3] /= fw[i];
      const bool last = i + 1 == steps;
      const std::string v = last ? n.outputs[0] : value(n.name + "_stage" + std::to_string(i), shape);
      Node stage = node(n.op_type, n, "_stage" + std::to_string(i), {cur}, {v});
      stage.set_ints("kernel_shape", {fh[i], fw[i]});
      stage.set_ints("strides", {fh[i], fw[i]});
      out.push_back(stage);
      cur = v;
    }
    ++chained_;
    return true;
  }

  Graph& g_;
  int subpixel_ = 0, zero_insert_ = 0, patchify_ = 0, conv1d_ = 0, blocked_ = 0, mirrored_ = 0, upsampled_ = 0, chained_ = 0,
      run_time_clips_ = 0, wide_kernels_ = 0;
};

}  // namespace

std::string lower_for_npu(Graph& g) { return Lowering(g).run(); }

}  // namespace npu::compiler
