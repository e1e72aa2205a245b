#include "compiler/backend/conv_layer.h"

#include <algorithm>

#include "compiler/quant/int8_layer_params.h"
#include "compiler/quant/weight_bits.h"
#include "isa/field_limits.h"

namespace npu::compiler {

ConvLayer describe_conv_layer(CodegenContext& ctx, const Node& n) {
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
  } else if (!xt.shape.empty() && !g.tensor(L.y).shape.empty()) {
    // A gemm is (all outer dims) x K by its logical shapes: the layout pass keeps K innermost, but
    // the image view of [1, 1, M, K] stored as NHWC is an M x K image of one channel.
    const std::vector<std::int64_t>& ys = g.tensor(L.y).shape;
    s.c = xt.shape.back();
    s.oc = ys.back();
    s.h = s.c > 0 ? x.elements() / s.c : 0;
    s.oh = s.oc > 0 ? y.elements() / s.oc : 0;
    s.w = s.ow = 1;
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
  if (L.gemm && ctx.weight_only.quantized() && (!ctx.int8() || weight_bits(n) == 4)) s.weights = ctx.weight_only;
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
  // A Concat part stored in place (codegen.cpp): its pixels lie the whole output's apart.
  if (!L.gemm && y.strides.size() == 4 && y.strides[3] != s.oc) s.out_pixel = y.strides[3];
  return L;
}

std::string conv_plan_key(const ConvLayer& L) {
  const ConvShape& s = L.s;
  std::string key = s.name + (s.input_resident ? "/ri" : "/di") + (s.residual_resident ? "r" : "d") +
                    (s.output_resident ? "r" : "d") + (s.output_stored ? "s" : "");
  for (const auto& p : s.parts) key += p.resident ? 'R' : 'D';
  return key;
}

std::pair<std::int64_t, std::int64_t> conv_input_rows(const ConvShape& s, std::int64_t r0, std::int64_t r1) {
  const std::int64_t first = r0 * s.sh - s.pad_top;
  const std::int64_t last = (r1 - 1) * s.sh - s.pad_top + s.dh * (s.kh - 1);
  return {std::max<std::int64_t>(0, first), std::min(s.h, last + 1)};
}

ConvPart conv_part(const ConvLayer& L, const std::optional<EnginePart>& part) {
  ConvPart p;
  p.s = L.s;
  if (!part) return p;
  ConvShape& s = p.s;
  const ConvShape& whole = L.s;
  if (part->dim == LoopDim::Rows) {
    const auto [i0, i1] = conv_input_rows(whole, part->begin, part->end);
    if (i1 <= i0) throw CompileError("layer '" + whole.name + "': internal: an engine's rows lie entirely in padding");
    p.row0 = part->begin;
    s.oh = part->size();
    s.h = i1 - i0;
    s.pad_top = i0 - (part->begin * whole.sh - whole.pad_top);
    p.key = "/rows" + std::to_string(part->begin) + "-" + std::to_string(part->end);
  } else {
    const std::int64_t icg = whole.c / whole.groups, ocg = whole.oc / whole.groups;
    p.unit0 = part->begin;
    if (whole.groups == 1) {
      s.oc = part->size();
    } else {
      s.groups = part->size();
      s.c = part->size() * icg;
      s.oc = part->size() * ocg;
    }
    p.key = "/units" + std::to_string(part->begin) + "-" + std::to_string(part->end);
  }
  return p;
}

void place_part_plan(TilePlan& plan, const ConvPart& part, const ConvShape& whole) {
  const std::int64_t ocg = whole.groups == 1 ? 1 : whole.oc / whole.groups;
  for (ConvTile& t : plan.tiles) t.row0 += part.row0;
  for (TileChunk& c : plan.chunks) {
    c.first_unit += part.unit0;
    c.first_oc += part.unit0 * ocg;
  }
}

}  // namespace npu::compiler
