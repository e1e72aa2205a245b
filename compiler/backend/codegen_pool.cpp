// MaxPool / AveragePool on the vector unit: bands of output rows (and chunks of channels when a
// row with all of them does not fit), read and written in place where the step keeps the
// values resident.
#include <limits>

#include "compiler/backend/codegen_context.h"
#include "compiler/backend/instruction_stream.h"
#include "compiler/backend/isa_limits.h"
#include "compiler/backend/op_registry.h"
#include "compiler/quant/int8_layer_params.h"
#include "compiler/quant/quant_math.h"
#include "compiler/reference/float_evaluator.h"
#include "compiler/reference/node_geometry.h"
#include "isa/field_limits.h"

namespace npu::compiler {
namespace {

using namespace isa_limits;

// Pooling bands: about a sixteenth of the output rows (map_pool).
constexpr std::int64_t kPoolBands = 16;

// A pooling layer's tiles: chunks of channels (all of them unless one output row with all
// channels does not fit), bands of output rows, and its double-buffered input and output
// slots (none for a value the step keeps resident: it is read or written in place).
LayerMapping map_pool(const CodegenContext& ctx, const Node& n, const DdrTensor& x, const DdrTensor& y,
                      const WindowGeometry& geo, std::int64_t es, bool x_home, bool y_home, std::int64_t out_rows) {
  auto in_rows = [&](std::int64_t rows) { return std::min(x.h, (rows - 1) * geo.stride_h + geo.kernel_h); };
  const std::uint64_t row_bytes = static_cast<std::uint64_t>(x.w * x.c * es);
  const std::uint64_t out_row = static_cast<std::uint64_t>(y.w * y.c * es);
  // SRAM for `rows` output rows of `cc` channels, double-buffered.
  auto need = [&](std::int64_t rows, std::int64_t cc) {
    return 2 * ((x_home ? 0 : ctx.align(static_cast<std::uint64_t>(in_rows(rows) * x.w * cc * es))) +
                (y_home ? 0 : ctx.align(static_cast<std::uint64_t>(rows * y.w * cc * es))));
  };
  // Pooling is per channel, so when one output row with all channels does not fit (a wide
  // average pool over 7x7x2048, say), the channels split into chunks: each tile loads its
  // chunk's channels with a strided DMA, pools them and stores them strided. Every output
  // value is computed by the same single pool window as before, so results are unchanged.
  std::int64_t cc = x.c;
  if (need(1, cc) > ctx.sram_bytes && !x_home && !y_home) {
    const std::int64_t step = x.c > 64 ? 64 : 1;  // whole 64-channel groups keep DDR runs aligned
    std::int64_t fit = 0;
    for (std::int64_t c = x.c / step * step; c >= step && fit == 0; c -= step)
      if (need(1, c) <= ctx.sram_bytes) fit = c;
    for (std::int64_t c = std::min<std::int64_t>(x.c, step - 1); c >= 1 && fit == 0; --c)
      if (need(1, c) <= ctx.sram_bytes) fit = c;
    if (fit == 0) throw_tile_too_big(ctx, n, need(1, 1));
    std::int64_t chunks = (x.c + fit - 1) / fit;  // balance the chunks
    cc = std::min(fit, ((x.c + chunks - 1) / chunks + step - 1) / step * step);
  }
  if (need(1, cc) > ctx.sram_bytes || in_rows(1) > isa::field_max(Opcode::Pool, Field::in_h)) throw_tile_too_big(ctx, n, need(1, cc));
  // Row bands of a resident tensor must start on aligned addresses.
  auto aligned = [&](std::int64_t rows) {
    if (rows >= out_rows) return true;
    if (y_home && static_cast<std::uint64_t>(rows) * out_row % ctx.alignment) return false;
    if (x_home)
      for (std::int64_t r0 = 0; r0 < out_rows; r0 += rows)
        if (static_cast<std::uint64_t>(std::max<std::int64_t>(0, r0 * geo.stride_h - geo.pad_top)) * row_bytes % ctx.alignment)
          return false;
    return true;
  };
  std::int64_t rows = out_rows;
  while (rows > 1 && (need(rows, cc) > ctx.sram_bytes || in_rows(rows) > isa::field_max(Opcode::Pool, Field::in_h) || !aligned(rows))) rows = (rows + 1) / 2;
  if (!aligned(rows))
    throw CompileError(ctx.graph.source + ": layer '" + n.name + "': cannot tile its resident values on aligned rows");
  // Bands of about a sixteenth of the output even when more fits: each band waits only for the
  // producer's tiles it reads, so the pooling runs under the producer's compute instead of
  // after it, and the next layer's first tile waits only for the first bands (a band costs
  // one more vector latency, a few cycles). Reading the producer back from DDR, a band's load
  // also holds the in-order load queue for less time: on default.yaml the stem pool's 98 KB
  // band loads delayed the stem conv's next input tile (ResNet-18 2,401,959 -> 2,390,767
  // cycles with sixteenths against eighths).
  for (std::int64_t band = (out_rows + kPoolBands - 1) / kPoolBands; band < rows; ++band)
    if (aligned(band)) {
      rows = band;
      break;
    }
  LayerMapping map;
  map.unit = TileUnit::Vector;
  map.loops = {{LoopDim::Channels, x.c, cc}, {LoopDim::Rows, out_rows, rows}};
  map.region_base = ctx.sram_base;
  std::uint64_t at = ctx.sram_base;
  for (int i = 0; i < 2; ++i) {
    if (!x_home) map.place(BufferRole::Input, 0, ctx.align(static_cast<std::uint64_t>(in_rows(rows) * x.w * cc * es)), at);
    if (!y_home) map.place(BufferRole::Output, 0, ctx.align(static_cast<std::uint64_t>(rows * y.w * cc * es)), at);
  }
  return map;
}

// MaxPool / AveragePool: the pool instruction's window fields; ceil mode only where the
// overhang is padding the instruction can express.
std::string pool_rejection(const Graph& g, const Node& n, bool int8) {
  const std::string& op = n.op_type;
  const auto& xs = g.tensor(n.inputs[0]).shape;
  if (xs.size() != 4) return "only 2-D pooling maps to the pool instruction";
  if (n.outputs.size() > 1 && !n.outputs[1].empty()) return "MaxPool Indices output has no instruction";
  auto k = n.get_ints("kernel_shape");
  if (k.size() != 2) return "kernel_shape is not 2-D";
  auto geo = window_geometry(n, xs, k[0], k[1]);
  auto why = check_window(geo, kPoolKernelMax, kPoolKernelBits, kPoolStrideMax, kPoolStrideBits, false);
  if (!why.empty()) return why;
  if (geo.ceil_mode) {
    // ceil_mode is floor mode with padding below and right that reaches the last window;
    // an average counting pads would count that overhang too.
    Node floor_node = n;
    floor_node.set_int("ceil_mode", 0);
    auto floor_geo = window_geometry(floor_node, xs, k[0], k[1]);
    const bool grows = floor_geo.out_h != geo.out_h || floor_geo.out_w != geo.out_w;
    if (grows && op == "AveragePool" && n.get_int("count_include_pad", 0))
      return "ceil_mode=1 with count_include_pad=1 (the overhang past the pads would be counted)";
    const std::int64_t bottom = (geo.out_h - 1) * geo.stride_h + geo.kernel_h - xs[2] - geo.pad_top;
    const std::int64_t right = (geo.out_w - 1) * geo.stride_w + geo.kernel_w - xs[3] - geo.pad_left;
    if (std::max(bottom, right) > kPoolPadMax) return too_wide("ceil-mode pad", std::max(bottom, right), kPoolPadMax, kPoolPadBits);
  }
  if (xs[3] > kTileDimMax) return too_wide("input width", xs[3], kTileDimMax, kTileDimBits);
  return "";
}

LayerCode generate_pool(CodegenContext& ctx, const Node& n) {
  const Graph& g = ctx.graph;
  const DdrTensor& x = ctx.tensor(n.inputs[0]);
  const DdrTensor& y = ctx.tensor(n.outputs[0]);
  const std::int64_t es = ctx.elem_bytes();
  const bool is_max = n.op_type == "MaxPool";
  auto k = n.get_ints("kernel_shape");
  WindowGeometry geo = window_geometry(n, g.tensor(n.inputs[0]).shape, k[0], k[1]);
  // ceil_mode: output rows past the input are padding (the tiles' pad_bottom), and the right
  // padding grows until the instruction's floor reaches the last window.
  const std::int64_t pad_right = std::max(geo.pad_right, (geo.out_w - 1) * geo.stride_w + geo.kernel_w - x.w - geo.pad_left);
  // Values the step keeps in the scratchpad are read and written in place (whole rows of all
  // channels); the others go through double-buffered slots.
  const auto x_home = ctx.resident(n.inputs[0]);
  const auto y_home = ctx.resident(n.outputs[0]);
  const bool store = ctx.in_ddr(n.outputs[0]);
  const std::uint64_t row_bytes = static_cast<std::uint64_t>(x.w * x.c * es);
  const std::uint64_t out_row = static_cast<std::uint64_t>(y.w * y.c * es);
  LayerCode out;
  // A multi-engine part (pool_split_extent) is a band of output rows.
  const std::int64_t first_row = ctx.part ? ctx.part->begin : 0, end_row = ctx.part ? ctx.part->end : y.h;
  out.mapping = map_pool(ctx, n, x, y, geo, es, x_home.has_value(), y_home.has_value(), end_row - first_row);
  const LayerMapping& map = out.mapping;
  const std::int64_t cc = map.loop(LoopDim::Channels).tile, rows = map.loop(LoopDim::Rows).tile;
  std::int64_t pad_value = is_max ? -128 : (ctx.int8() ? x.quant.zero_point : 0);
  std::vector<Instruction>& code = out.code;
  std::int64_t t = 0;
  for (std::int64_t c0 = 0; c0 < x.c; c0 += cc) {
    const std::int64_t nc = std::min(cc, x.c - c0);
    for (std::int64_t r0 = first_row; r0 < end_row; r0 += rows, ++t) {
      std::int64_t nr = std::min(rows, end_row - r0);
      std::int64_t start = r0 * geo.stride_h - geo.pad_top;
      std::int64_t end = (r0 + nr - 1) * geo.stride_h - geo.pad_top + geo.kernel_h - 1;
      std::int64_t ih0 = std::max<std::int64_t>(0, start), ih1 = std::min(x.h - 1, end) + 1;
      std::uint64_t c_off = static_cast<std::uint64_t>(c0 * es), c_bytes = static_cast<std::uint64_t>(nc * es);
      const std::uint64_t src = x_home ? *x_home + static_cast<std::uint64_t>(ih0) * row_bytes : map.buffer(BufferRole::Input).at(t);
      const std::uint64_t dst = y_home ? *y_home + static_cast<std::uint64_t>(r0) * out_row : map.buffer(BufferRole::Output).at(t);
      if (x_home) {
      } else if (nc == x.c) {
        emit_linear_dma(code, Opcode::Load, x.addr + static_cast<std::uint64_t>(ih0) * row_bytes, src,
               static_cast<std::uint64_t>(ih1 - ih0) * row_bytes, ctx.alignment);
      } else {
        DmaBox b;
        b.ddr_addr = x.addr + static_cast<std::uint64_t>(ih0) * row_bytes + c_off;
        b.sram_addr = src;
        b.run_bytes = c_bytes;
        b.runs = static_cast<std::uint64_t>((ih1 - ih0) * x.w);
        b.ddr_stride = static_cast<std::uint64_t>(x.c * es);
        b.sram_stride = c_bytes;
        emit_dma(code, Opcode::Load, b, ctx.alignment);
      }
      if (!x_home) out.planned_ddr_bytes += static_cast<std::uint64_t>((ih1 - ih0) * x.w) * c_bytes;
      code.push_back(make(Opcode::Pool, {{Field::dtype, static_cast<std::int64_t>(ctx.int8() ? isa::DType::Int8 : isa::DType::Fp16)},
                                         {Field::mode, static_cast<std::int64_t>(is_max ? isa::PoolMode::Max : isa::PoolMode::Average)},
                                         {Field::count_include_pad, n.get_int("count_include_pad", 0)},
                                         {Field::dst_addr, addr(dst)}, {Field::src_addr, addr(src)},
                                         {Field::in_h, ih1 - ih0}, {Field::in_w, x.w}, {Field::channels, nc},
                                         {Field::kernel_h, geo.kernel_h}, {Field::kernel_w, geo.kernel_w},
                                         {Field::stride_h, geo.stride_h}, {Field::stride_w, geo.stride_w},
                                         {Field::pad_top, ih0 - start}, {Field::pad_left, geo.pad_left},
                                         {Field::pad_bottom, end - (ih1 - 1)}, {Field::pad_right, pad_right},
                                         {Field::pad_value, pad_value}}));
      if (!store) continue;
      if (nc == x.c) {
        emit_linear_dma(code, Opcode::Store, y.addr + static_cast<std::uint64_t>(r0) * out_row, dst, static_cast<std::uint64_t>(nr) * out_row, ctx.alignment);
      } else {
        DmaBox b;
        b.ddr_addr = y.addr + static_cast<std::uint64_t>(r0) * out_row + c_off;
        b.sram_addr = dst;
        b.run_bytes = c_bytes;
        b.runs = static_cast<std::uint64_t>(nr * y.w);
        b.ddr_stride = static_cast<std::uint64_t>(y.c * es);
        b.sram_stride = c_bytes;
        emit_dma(code, Opcode::Store, b, ctx.alignment);
      }
      out.planned_ddr_bytes += static_cast<std::uint64_t>(nr * y.w) * c_bytes;
    }
  }
  return out;
}

bool is_pool(const Node& n) { return n.op_type == "MaxPool" || n.op_type == "AveragePool"; }

WindowGeometry pool_geometry(CodegenContext& ctx, const Node& n) {
  auto k = n.get_ints("kernel_shape");
  return window_geometry(n, ctx.graph.tensor(n.inputs[0]).shape, k[0], k[1]);
}

// Engine parts (engine_split.h): bands of output rows. Only where every row of the input and
// the output is a whole number of alignment units, so a band starts aligned wherever the
// engine's part of a resident value begins.
std::int64_t pool_split_extent(CodegenContext& ctx, const Node& n, LoopDim dim) {
  const DdrTensor& x = ctx.tensor(n.inputs[0]);
  const DdrTensor& y = ctx.tensor(n.outputs[0]);
  const std::int64_t es = ctx.elem_bytes();
  if (dim != LoopDim::Rows || static_cast<std::uint64_t>(x.w * x.c * es) % ctx.alignment ||
      static_cast<std::uint64_t>(y.w * y.c * es) % ctx.alignment)
    return 0;
  return y.h;
}

std::int64_t pool_channel_granule(CodegenContext&, const Node&) { return 1; }

ValueBox pool_part_writes(CodegenContext& ctx, const Node& n, const EnginePart& part) {
  return {part.begin, part.end, 0, ctx.tensor(n.outputs[0]).c};
}

ValueBox pool_part_reads(CodegenContext& ctx, const Node& n, const EnginePart& part, std::size_t) {
  const WindowGeometry geo = pool_geometry(ctx, n);
  const DdrTensor& x = ctx.tensor(n.inputs[0]);
  const std::int64_t first = part.begin * geo.stride_h - geo.pad_top;
  const std::int64_t last = (part.end - 1) * geo.stride_h - geo.pad_top + geo.kernel_h - 1;
  return {std::max<std::int64_t>(0, first), std::min(x.h, last + 1), 0, x.c};
}

const LayerSplitter kPoolSplitter{pool_split_extent, pool_channel_granule, pool_part_reads, pool_part_writes};

}  // namespace

const NpuOpFamily& pool_family() {
  static const NpuOpFamily family{"pool", is_pool,
                                  pool_rejection, generate_pool, nullptr,
                                  /*region_aware=*/true, /*reads_resident=*/true, /*writes_resident=*/true, &kPoolSplitter};
  return family;
}

}  // namespace npu::compiler
