// The boxes of each data-movement op, from its logical semantics and the element strides of its
// operands' layouts (so any layout works): see codegen_move.h.
#include <algorithm>
#include <limits>

#include "compiler/backend/codegen_move.h"
#include "compiler/backend/concat_on_chip.h"
#include "compiler/backend/element_moves.h"
#include "compiler/backend/isa_limits.h"
#include "compiler/backend/move_params.h"
#include "compiler/backend/op_registry.h"
#include "compiler/core/npu_ops.h"
#include "compiler/quant/quant_math.h"
#include "isa/fp16.h"

namespace npu::compiler {
namespace {

using namespace isa_limits;

// A Slice read backwards is one DMA box per position of its reversed axes: enough for reflect
// borders and short reversed sequences; past it, a clear fallback rather than a huge program.
constexpr std::int64_t kMaxBackwardsSliceBoxes = 4096;

const DdrTensor& operand(CodegenContext& ctx, const std::string& name, const QuantParams& q) {
  return ctx.graph.is_constant(name) ? ctx.constant(name, q) : ctx.tensor(name);
}

std::vector<std::uint8_t> element_bytes(const CodegenContext& ctx, float v, const QuantParams& q) {
  if (ctx.int8()) return {static_cast<std::uint8_t>(quantize_value(v, q.scale, q.zero_point))};
  std::uint16_t h = isa::float_to_half_saturating(v);
  return {static_cast<std::uint8_t>(h & 0xff), static_cast<std::uint8_t>(h >> 8)};
}

// Box of output region [start, start + size) (per logical axis) filled with the fill value.
MoveBox fill_box(const DdrTensor& y, const std::vector<std::int64_t>& start, const std::vector<std::int64_t>& size) {
  MoveBox b;
  b.fill = true;
  std::int64_t off = 0;
  for (std::size_t a = 0; a < size.size(); ++a) {
    off += start[a] * y.strides[a];
    b.dims.push_back({size[a], 0, y.strides[a]});
  }
  b.dst_addr = y.addr + static_cast<std::uint64_t>(off * y.elem);
  return b;
}

// Data movement: strided DMA copies (codegen_move.cpp); any layout, any axis.
std::string move_rejection(const Graph& g, const Node& n, bool int8) {
  const std::string& op = n.op_type;
  const auto& xs = g.tensor(n.inputs[0]).shape;
  try {
    if (op == "Slice") {
      SliceParams p = slice_params(g, n);
      std::int64_t backwards_boxes = 1;
      for (std::size_t a = 0; a < xs.size(); ++a)
        if (p.step[a] < 0) backwards_boxes *= p.size[a];
      if (backwards_boxes > kMaxBackwardsSliceBoxes)
        return "negative slice step over " + std::to_string(backwards_boxes) + " positions (one DMA box each; at most " +
               std::to_string(kMaxBackwardsSliceBoxes) + ")";
      if (p.size != g.tensor(n.outputs[0]).shape) return "slice sizes disagree with the inferred output shape";
    } else if (is_element_move(n)) {
      return element_move_rejection(g, n);
    } else if (op == "Gather") {
      if (is_row_gather(g, n)) return row_gather_rejection(g, n);
      gather_indices(g, n);
    } else if (op == "Pad") {
      PadParams p = pad_params(g, n);
      if (p.mode != "constant") return "pad mode '" + p.mode + "' (only constant padding is a fill plus a copy)";
    } else if (op == "DepthToSpace" || op == "SpaceToDepth") {
      if (xs.size() != 4) return "not 4-D";
    } else if (op == "Tile") {
      const auto& ys = g.tensor(n.outputs[0]).shape;
      for (std::size_t a = 0; a < xs.size(); ++a)
        if (xs[a] == 0 || ys[a] % xs[a]) return "tile output is not a whole multiple";
    } else if (op == "Expand") {
      const auto& ys = g.tensor(n.outputs[0]).shape;
      if (ys.size() < xs.size()) return "expand to a lower rank";
    }
  } catch (const CompileError& e) {
    return rejection_phrase(e.what());
  }
  return "";
}

LayerCode generate_move(CodegenContext& ctx, const Node& n) {
  const Graph& g = ctx.graph;
  const std::string& op = n.op_type;
  // Only a channel Concat keeps values on chip (move_on_chip), and a row gather its output; any
  // other move reads its inputs from DDR, where the scheduler then stores them too.
  if (is_row_gather(g, n)) return generate_row_gather(ctx, n);
  if (move_on_chip(g, n, n.outputs[0]) && moves_values_on_chip(ctx, n)) return generate_concat_on_chip(ctx, n);
  const DdrTensor& y = ctx.tensor(n.outputs[0]);
  std::vector<MoveBox> boxes;
  std::vector<std::uint8_t> fill;

  if (op == "Relayout" || op == "Identity") {
    boxes.push_back(whole_tensor_box(ctx.tensor(n.inputs[0]), y));
  } else if (op == "Concat") {
    const std::int64_t axis = concat_axis(g, n);
    std::int64_t offset = 0;
    const auto in_place = ctx.concat_in_place.find(n.outputs[0]);
    for (const auto& in : n.inputs) {
      const DdrTensor& x = operand(ctx, in, y.quant);
      if (in_place == ctx.concat_in_place.end() || in_place->second != in)  // else the host wrote it there
        boxes.push_back(whole_tensor_box(x, y, 0, offset * y.strides[static_cast<std::size_t>(axis)]));
      offset += x.shape[static_cast<std::size_t>(axis)];
    }
  } else if (op == "Split") {
    const DdrTensor& x = ctx.tensor(n.inputs[0]);
    const std::size_t axis = static_cast<std::size_t>(split_axis(g, n));
    std::int64_t offset = 0;
    for (const auto& o : n.outputs) {
      if (o.empty()) continue;
      const DdrTensor& part = ctx.tensor(o);
      MoveBox b;
      b.src_addr = x.addr + static_cast<std::uint64_t>(offset * x.strides[axis] * x.elem);
      b.dst_addr = part.addr;
      for (std::size_t a = 0; a < part.shape.size(); ++a) b.dims.push_back({part.shape[a], x.strides[a], part.strides[a]});
      boxes.push_back(b);
      offset += part.shape[axis];
    }
  } else if (op == "Slice") {
    const DdrTensor& x = ctx.tensor(n.inputs[0]);
    SliceParams s = slice_params(g, n);
    // The DMA's strides run forwards: an axis read backwards (reflect padding, time reversal)
    // goes one position per box, the other axes whole in each.
    std::int64_t copies = 1;
    for (std::size_t a = 0; a < y.shape.size(); ++a)
      if (s.step[a] < 0) copies *= y.shape[a];
    for (std::int64_t i = 0; i < copies; ++i) {
      MoveBox b;
      std::int64_t off = 0, dst_off = 0, rest = i;
      for (std::size_t a = y.shape.size(); a-- > 0;) {
        if (s.step[a] < 0) {
          const std::int64_t at = rest % y.shape[a];
          rest /= y.shape[a];
          off += (s.start[a] + at * s.step[a]) * x.strides[a];
          dst_off += at * y.strides[a];
          b.dims.push_back({1, x.strides[a], y.strides[a]});
        } else {
          off += s.start[a] * x.strides[a];
          b.dims.push_back({y.shape[a], s.step[a] * x.strides[a], y.strides[a]});
        }
      }
      std::reverse(b.dims.begin(), b.dims.end());
      b.src_addr = x.addr + static_cast<std::uint64_t>(off * x.elem);
      b.dst_addr = y.addr + static_cast<std::uint64_t>(dst_off * y.elem);
      boxes.push_back(b);
    }
  } else if (op == "Gather") {
    const DdrTensor& x = operand(ctx, n.inputs[0], y.quant);
    const std::size_t axis = static_cast<std::size_t>(gather_axis(g, n));
    const std::vector<std::int64_t> idx = gather_indices(g, n);
    const std::size_t q = g.tensor(n.inputs[1]).shape.size();
    // Output axes: x[:axis], indices' axes, x[axis+1:]. One box per run of consecutive indices
    // along the innermost index axis.
    const std::int64_t last = q ? g.tensor(n.inputs[1]).shape.back() : 1;
    for (std::size_t p = 0; p < idx.size();) {
      std::size_t e = p + 1;
      while (e < idx.size() && static_cast<std::int64_t>(e % static_cast<std::size_t>(last)) != 0 && idx[e] == idx[e - 1] + 1) ++e;
      MoveBox b;
      std::int64_t dst_off = 0, rem = static_cast<std::int64_t>(p);
      for (std::size_t k = q; k-- > 0;) {
        const std::int64_t dim = g.tensor(n.inputs[1]).shape[k];
        dst_off += (rem % dim) * y.strides[axis + k];
        rem /= dim;
      }
      for (std::size_t a = 0; a < x.shape.size(); ++a) {
        if (a == axis) {
          b.dims.push_back({static_cast<std::int64_t>(e - p), x.strides[a], q ? y.strides[axis + q - 1] : 0});
        } else {
          const std::size_t ya = a < axis ? a : a + q - 1;
          b.dims.push_back({x.shape[a], x.strides[a], y.strides[ya]});
        }
      }
      b.src_addr = x.addr + static_cast<std::uint64_t>(idx[p] * x.strides[axis] * x.elem);
      b.dst_addr = y.addr + static_cast<std::uint64_t>(dst_off * y.elem);
      boxes.push_back(b);
      p = e;
    }
  } else if (op == "Pad") {
    const DdrTensor& x = ctx.tensor(n.inputs[0]);
    PadParams p = pad_params(g, n);
    fill = element_bytes(ctx, p.value, y.quant);
    const std::size_t r = x.shape.size();
    // The input's kept part (negative pads crop it) into the interior.
    MoveBox b;
    std::int64_t src_off = 0, dst_off = 0;
    std::vector<std::int64_t> lo(r), hi(r);
    for (std::size_t a = 0; a < r; ++a) {
      const std::int64_t crop_lo = std::max<std::int64_t>(0, -p.begin[a]), crop_hi = std::max<std::int64_t>(0, -p.end[a]);
      lo[a] = std::max<std::int64_t>(0, p.begin[a]);
      hi[a] = lo[a] + x.shape[a] - crop_lo - crop_hi;
      src_off += crop_lo * x.strides[a];
      dst_off += lo[a] * y.strides[a];
      b.dims.push_back({hi[a] - lo[a], x.strides[a], y.strides[a]});
    }
    b.src_addr = x.addr + static_cast<std::uint64_t>(src_off * x.elem);
    b.dst_addr = y.addr + static_cast<std::uint64_t>(dst_off * y.elem);
    boxes.push_back(b);
    // The border as slabs: along axis a, [0, lo) and [hi, end) with axes before a limited to
    // the interior and axes after a whole.
    for (std::size_t a = 0; a < r; ++a) {
      std::vector<std::int64_t> start(r, 0), size(r);
      for (std::size_t k = 0; k < r; ++k) {
        start[k] = k < a ? lo[k] : 0;
        size[k] = k < a ? hi[k] - lo[k] : y.shape[k];
      }
      if (lo[a] > 0) {
        start[a] = 0;
        size[a] = lo[a];
        boxes.push_back(fill_box(y, start, size));
      }
      if (hi[a] < y.shape[a]) {
        start[a] = hi[a];
        size[a] = y.shape[a] - hi[a];
        boxes.push_back(fill_box(y, start, size));
      }
    }
  } else if (op == "Expand" || op == "Tile") {
    const DdrTensor& x = operand(ctx, n.inputs[0], y.quant);
    const std::size_t extra = y.shape.size() - x.shape.size();
    MoveBox b;
    b.src_addr = x.addr;
    b.dst_addr = y.addr;
    for (std::size_t a = 0; a < y.shape.size(); ++a) {
      if (a < extra) {
        b.dims.push_back({y.shape[a], 0, y.strides[a]});
        continue;
      }
      const std::size_t xa = a - extra;
      if (op == "Expand") {
        b.dims.push_back({y.shape[a], x.shape[xa] == 1 ? 0 : x.strides[xa], y.strides[a]});
      } else {  // output index = r * in_dim + i
        const std::int64_t reps = y.shape[a] / x.shape[xa];
        b.dims.push_back({reps, 0, x.shape[xa] * y.strides[a]});
        b.dims.push_back({x.shape[xa], x.strides[xa], y.strides[a]});
      }
    }
    boxes.push_back(b);
  } else if (op == "DepthToSpace" || op == "SpaceToDepth") {
    // DepthToSpace: y[n, c, h*b+i, w*b+j] = x[n, src_c, h, w] with src_c = (i*b+j)*C' + c (DCR)
    // or c*b*b + i*b + j (CRD); SpaceToDepth is the inverse of DCR.
    const DdrTensor& x = ctx.tensor(n.inputs[0]);
    const std::int64_t bs = n.get_int("blocksize", 1);
    const bool d2s = op == "DepthToSpace";
    const bool crd = d2s && n.get_string("mode", "DCR") == "CRD";
    const DdrTensor& deep = d2s ? x : y;   // [N, C'bb, H, W]
    const DdrTensor& wide = d2s ? y : x;   // [N, C', Hb, Wb]
    const std::int64_t cp = wide.shape[1];
    auto dim = [&](std::int64_t size, std::int64_t deep_stride, std::int64_t wide_stride) {
      return d2s ? MoveDim{size, deep_stride, wide_stride} : MoveDim{size, wide_stride, deep_stride};
    };
    MoveBox b;
    b.src_addr = x.addr;
    b.dst_addr = y.addr;
    b.dims.push_back(dim(deep.shape[0], deep.strides[0], wide.strides[0]));
    b.dims.push_back(dim(cp, (crd ? bs * bs : 1) * deep.strides[1], wide.strides[1]));
    b.dims.push_back(dim(deep.shape[2], deep.strides[2], bs * wide.strides[2]));
    b.dims.push_back(dim(bs, (crd ? bs : bs * cp) * deep.strides[1], wide.strides[2]));
    b.dims.push_back(dim(deep.shape[3], deep.strides[3], bs * wide.strides[3]));
    b.dims.push_back(dim(bs, (crd ? 1 : cp) * deep.strides[1], wide.strides[3]));
    boxes.push_back(b);
  } else if (is_element_move(n)) {
    boxes = element_move_boxes(ctx, n, y.quant);
  } else {
    throw CompileError(g.source + ": layer '" + n.name + "' (" + op + ") has no data-movement lowering");
  }
  return generate_moves(ctx, n, boxes, fill);
}

bool is_move(const Node& n) { return move_ops().count(n.op_type) != 0; }

}  // namespace

const NpuOpFamily& move_family() {
  static const NpuOpFamily family{"move", is_move,
                                  move_rejection, generate_move, nullptr,
                                  /*region_aware=*/true, /*reads_resident=*/true, /*writes_resident=*/true,
                                  /*splitter=*/nullptr, move_on_chip};
  return family;
}

}  // namespace npu::compiler
