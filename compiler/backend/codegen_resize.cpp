// Nearest Resize / Upsample by integer factors as pure DMA: input rows load into the scratchpad
// and one strided store per (dy, dx) replicates them into the output.
#include "compiler/backend/codegen_context.h"
#include "compiler/backend/instruction_stream.h"
#include "compiler/backend/isa_limits.h"
#include "compiler/backend/op_registry.h"
#include "compiler/reference/float_evaluator.h"

namespace npu::compiler {
namespace {

using namespace isa_limits;

// Resize / Upsample: nearest with an integer scale, as a plain replication (strided stores).
std::string resize_rejection(const Graph& g, const Node& n, bool int8) {
  const std::string& op = n.op_type;
  const auto& xs = g.tensor(n.inputs[0]).shape;
  if (xs.size() != 4) return "only 4-D Resize";
  std::string mode = n.get_string("mode", "nearest");
  if (mode != "nearest") return "mode '" + mode + "' (only nearest is a DMA replication)";
  const Tensor& out = g.tensor(n.outputs[0]);
  if (out.shape[0] != xs[0] || out.shape[1] != xs[1]) return "Resize changes batch or channels";
  std::string ctm = op == "Upsample" ? "asymmetric" : n.get_string("coordinate_transformation_mode", "half_pixel");
  std::string nm = op == "Upsample" ? "floor" : n.get_string("nearest_mode", "round_prefer_floor");
  for (int d = 2; d < 4; ++d) {
    if (out.shape[d] % xs[d] != 0) return "non-integer scale factor";
    std::int64_t s = out.shape[d] / xs[d];
    for (std::int64_t o = 0; o < out.shape[d]; ++o)
      if (nearest_source_index(ctm, nm, o, xs[d], out.shape[d]) != o / s)
        return "coordinate mode '" + ctm + "'/'" + nm + "' is not a plain replication";
  }
  return "";
}

LayerCode generate_resize(CodegenContext& ctx, const Node& n) {
  const DdrTensor& x = ctx.tensor(n.inputs[0]);
  const DdrTensor& y = ctx.tensor(n.outputs[0]);
  const std::int64_t es = ctx.elem_bytes();
  const std::int64_t sh = y.h / x.h, sw = y.w / x.w;
  std::uint64_t row = static_cast<std::uint64_t>(x.w * x.c * es);
  // Input rows in two halves of the region, as many whole rows as a half holds.
  std::uint64_t half = ctx.sram_bytes / 2 / ctx.alignment * ctx.alignment;
  if (row > half) throw_tile_too_big(ctx, n, 2 * row);
  LayerCode out;
  LayerMapping& map = out.mapping;
  map.unit = TileUnit::Dma;
  map.loops = {{LoopDim::Rows, x.h, std::min<std::int64_t>(x.h, static_cast<std::int64_t>(half / row))}};
  map.region_base = ctx.sram_base;
  std::uint64_t at = ctx.sram_base;
  for (int i = 0; i < 2; ++i) map.place(BufferRole::Input, 0, half, at);
  const std::int64_t rows = map.loop(LoopDim::Rows).tile;
  LayerStream stream({Unit::Load, Unit::Store}, false);
  for (std::int64_t r0 = 0, t = 0; r0 < x.h; r0 += rows, ++t) {
    std::int64_t nr = std::min(rows, x.h - r0);
    std::uint64_t slot = map.buffer(BufferRole::Input).at(t);
    TileStages& st = stream.new_tile();
    emit_linear_dma(st.load, Opcode::Load, x.addr + static_cast<std::uint64_t>(r0) * row, slot, static_cast<std::uint64_t>(nr) * row, ctx.alignment);
    // Output pixel (sh*i + dy, sw*j + dx) = input (i, j): one strided store per (dy, dx).
    for (std::int64_t dy = 0; dy < sh; ++dy)
      for (std::int64_t dx = 0; dx < sw; ++dx) {
        DmaBox b;
        b.sram_addr = slot;
        b.ddr_addr = y.addr + static_cast<std::uint64_t>(((r0 * sh + dy) * y.w + dx) * y.c * es);
        b.run_bytes = static_cast<std::uint64_t>(x.c * es);
        b.runs = static_cast<std::uint64_t>(x.w);
        b.ddr_stride = static_cast<std::uint64_t>(sw * y.c * es);
        b.sram_stride = b.run_bytes;
        b.reps = static_cast<std::uint64_t>(nr);
        b.ddr_rep_stride = static_cast<std::uint64_t>(sh * y.w * y.c * es);
        b.sram_rep_stride = row;
        emit_dma(st.store, Opcode::Store, b, ctx.alignment);
      }
    out.planned_ddr_bytes += static_cast<std::uint64_t>(nr) * row * static_cast<std::uint64_t>(1 + sh * sw);
  }
  out.code = stream.finish();
  return out;
}

bool is_nearest_resize(const Node& n) { return n.op_type == "Resize" || n.op_type == "Upsample"; }

}  // namespace

const NpuOpFamily& resize_family() {
  static const NpuOpFamily family{"resize", is_nearest_resize,
                                  resize_rejection, generate_resize, nullptr,
                                  /*region_aware=*/true, /*reads_resident=*/false, /*writes_resident=*/false};
  return family;
}

}  // namespace npu::compiler
